/** Servers under test as child processes: start, wait for health, measure RSS, stop. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'

export interface Server {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
  /** Seconds from spawn to the first 200 from the health path. */
  readonly startupSeconds: number
  rssBytes: () => number
  stop: () => Promise<void>
}

export async function freePort (): Promise<number> {
  const srv = createServer()
  await new Promise<void>(resolve => srv.listen(0, '127.0.0.1', resolve))
  const port = (srv.address() as { port: number }).port
  await new Promise(resolve => srv.close(resolve))
  return port
}

/** utime + stime of a process (all its threads), or of its thread `tid` alone, in microseconds (from /proc). */
export function cpuMicros (pid: number, tid?: number): number {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 1e6 / 100
}

/**
 * Runs `work` (which answers how many texts it sent) and says what each text cost: the server
 * front thread's CPU (main thread: pid = tid), all the server's threads', and this process's
 * (the load generator's), in microseconds.
 */
export async function costPerText<T extends { texts: number }> (pid: number, work: () => Promise<T>): Promise<T & { frontUs: number, serverUs: number, clientUs: number }> {
  const front = cpuMicros(pid, pid)
  const all = cpuMicros(pid)
  const client = process.cpuUsage()
  const r = await work()
  const c = process.cpuUsage(client)
  return { ...r, frontUs: (cpuMicros(pid, pid) - front) / r.texts, serverUs: (cpuMicros(pid) - all) / r.texts, clientUs: (c.user + c.system) / r.texts }
}

/** Each process's children, from /proc. */
function childrenOf (): Map<number, number[]> {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {}
  }
  return children
}

/** CPU of a process and its descendants alive now (MLServer's and uvicorn's worker processes), in microseconds. */
export function treeCpuMicros (pid: number): number {
  const children = childrenOf()
  let total = 0
  const visit = (p: number): void => {
    try { total += cpuMicros(p) } catch {}
    for (const c of children.get(p) ?? []) visit(c)
  }
  visit(pid)
  return total
}

/** Resident memory of a process and all its descendants (uvicorn's workers, say), from /proc. */
export function treeRss (pid: number): number {
  const children = childrenOf()
  let total = 0
  const visit = (p: number): void => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))
      if (m !== null) total += Number(m[1]) * 1024
    } catch {}
    for (const c of children.get(p) ?? []) visit(c)
  }
  visit(pid)
  return total
}

export async function startServer (name: string, command: string, args: string[], env: Record<string, string>, port: number, healthPath = '/health'): Promise<Server> {
  const started = performance.now()
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString() })
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr}`)
    try {
      const res = await fetch(url + healthPath)
      if (res.status === 200) break
    } catch {}
    if (performance.now() - started > 120_000) throw new Error(`${name} did not start: ${stderr}`)
    await new Promise(resolve => setTimeout(resolve, 5))
  }
  const startupSeconds = (performance.now() - started) / 1000
  return {
    name,
    url,
    child,
    startupSeconds,
    rssBytes: () => treeRss(child.pid!),
    stop: async () => {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await once(child, 'exit')
      clearTimeout(timer)
    }
  }
}
