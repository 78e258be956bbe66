/**
 * The container image built from the Dockerfile and run for real with podman (docs/operations.md,
 * "What the image test proves"): on a base assembled from Debian's archive and the npm registry
 * (scripts/container-base.sh; no image registry is reached), as the manifests in deploy/ run it,
 * each container read-only, with no capabilities, its ports published on 127.0.0.1 only.
 * Skipped when podman cannot run, unless REQUIRE_CONTAINER=1 (as npm test sets it).
 */
import { expect } from 'chai'
import { once } from 'node:events'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parse } from 'yaml'
import { expectClose } from '../helpers/close.js'
import { baseImage, buildImage, podman, podmanMissing, runContainer, runOnce, untilAnswers, type Container } from '../helpers/container.js'
import { loadServices } from '../../src/grpc/protos.js'
import { clientOf, unary } from '../helpers/grpc-client.js'
import { FIXTURES, ROOT } from '../helpers/paths.js'
import { readyPort, start, type Run } from '../helpers/processes.js'

type Doc = Record<string, any>

const IMAGE = 'localhost/tfidf-serve:test'
const DEPLOYMENT = parse(readFileSync(path.join(ROOT, 'deploy', 'kubernetes', 'deployment.yaml'), 'utf8')) as Doc
const RUNTIME = parse(readFileSync(path.join(ROOT, 'deploy', 'kserve', 'servingruntime.yaml'), 'utf8')) as Doc
const INFERENCE_SERVICE = parse(readFileSync(path.join(ROOT, 'deploy', 'kserve', 'inferenceservice.yaml'), 'utf8')) as Doc
const TEXTS = ['a wonderful, moving film', 'dull and lifeless', 'not good at all']
/** The gRPC port the plain image is given (it has none unless GRPC_PORT is set). */
const GRPC_PORT = 8001

/** A Kubernetes container's securityContext (with its pod's), as podman run's flags. */
function securityFlags (container: Doc, pod: Doc = {}): string[] {
  const context = { ...pod, ...container.securityContext } as Doc
  const flags: string[] = []
  if (context.runAsUser !== undefined) flags.push('--user', `${context.runAsUser}:${context.runAsGroup ?? context.runAsUser}`)
  if (context.readOnlyRootFilesystem === true) flags.push('--read-only', '--read-only-tmpfs=false')
  for (const cap of context.capabilities?.drop ?? []) flags.push(`--cap-drop=${String(cap).toLowerCase()}`)
  if (context.allowPrivilegeEscalation === false) flags.push('--security-opt', 'no-new-privileges')
  return flags
}

/** Env entries with plain values, as --env flags. */
const envFlags = (container: Doc): string[] => (container.env ?? []).flatMap((e: Doc) => ['--env', `${e.name}=${e.value}`])

/** An emptyDir volume mounted by the container, as a tmpfs any user may write (as emptyDir is). */
function emptyDirFlags (container: Doc, volumes: Doc[]): string[] {
  return (container.volumeMounts ?? []).filter((m: Doc) => volumes.find(v => v.name === m.name)?.emptyDir !== undefined)
    .flatMap((m: Doc) => ['--tmpfs', `${m.mountPath}:rw,mode=1777`])
}

/** A probe's port: a number, or the name of one of the container's ports. */
const probePort = (container: Doc, port: number | string): number => typeof port === 'number' ? port : container.ports.find((p: Doc) => p.name === port).containerPort

interface V2Output { name: string, datatype: string, shape: number[], data: Array<string | number> }

async function v2Infer (base: string, model: string, texts: readonly string[]): Promise<Record<string, V2Output>> {
  const res = await fetch(`${base}/v2/models/${model}/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ inputs: [{ name: 'text', datatype: 'BYTES', shape: [texts.length], data: texts }] }) })
  expect(res.status).to.equal(200)
  const body = await res.json() as { model_name: string, outputs: V2Output[] }
  expect(body.model_name).to.equal(model)
  return Object.fromEntries(body.outputs.map(o => [o.name, o]))
}

/** gRPC clients of the service's own .proto files (the source tree's, which the image copies). */
const SERVICES = loadServices()

describe('the container image', function () {
  this.timeout(60000)
  let containers: Container[] = []
  let host: Run | undefined
  let hostBase = ''

  before(async function () {
    // Cold, the base (debootstrap) and the image's two npm ci steps take minutes.
    this.timeout(25 * 60000)
    const missing = podmanMissing()
    if (missing !== undefined) {
      if (process.env.REQUIRE_CONTAINER === '1') throw new Error(missing)
      this.skip()
    }
    await buildImage(ROOT, IMAGE, { NODE_IMAGE: await baseImage() })
    // The same build on the host, for the answers the image must give.
    host = start({ CACHE_SIZE: '0' })
    hostBase = `http://127.0.0.1:${await readyPort(host)}`
  })
  afterEach(async () => {
    for (const c of containers) await c.remove()
    containers = []
  })
  after(async () => {
    host?.child.kill('SIGTERM')
    if (host !== undefined) await host.exit
  })

  async function run (ports: readonly number[], options: readonly string[], command: readonly string[] = [], image = IMAGE): Promise<Container> {
    const c = await runContainer(image, ports, options, command)
    containers.push(c)
    return c
  }

  it('starts as uid 1000 read-only with no capabilities, and answers /predict, /health, V2 infer, /metrics and gRPC health as the service on the host does', async () => {
    // No tmpfs at all (podman would add /tmp, /run): the service writes nowhere.
    const c = await run([8000, GRPC_PORT], ['--read-only', '--read-only-tmpfs=false', '--cap-drop=all', '--security-opt', 'no-new-privileges', '--env', `GRPC_PORT=${GRPC_PORT}`])
    const base = `http://127.0.0.1:${c.hostPort(8000)}`
    await untilAnswers(`${base}/health`, c)
    const status = (await c.exec(['cat', '/proc/1/status'])).stdout
    expect(status).to.match(/^Uid:\t1000\t1000\t1000\t1000$/m)
    expect(status).to.match(/^Gid:\t1000\t1000\t1000\t1000$/m)
    expect(status).to.match(/^CapEff:\t0{16}$/m)
    expect(status).to.match(/^CapBnd:\t0{16}$/m)
    // Nothing the service's user may write: not the app, its home, or a temporary folder.
    for (const place of ['/app', '/home/node', '/tmp'].map(folder => `${folder}/x`)) expect((await c.exec(['touch', place])).stderr).to.match(/Read-only file system/)

    for (const text of TEXTS) {
      const body = JSON.stringify({ text })
      const [inside, outside] = await Promise.all([base, hostBase].map(async b => {
        const { processing_time: _time, request_id: _id, ...answer } = await (await fetch(`${b}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json() as Doc
        return answer
      }))
      expect(inside).to.deep.equal(outside)
    }
    expect((await (await fetch(`${base}/predict`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: TEXTS[0] }) })).json() as Doc).sentiment).to.equal('positive')
    const health = await fetch(`${base}/health`)
    expect(health.status).to.equal(200)
    expect(await health.json()).to.include({ status: 'healthy' })

    const [inside, outside] = await Promise.all([base, hostBase].map(async b => await v2Infer(b, 'default', TEXTS)))
    expect(inside.predict!.data).to.deep.equal(['positive', 'negative', 'negative'])
    expect(inside.predict!.data).to.deep.equal(outside!.predict!.data)
    expectClose(inside.predict_proba!.data as number[], outside!.predict_proba!.data as number[], 0, 'predict_proba')

    const metrics = await fetch(`${base}/metrics`, { headers: { accept: 'text/plain;version=0.0.4' } })
    expect(metrics.status).to.equal(200)
    expect(await metrics.text()).to.match(/^tfidf_http_requests_total\{route="\/predict",method="POST",status="200"\} 4$/m)

    const healthClient = clientOf(SERVICES.health, c.hostPort(GRPC_PORT))
    try {
      expect(await unary(healthClient, 'Check', { service: '' })).to.deep.equal({ status: 'SERVING' })
      expect(await unary(healthClient, 'Check', { service: 'inference.GRPCInferenceService' })).to.deep.equal({ status: 'SERVING' })
    } finally {
      healthClient.close()
    }
  })

  it('runs as the Deployment says: its probes answer 200, the HEALTHCHECK exits 0, and SIGTERM drains every request in flight within the grace period', async function () {
    const pod = DEPLOYMENT.spec.template.spec
    const spec = pod.containers[0]
    // The models volume (a claim in the manifest) holds the default model's pickles.
    const modelsMount = spec.volumeMounts.find((m: Doc) => m.name === 'models')
    const models = modelFolder()
    const ports = spec.ports.map((p: Doc) => p.containerPort as number)
    try {
      const c = await run(ports, [...securityFlags(spec, pod.securityContext), ...envFlags(spec), ...emptyDirFlags(spec, pod.volumes),
        '--volume', `${models}:${modelsMount.mountPath}:ro`])
      const started = await untilAnswers(`http://127.0.0.1:${c.hostPort(probePort(spec, spec.startupProbe.httpGet.port))}${spec.startupProbe.httpGet.path}`, c)
      expect(started).to.be.below(spec.startupProbe.periodSeconds * spec.startupProbe.failureThreshold * 1000)
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const get = spec[probe].httpGet
        const res = await fetch(`http://127.0.0.1:${c.hostPort(probePort(spec, get.port))}${get.path}`, { signal: AbortSignal.timeout((spec[probe].timeoutSeconds ?? 1) * 1000) })
        expect(res.status, probe).to.equal(200)
      }
      const healthcheck = await podman(['healthcheck', 'run', c.id], { allowFailure: true })
      expect(healthcheck.code, healthcheck.stderr).to.equal(0)
      // MODEL_CACHE_DIR's volume took the compiled model (docs/compiled-models.md).
      const cacheDir = spec.env.find((e: Doc) => e.name === 'MODEL_CACHE_DIR').value as string
      expect((await c.exec(['find', cacheDir, '-name', '*.tfsc'])).stdout.trim()).to.not.equal('')
      // The preStop hook's command is in the image.
      const preStop = await c.exec(spec.lifecycle.preStop.exec.command.map((a: string, i: number, all: string[]) => i === all.length - 1 && all[0] === 'sleep' ? '0' : a))
      expect(preStop.code).to.equal(0)

      const grace = pod.terminationGracePeriodSeconds as number
      const port = c.hostPort(ports[0])
      const answered = await inFlight(port, 16)
      const stopping = performance.now()
      const stopped = podman(['stop', '--time', String(grace), c.id])
      const responses = await Promise.all(answered.responses)
      await stopped
      const took = performance.now() - stopping
      expect(responses.map(r => [r.status, r.texts])).to.deep.equal(Array(16).fill([200, answered.texts]))
      expect(Math.max(...responses.map(r => r.at))).to.be.above(stopping)
      expect(took).to.be.below(grace * 1000)
      expect((await podman(['inspect', '--format', '{{.State.ExitCode}}', c.id])).stdout.trim()).to.equal('0')
      expect(await c.logs()).to.contain('"msg":"stopped"')
      answered.agent.destroy()
    } finally {
      rmSync(models, { recursive: true, force: true })
    }
  })

  it('starts with the KServe runtime\'s command and args on a model folder at /mnt/models, and answers the InferenceService\'s protocol over REST and gRPC', async () => {
    const spec = RUNTIME.spec.containers[0]
    const name = INFERENCE_SERVICE.metadata.name as string
    expect(INFERENCE_SERVICE.spec.predictor.model.protocolVersion).to.equal('v2')
    const args = (spec.args as string[]).map(a => a.replace('{{.Name}}', name))
    const flag = (f: string): string => args.find(a => a.startsWith(`--${f}=`))!.split('=')[1]!
    const [httpPort, grpcPort] = [Number(flag('http_port')), Number(flag('grpc_port'))]
    const folder = modelFolder()
    try {
      const c = await run([httpPort, grpcPort], [...securityFlags(spec), ...envFlags(spec), ...emptyDirFlags(spec, RUNTIME.spec.volumes),
        '--volume', `${folder}:${flag('model_dir')}:ro`, '--entrypoint', spec.command[0]], [...spec.command.slice(1), ...args])
      await untilAnswers(`http://127.0.0.1:${c.hostPort(spec.readinessProbe.httpGet.port)}${spec.readinessProbe.httpGet.path}`, c)
      for (const probe of ['readinessProbe', 'livenessProbe']) {
        const get = spec[probe].httpGet
        expect((await fetch(`http://127.0.0.1:${c.hostPort(get.port)}${get.path}`)).status, probe).to.equal(200)
      }
      const base = `http://127.0.0.1:${c.hostPort(httpPort)}`
      const rest = await v2Infer(base, name, TEXTS)
      const expected = await v2Infer(hostBase, 'default', TEXTS)
      expect(rest.predict!.data).to.deep.equal(expected.predict!.data)
      expectClose(rest.predict_proba!.data as number[], expected.predict_proba!.data as number[], 0, 'predict_proba')
      const metricsPort = Number(RUNTIME.metadata.annotations['prometheus.kserve.io/port'])
      expect((await fetch(`http://127.0.0.1:${c.hostPort(metricsPort)}${RUNTIME.metadata.annotations['prometheus.kserve.io/path']}`)).status).to.equal(200)

      const inference = clientOf(SERVICES.inference, c.hostPort(grpcPort))
      try {
        expect(await unary(inference, 'ServerReady', {})).to.deep.equal({ ready: true })
        const reply = await unary<Doc>(inference, 'ModelInfer', { model_name: name, inputs: [{ name: 'text', datatype: 'BYTES', shape: [TEXTS.length], contents: { bytes_contents: TEXTS.map(t => Buffer.from(t)) } }], outputs: [{ name: 'predict' }], parameters: { binary_data_output: { bool_param: false } } })
        expect(reply.model_name).to.equal(name)
        expect(reply.outputs[0].contents.bytes_contents.map((b: Buffer) => b.toString())).to.deep.equal(expected.predict!.data)
      } finally {
        inference.close()
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('builds a model of one\'s own as docs/compiled-models.md shows, and serves its compiled file with no pickle of it in the image', async function () {
    this.timeout(5 * 60000)
    // The doc's Dockerfile, run as written on this image; the model a fixture made by scikit-learn.
    const doc = readFileSync(path.join(ROOT, 'docs', 'compiled-models.md'), 'utf8')
    const recipe = /```dockerfile\n([\s\S]*?)```/.exec(doc)![1]!.replace(/^FROM tfidf-serve:\S+/gm, m => m.replace(/tfidf-serve:\S+/, IMAGE))
    const context = mkdtempSync(path.join(tmpdir(), 'tfidf-serve-own-'))
    const fixture = path.join(FIXTURES, 'apps', '1.6.1', 'movies-lemma')
    mkdirSync(path.join(context, 'my-model'))
    for (const f of ['pipeline.joblib', 'model-settings.json']) copyFileSync(path.join(fixture, f), path.join(context, 'my-model', f))
    writeFileSync(path.join(context, 'Dockerfile'), recipe)
    const own = 'localhost/tfidf-serve-own:test'
    try {
      await buildImage(context, own)
      // Pickles in the image: the default model's alone (under /app), none of the model built in.
      const pickles = (await runOnce(own, 'find', ['/', '-xdev', '-type', 'f', '(', '-name', '*.pkl', '-o', '-name', '*.joblib', '-o', '-name', '*.pickle', ')'])).stdout.trim().split('\n').sort()
      expect(pickles).to.deep.equal(['/app/models/final_best_model.pkl', '/app/models/tfidf_vectorizer.pkl'])
      const c = await run([8000], ['--read-only', '--read-only-tmpfs=false', '--cap-drop=all', '--security-opt', 'no-new-privileges'], [], own)
      const base = `http://127.0.0.1:${c.hostPort(8000)}`
      await untilAnswers(`${base}/health`, c)
      const ready = (await c.logs()).split('\n').find(l => l.includes('"msg":"ready"'))!
      expect(ready).to.match(/\.tfsc"/)
      const expected = readFileSync(path.join(fixture, 'expected.jsonl'), 'utf8').trim().split('\n').slice(0, 40).map(l => JSON.parse(l) as { text: string, label: string, decision: number[] })
      const outputs = await v2Infer(base, 'default', expected.map(e => e.text))
      expect(outputs.predict!.data).to.deep.equal(expected.map(e => e.label))
      expectClose(outputs.decision_function!.data as number[], expected.flatMap(e => e.decision), 1e-9, 'decision_function')
    } finally {
      await podman(['rmi', '--force', own], { allowFailure: true })
      rmSync(context, { recursive: true, force: true })
    }
  })
})

/** A folder holding the default model's pickles that the container's user (uid 1000) may read, as a volume's are. */
function modelFolder (): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'tfidf-serve-models-'))
  chmodSync(folder, 0o755)
  for (const f of ['final_best_model.pkl', 'tfidf_vectorizer.pkl']) {
    copyFileSync(path.join(ROOT, 'models', f), path.join(folder, f))
    chmodSync(path.join(folder, f), 0o644)
  }
  return folder
}

/**
 * `count` /predict requests in flight on open connections (each connection accepted first with
 * a GET, so none waits in the listen backlog), their bodies sent, their answers still to come.
 */
async function inFlight (port: number, count: number): Promise<{ agent: http.Agent, texts: number, responses: Array<Promise<{ status: number, texts: number, at: number }>> }> {
  const texts = 50
  const long = 'a wonderful, moving film with a dull middle '.repeat(200)
  const body = JSON.stringify({ texts: Array.from({ length: texts }, (_, i) => `${long} ${i}`), batch_size: 1 })
  const agent = new http.Agent({ keepAlive: true, maxSockets: count })
  await Promise.all(Array.from({ length: count }, async () => await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/health', agent }, res => { res.resume(); res.on('end', resolve) }).on('error', reject)
  })))
  const sent: Array<Promise<unknown>> = []
  const responses = Array.from({ length: count }, async () => await new Promise<{ status: number, texts: number, at: number }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/predict', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, res => {
      let text = ''
      res.on('data', (d: Buffer) => { text += d.toString() })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, texts: (JSON.parse(text) as { predictions?: unknown[] }).predictions?.length ?? 0, at: performance.now() }))
    })
    req.on('error', reject)
    sent.push(once(req, 'finish'))
    req.end(body)
  }))
  await Promise.all(sent)
  await new Promise(resolve => setTimeout(resolve, 50))
  return { agent, texts, responses }
}
