/**
 * The container image and the Kubernetes manifests, checked as files: parsed, held to what
 * running the service needs and to the Kubernetes API's schema (test/container/image.test.ts
 * builds and runs the image).
 */
import { expect } from 'chai'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { parse, parseAllDocuments } from 'yaml'
import { ROOT } from './helpers/paths.js'

type Doc = Record<string, any>

const K8S = path.join(ROOT, 'deploy', 'kubernetes')
const manifests: Doc[] = readdirSync(K8S).filter(f => f.endsWith('.yaml')).flatMap(f => parseAllDocuments(readFileSync(path.join(K8S, f), 'utf8')).map(d => {
  if (d.errors.length > 0) throw new Error(`${f}: ${d.errors.map(e => e.message).join('; ')}`)
  return d.toJS() as Doc
}))
const byKind = (kind: string): Doc => {
  const found = manifests.filter(m => m.kind === kind)
  expect(found, kind).to.have.length(1)
  return found[0]!
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions (): Array<[string, string]> {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ')
  return text.split('\n').map(l => l.trim()).filter(l => l !== '' && !l.startsWith('#')).map(l => {
    const space = l.indexOf(' ')
    return [l.slice(0, space).toUpperCase(), l.slice(space + 1).trim()]
  })
}

describe('the Dockerfile', () => {
  const all = instructions()
  // What comes before the first FROM (the base's ARG) belongs to no stage.
  const global = all.slice(0, all.findIndex(i => i[0] === 'FROM'))
  const stages = all.slice(global.length).reduce<Array<Array<[string, string]>>>((out, i) => { if (i[0] === 'FROM') out.push([]); out[out.length - 1]!.push(i); return out }, [])
  const run = stages[stages.length - 1]!
  const get = (name: string): string[] => run.filter(i => i[0] === name).map(i => i[1])

  it('builds in one stage and runs from a small Debian Node 20 image with production dependencies only', () => {
    expect(stages.length).to.be.at.least(2)
    // Both stages on one base, the official image unless a build argument names another
    // (the image test's assembled one: scripts/container-base.sh).
    expect(global).to.deep.equal([['ARG', 'NODE_IMAGE=node:20-bookworm-slim']])
    for (const stage of stages) expect(stage[0]![1]).to.match(/^\$\{NODE_IMAGE\}( AS \w+)?$/)
    expect(get('RUN').join(' ')).to.match(/npm ci --omit=dev/)
    expect(get('COPY').some(c => c.startsWith('--from=build') && c.includes('dist/src'))).to.equal(true)
    expect(get('COPY').some(c => c.includes('models/final_best_model.pkl') && c.includes('models/tfidf_vectorizer.pkl'))).to.equal(true)
  })

  it('fixes glibc\'s mmap threshold in the image and in npm start, so unloaded models go back to the system', () => {
    expect(get('ENV').join(' ')).to.match(/\bMALLOC_MMAP_THRESHOLD_=131072\b/)
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.start).to.match(/^MALLOC_MMAP_THRESHOLD_=131072 node /)
  })

  it('runs as a user that is not root, checks /health, and lets SIGTERM reach node', () => {
    const user = get('USER')
    expect(user).to.have.length(1)
    expect(user[0]).not.to.match(/^(root|0)(:|$)/)
    const health = get('HEALTHCHECK').join(' ')
    expect(health).to.match(/CMD \[/)
    expect(health).to.contain('/health')
    // Exec form: node is PID 1, no shell in between to swallow the signal.
    const cmd = JSON.parse(get('CMD')[0]!) as string[]
    expect(cmd[0]).to.equal('node')
    expect(cmd[cmd.length - 1]).to.equal('dist/src/main.bundle.js')
    expect(get('ENTRYPOINT')).to.deep.equal([])
    expect(get('EXPOSE')).to.deep.equal(['8000'])
  })

  it('starts node with the flags npm start uses', () => {
    const cmd = JSON.parse(get('CMD')[0]!) as string[]
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
    // npm start sets the mmap threshold on its command line; the image sets it with ENV.
    expect(cmd.join(' ')).to.equal(pkg.scripts.start.replace(/^MALLOC_MMAP_THRESHOLD_=131072 /, ''))
  })

  it('has a .dockerignore that keeps the local and built files out', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map(l => l.trim())
    expect(ignored).to.include.members(['node_modules', 'dist', '.git'])
  })
})

describe('the Kubernetes manifests', () => {
  const deployment = byKind('Deployment')
  const pod = deployment.spec.template.spec
  const container = pod.containers[0]
  const labels = deployment.spec.template.metadata.labels

  it('probe /health for start-up, readiness and liveness on the container\'s port', () => {
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(container[probe].httpGet.path, probe).to.equal('/health')
      expect(container[probe].httpGet.port, probe).to.equal(container.ports[0].name)
    }
    expect(container.ports[0].containerPort).to.equal(8000)
  })

  it('size requests and limits from the bench, with WORKERS matching the CPUs', () => {
    const mb = (q: string): number => Number(q.replace(/Mi$/, '')) * 1.048576
    expect(mb(container.resources.requests.memory)).to.be.at.least(150)
    expect(mb(container.resources.limits.memory)).to.be.at.least(mb(container.resources.requests.memory))
    const workers = container.env.find((e: Doc) => e.name === 'WORKERS')
    expect(Number(workers.value)).to.equal(Number(container.resources.limits.cpu))
  })

  it('drain before stopping: a preStop pause, and a grace period past the 30 s request limit', () => {
    const pause = Number(container.lifecycle.preStop.exec.command.at(-1))
    expect(pause).to.be.at.least(3)
    expect(pod.terminationGracePeriodSeconds).to.be.at.least(pause + 30)
  })

  it('read the model files from a volume at the paths MODEL_PATH and VECTORIZER_PATH name', () => {
    const mount = container.volumeMounts.find((m: Doc) => m.name === 'models')
    expect(mount.readOnly).to.equal(true)
    expect(pod.volumes.map((v: Doc) => v.name)).to.include('models')
    for (const name of ['MODEL_PATH', 'VECTORIZER_PATH']) {
      const value = container.env.find((e: Doc) => e.name === name).value as string
      expect(path.posix.dirname(value), name).to.equal(mount.mountPath)
    }
    expect(pod.securityContext.runAsNonRoot).to.equal(true)
  })

  it('keep compiled models in MODEL_CACHE_DIR on a volume the container may write (its root filesystem is read-only)', () => {
    const dir = container.env.find((e: Doc) => e.name === 'MODEL_CACHE_DIR').value as string
    const mount = container.volumeMounts.find((m: Doc) => m.mountPath === dir)
    expect(mount.readOnly).to.not.equal(true)
    expect(pod.volumes.find((v: Doc) => v.name === mount.name).emptyDir).to.be.an('object')
  })

  it('route the Service, the autoscaler, the disruption budget and the ServiceMonitor to these pods', () => {
    const service = byKind('Service')
    expect(service.spec.selector).to.deep.equal(labels)
    expect(service.spec.ports[0].targetPort).to.equal(container.ports[0].name)
    const hpa = byKind('HorizontalPodAutoscaler')
    expect(hpa.apiVersion).to.equal('autoscaling/v2')
    expect(hpa.spec.scaleTargetRef).to.include({ kind: 'Deployment', name: deployment.metadata.name })
    expect(hpa.spec.metrics[0].resource.name).to.equal('cpu')
    expect(hpa.spec.minReplicas).to.be.at.least(2)
    const pdb = byKind('PodDisruptionBudget')
    expect(pdb.spec.selector.matchLabels).to.deep.equal(labels)
    const monitor = byKind('ServiceMonitor')
    expect(monitor.spec.selector.matchLabels).to.deep.equal(service.metadata.labels)
    expect(monitor.spec.endpoints[0]).to.include({ port: service.spec.ports[0].name, path: '/metrics' })
  })

  it('are all listed in the kustomization', () => {
    const kustomization = byKind('Kustomization')
    const files = readdirSync(K8S).filter(f => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    expect([...kustomization.resources].sort()).to.deep.equal(files.sort())
  })
})

describe('the KServe manifests', () => {
  const KSERVE = path.join(ROOT, 'deploy', 'kserve')
  const docs: Doc[] = readdirSync(KSERVE).filter(f => f.endsWith('.yaml')).flatMap(f => parseAllDocuments(readFileSync(path.join(KSERVE, f), 'utf8')).map(d => d.toJS() as Doc))
  const runtime = docs.find(d => d.kind === 'ServingRuntime')!
  const service = docs.find(d => d.kind === 'InferenceService')!

  it('define a ServingRuntime that runs tfidf-serve as a V2 runtime (REST and gRPC) on the model KServe mounts', () => {
    expect(runtime.apiVersion).to.equal('serving.kserve.io/v1alpha1')
    expect(runtime.spec.protocolVersions).to.deep.equal(['v2', 'grpc-v2'])
    expect(runtime.spec.supportedModelFormats[0].name).to.equal('sklearn')
    const container = runtime.spec.containers[0]
    expect(container.name).to.equal('kserve-container')
    expect(container.command).to.deep.equal(['node', 'dist/src/cli.js'])
    expect(container.args).to.deep.equal(['serve', '--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080', '--grpc_port=8081'])
    expect(container.readinessProbe.httpGet.path).to.equal('/v2/health/ready')
    expect(container.livenessProbe.httpGet.path).to.equal('/v2/health/live')
    expect(container.securityContext).to.include({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false })
    const cache = container.env.find((e: Doc) => e.name === 'MODEL_CACHE_DIR').value as string
    const mount = container.volumeMounts.find((m: Doc) => m.mountPath === cache)
    expect(runtime.spec.volumes.find((v: Doc) => v.name === mount.name).emptyDir).to.be.an('object')
  })

  it('define an InferenceService that names that runtime and the V2 protocol', () => {
    expect(service.apiVersion).to.equal('serving.kserve.io/v1beta1')
    expect(service.spec.predictor.model).to.deep.include({ runtime: runtime.metadata.name, protocolVersion: 'v2' })
    expect(service.spec.predictor.model.modelFormat.name).to.equal('sklearn')
  })
})

/**
 * Every manifest held to its API's own schema: Kubernetes 1.33's OpenAPI definitions (compiled
 * into validators by kubernetes-models 4.5, the last line that runs on Node 20), the Prometheus
 * operator's for the ServiceMonitor, and for KServe's resources, whose CRDs no package carries,
 * the core Container and Volume schemas their pod parts are made of (docs/operations.md).
 */
describe('the manifests against the Kubernetes API schema', () => {
  interface Model { validate: () => void }
  type ModelClass = new (data: Doc) => Model

  /** The validating model of an apiVersion and kind: `kubernetes-models/<group>/<version>/<Kind>`. */
  async function modelOf (apiVersion: string, kind: string): Promise<ModelClass> {
    const module = apiVersion === 'monitoring.coreos.com/v1'
      ? `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`
      : `kubernetes-models/${apiVersion}/${kind}`
    return ((await import(module)) as Record<string, ModelClass>)[kind]!
  }

  /** What `kubectl apply -k dir` would send: each resource its kustomization lists, overlays followed. */
  function kustomized (dir: string): Array<{ file: string, doc: Doc }> {
    const kustomization = parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as Doc
    // Patches and generators would change what is sent: none is used, and none may slip in unchecked.
    const handled = ['apiVersion', 'kind', 'resources']
    expect(Object.keys(kustomization).filter(k => !handled.includes(k)), `${dir}/kustomization.yaml`).to.deep.equal([])
    return (kustomization.resources as string[]).flatMap(entry => {
      const at = path.join(dir, entry)
      if (statSync(at).isDirectory()) return kustomized(at)
      return parseAllDocuments(readFileSync(at, 'utf8')).map(d => ({ file: path.relative(ROOT, at), doc: d.toJS() as Doc }))
    })
  }

  async function refusal (apiVersion: string, kind: string, doc: Doc): Promise<string> {
    const Model = await modelOf(apiVersion, kind)
    try {
      new Model(doc).validate()
    } catch (err) {
      return (err as Error).message
    }
    return ''
  }

  it('holds every resource the kustomization sends to its API version\'s schema', async () => {
    const sent = kustomized(K8S)
    expect(sent.map(s => s.doc.kind).sort()).to.deep.equal(['Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service', 'ServiceMonitor'])
    for (const { file, doc } of sent) expect(await refusal(doc.apiVersion, doc.kind, doc), file).to.equal('')
  })

  it('refuses a manifest that breaks the schema, so the check above is one', async () => {
    const deployment = structuredClone(byKind('Deployment'))
    deployment.spec.replicas = '2'
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'http'
    delete deployment.spec.selector
    const message = await refusal('apps/v1', 'Deployment', deployment)
    expect(message).to.contain('spec/replicas must be integer')
    expect(message).to.contain('containerPort must be integer')
    expect(message).to.contain('spec must have required property selector')
    const hpa = structuredClone(byKind('HorizontalPodAutoscaler'))
    hpa.spec.metrics[0].resource.target.averageUtilization = 70.5
    expect(await refusal('autoscaling/v2', 'HorizontalPodAutoscaler', hpa)).to.contain('averageUtilization must be integer')
  })

  it('holds the KServe runtime\'s containers and volumes to the core Container and Volume schemas', async () => {
    const runtime = parseAllDocuments(readFileSync(path.join(ROOT, 'deploy', 'kserve', 'servingruntime.yaml'), 'utf8'))[0]!.toJS() as Doc
    const Container = (await import('kubernetes-models/v1/Container')).Container as unknown as ModelClass
    const Volume = (await import('kubernetes-models/v1/Volume')).Volume as unknown as ModelClass
    for (const c of runtime.spec.containers) new Container(c).validate()
    for (const v of runtime.spec.volumes) new Volume(v).validate()
    expect(() => new Container({ ...runtime.spec.containers[0], ports: [{ containerPort: '8080' }] }).validate()).to.throw(/containerPort must be integer/)
  })
})
