/**
 * Tracing in the service process as `npm start` runs it, configured by the OpenTelemetry
 * variables alone: the resource names the service, model loads, reloads, unloads and failed
 * loads are spans, a request's log line carries its trace and span ids. With no endpoint set,
 * no OpenTelemetry SDK module is even imported.
 */
import { expect } from 'chai'
import path from 'node:path'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { startReceiver, waitFor, type Receiver } from '../helpers/otlp-receiver.js'
import { logLines, MAIN, readyPort, start, type Run } from '../helpers/processes.js'
import { ROOT } from '../helpers/paths.js'
import { makeThreeModelRepository } from '../helpers/repositories.js'

const NO_OTEL_SDK = path.join(ROOT, 'dist', 'test', 'helpers', 'no-otel-sdk.js')

async function post (port: number, route: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return await fetch(`http://127.0.0.1:${port}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })
}

/** The nice value of each of a process's threads (Linux keeps one per thread) other than its main thread, and the main thread's. */
function threadNiceValues (pid: number): { main: number, others: number[] } {
  const nice = (tid: string): number => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  }
  return { main: nice(String(pid)), others: readdirSync(`/proc/${pid}/task`).filter(tid => tid !== String(pid)).map(nice) }
}

async function stop (run: Run): Promise<number> {
  run.child.kill('SIGTERM')
  return await run.exit
}

describe('tracing in the service process', function () {
  this.timeout(60000)
  let receiver: Receiver
  let root: string

  before(async () => {
    receiver = await startReceiver()
    root = makeThreeModelRepository('tfidf-otel-')
  })

  after(async () => {
    await receiver.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('takes its settings from the OTEL variables and traces model loads, reloads, unloads and requests', async () => {
    const run = start({
      MODEL_REPOSITORY: root,
      DEFAULT_MODEL: 'sentiment',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'classifier-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci,k8s.pod.name=classifier-7d9f',
      OTEL_BSP_SCHEDULE_DELAY: '20'
    })
    try {
      const port = await readyPort(run)
      const loads = (): string[] => receiver.spans.filter(s => s.name.startsWith('model ')).map(s => `${s.name} ${String(s.attributes['tfidf.model.name'])} ${String(s.attributes['tfidf.model.event'])}`)
      await waitFor(() => loads().length >= 3).catch(() => { throw new Error(JSON.stringify(loads())) })
      expect(loads().sort()).to.deep.equal(['model load hostile load_failed', 'model load sentiment loaded', 'model load spam loaded'])
      const failed = receiver.spans.find(s => s.attributes['tfidf.model.name'] === 'hostile')!
      expect(failed.status.code).to.equal(2)
      expect(failed.status.message).to.include('contains itself')
      expect((await post(port, '/v2/repository/models/spam/load', {})).status).to.equal(200)
      expect((await post(port, '/v2/repository/models/spam/unload', {})).status).to.equal(200)
      await waitFor(() => loads().includes('model reload spam loaded') && loads().includes('model unload spam unloaded'))
      // The repository calls are requests with their own spans too, and their log lines join them.
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'
      const answer = await post(port, '/predict', { text: 'a moving and beautiful film' }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` })
      expect(answer.status).to.equal(200)
      await waitFor(() => receiver.spans.some(s => s.traceId === traceId && s.name === 'worker predict'))
      const server = receiver.spans.find(s => s.traceId === traceId && s.name === 'POST /predict')!
      expect(server.resource).to.deep.include({ 'service.name': 'classifier-test', 'deployment.environment.name': 'ci', 'k8s.pod.name': 'classifier-7d9f', 'telemetry.sdk.language': 'nodejs' })
      await waitFor(() => logLines(run).some(l => l.msg === 'request' && l.trace_id === traceId))
      expect(logLines(run).find(l => l.msg === 'request' && l.trace_id === traceId)).to.deep.include({ span_id: server.spanId })
      expect(answer.headers.get('traceparent')).to.equal(`00-${traceId}-${server.spanId}-01`)
      // The export thread alone runs at the lowest priority: requests come first on a busy machine.
      // (A service started at nice 19 already has nowhere lower to put it.)
      const { main, others } = threadNiceValues(run.child.pid!)
      expect(others.filter(n => n !== main)).to.deep.equal(main < 19 ? [19] : [])
    } finally {
      expect(await stop(run)).to.equal(0)
    }
  })

  it('imports no OpenTelemetry SDK module with tracing off (and cannot start traced without one)', async () => {
    const node = (env: Record<string, string>): Run => {
      const child = spawn(process.execPath, ['--import', NO_OTEL_SDK, MAIN], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', WORKERS: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      child.stdout.on('data', (d: Buffer) => { out += d.toString() })
      child.stderr.on('data', (d: Buffer) => { err += d.toString() })
      return { child, stdout: () => out, stderr: () => err, exit: once(child, 'exit').then(([code]) => code as number) }
    }
    const off = node({})
    try {
      const port = await readyPort(off)
      const answer = await post(port, '/predict', { text: 'a moving and beautiful film' }, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })
      expect(answer.status).to.equal(200)
      expect(answer.headers.get('traceparent')).to.equal(null)
      const { main, others } = threadNiceValues(off.child.pid!)
      expect(others.filter(n => n !== main)).to.deep.equal([])
    } finally {
      expect(await stop(off)).to.equal(0)
    }
    // The same hook stops a traced start: it does see the SDK's imports.
    const on = node({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
    expect(await on.exit).to.not.equal(0)
    expect(on.stderr()).to.include('@opentelemetry/')
  })
})
