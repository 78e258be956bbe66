/**
 * The container image and the Kubernetes manifests, checked as files (no container engine
 * or cluster runs here): parsed, and held to what running the service needs.
 */
import { expect } from 'chai'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { parseAllDocuments } from 'yaml'
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
