/**
 * Real processes for tests: the service as `npm start` runs it (node dist/src/main.bundle.js), and a
 * real redis-server (Debian's package; npm test installs it: scripts/test-deps.sh) on a free port of 127.0.0.1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import path from 'node:path'
import { ROOT } from './paths.js'

export const MAIN = path.join(ROOT, 'dist', 'src', 'main.bundle.js')

export interface Run { child: ChildProcess, stdout: () => string, stderr: () => string, exit: Promise<number> }

/**
 * The service process, on an ephemeral port of 127.0.0.1, configured by `env` only, in the
 * folder `cwd` (default: this process's), which relative paths in `env` resolve against.
 */
export function start (env: Record<string, string>, cwd?: string): Run {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', WORKERS: '2', ...(process.env.NLTK_DATA === undefined ? {} : { NLTK_DATA: process.env.NLTK_DATA }), ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => { out += d.toString() })
  child.stderr!.on('data', (d: Buffer) => { err += d.toString() })
  const exit = once(child, 'exit').then(([code]) => code as number)
  return { child, stdout: () => out, stderr: () => err, exit }
}

/** The port of a started service, once it has logged its ready line. */
export async function readyPort (run: Run): Promise<number> {
  const until = Date.now() + 20000
  while (Date.now() < until) {
    const line = run.stdout().split('\n').find(l => l.includes('"msg":"ready"'))
    if (line !== undefined) return (JSON.parse(line) as { port: number }).port
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  throw new Error(`not ready: ${run.stderr()}`)
}

/** The JSON lines a service logged so far. */
export function logLines (run: Run): Array<Record<string, unknown>> {
  return run.stdout().split('\n').filter(l => l.startsWith('{')).map(l => JSON.parse(l) as Record<string, unknown>)
}

/** A port free on 127.0.0.1 at the time of asking. */
export async function freePort (): Promise<number> {
  const server = net.createServer()
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise(resolve => server.close(resolve))
  return port
}

export interface RedisServer {
  readonly port: number
  readonly url: string
  readonly child: ChildProcess
  /** SIGKILL, and the exit awaited. */
  kill: () => Promise<void>
}

/**
 * A real redis-server with nothing saved to disk, on `port` (default: a free one). Fails,
 * never skips, when redis-server is not installed (apt-get install -y redis-server).
 */
export async function startRedis (port?: number): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).status !== 0) throw new Error('no redis-server: apt-get install -y redis-server')
  const p = port ?? await freePort()
  const child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => { out += d.toString() })
  const exited = once(child, 'exit')
  const until = Date.now() + 10000
  while (!out.includes('Ready to accept connections')) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`redis-server did not start on ${p}: ${out}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
  return {
    port: p,
    url: `redis://127.0.0.1:${p}`,
    child,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    }
  }
}
