/**
 * The container image, built and run for real (docs/operations.md, "Building the image"): Debian's
 * podman as root with the runc runtime and the cgroupfs manager, the Dockerfile built on the base
 * scripts/container-base.sh assembles, and containers whose ports are published on 127.0.0.1 only.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ROOT } from './paths.js'

/** Podman's settings on this kind of machine: its default runtime (crun) fails on its cgroups. */
const PODMAN = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs']
/** A container here may not raise its rlimits above the host's: these are granted. */
const LIMITS = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096']
/** What a command's output is cut to in an error message. */
const TAIL = 4000

export interface Ran { code: number, stdout: string, stderr: string }

/** One podman command; fails with its output's tail unless `allowFailure`. */
export async function podman (args: readonly string[], options: { allowFailure?: boolean, input?: string } = {}): Promise<Ran> {
  return await new Promise((resolve, reject) => {
    const child = spawn('podman', [...PODMAN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    // Bounded: a build prints a lot, and only its end says what failed.
    child.stdout.on('data', (d: Buffer) => { stdout = (stdout + d.toString()).slice(-1_000_000) })
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-1_000_000) })
    child.on('error', reject)
    child.on('close', code => {
      const ran = { code: code ?? -1, stdout, stderr }
      if (ran.code !== 0 && options.allowFailure !== true) reject(new Error(`podman ${args.slice(0, 3).join(' ')} exited ${ran.code}: ${(stderr + stdout).slice(-TAIL)}`))
      else resolve(ran)
    })
    child.stdin.end(options.input ?? '')
  })
}

/** Why podman cannot run a container here, or undefined when it can. */
export function podmanMissing (): string | undefined {
  const found = spawnSync('podman', [...PODMAN, 'info', '--format', '{{.Host.OCIRuntime.Name}}'], { encoding: 'utf8' })
  if (found.error !== undefined) return 'no podman: apt-get install -y podman runc debootstrap (npm test does it: scripts/test-deps.sh)'
  if (found.status !== 0) return `podman cannot run here: ${found.stderr.trim().slice(-TAIL)}`
  return undefined
}

/** The assembled stand-in for node:20-bookworm-slim, made once per machine and kept (scripts/container-base.sh). */
export async function baseImage (): Promise<string> {
  return await new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(ROOT, 'scripts', 'container-base.sh')], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString() })
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-TAIL) })
    child.on('error', reject)
    child.on('close', code => {
      const image = stdout.trim().split('\n').at(-1) ?? ''
      if (code === 0 && image !== '') resolve(image)
      else reject(new Error(`scripts/container-base.sh exited ${code}: ${stderr}`))
    })
  })
}

/**
 * `podman build` of `context`'s Dockerfile as `tag`, in Docker's format (the OCI format has no
 * HEALTHCHECK). npm in its RUN steps gets this machine's CA bundle (NODE_EXTRA_CA_CERTS), if
 * any, through the Dockerfile's secret mounts: for the build only, in no layer.
 */
export async function buildImage (context: string, tag: string, buildArgs: Record<string, string> = {}): Promise<void> {
  const secrets = mkdtempSync(path.join(tmpdir(), 'tfidf-serve-build-'))
  try {
    const ca = process.env.NODE_EXTRA_CA_CERTS
    const npmrc = path.join(secrets, 'npmrc')
    writeFileSync(npmrc, ca === undefined || ca === '' ? '' : 'cafile=/run/secrets/npm-ca\n')
    const args = ['build', '--format', 'docker', ...LIMITS, '--tag', tag,
      '--secret', `id=npmrc,src=${npmrc}`, '--secret', `id=npm-ca,src=${ca === undefined || ca === '' ? npmrc : ca}`,
      ...Object.entries(buildArgs).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]), context]
    await podman(args)
  } finally {
    rmSync(secrets, { recursive: true, force: true })
  }
}

/** The image's size in bytes, as podman counts it (every layer, uncompressed). */
export async function imageBytes (image: string): Promise<number> {
  return Number((await podman(['image', 'inspect', '--format', '{{.Size}}', image])).stdout.trim())
}

export interface Container {
  readonly id: string
  /** The port of 127.0.0.1 that the container's `port` is published on. */
  hostPort: (port: number) => number
  logs: () => Promise<string>
  /** `podman exec` of a command in the running container. */
  exec: (command: readonly string[]) => Promise<Ran>
  remove: () => Promise<void>
}

/**
 * A container of `image` run detached, `ports` published on ephemeral ports of 127.0.0.1;
 * `options` are podman run's own (security, mounts, env), `command` replaces the image's CMD.
 */
export async function runContainer (image: string, ports: readonly number[], options: readonly string[], command: readonly string[] = []): Promise<Container> {
  const id = (await podman(['run', '--detach', ...LIMITS, ...ports.flatMap(p => ['--publish', `127.0.0.1::${p}`]), ...options, image, ...command])).stdout.trim()
  const published = new Map<number, number>()
  for (const port of ports) {
    const line = (await podman(['port', id, `${port}/tcp`])).stdout.trim()
    published.set(port, Number(line.slice(line.lastIndexOf(':') + 1)))
  }
  return {
    id,
    hostPort: port => { const p = published.get(port); if (p === undefined) throw new Error(`port ${port} not published`); return p },
    logs: async () => { const r = await podman(['logs', id], { allowFailure: true }); return r.stdout + r.stderr },
    exec: async command => await podman(['exec', id, ...command], { allowFailure: true }),
    remove: async () => { await podman(['rm', '--force', '--time', '0', id], { allowFailure: true }) }
  }
}

/** A one-off container of `image`, as root to see every file: `command` run by `entrypoint`, its output once it exits. */
export async function runOnce (image: string, entrypoint: string, command: readonly string[]): Promise<Ran> {
  return await podman(['run', '--rm', ...LIMITS, '--network', 'none', '--user', '0', '--entrypoint', entrypoint, image, ...command])
}

/** Milliseconds until `url` answers 200, polled every 25 ms; fails with the container's logs after `ms`. */
export async function untilAnswers (url: string, container: Container, ms = 60000): Promise<number> {
  const started = performance.now()
  let checked = started
  while (performance.now() - started < ms) {
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - started
    } catch {}
    // A container that exited will never answer: asked once a second (a podman call costs ~0.1 s).
    if (performance.now() - checked > 1000) {
      checked = performance.now()
      if ((await podman(['inspect', '--format', '{{.State.Status}}', container.id], { allowFailure: true })).stdout.trim() === 'exited') break
    }
    await new Promise(resolve => setTimeout(resolve, 25))
  }
  throw new Error(`${url} did not answer 200: ${(await container.logs()).slice(-TAIL)}`)
}
