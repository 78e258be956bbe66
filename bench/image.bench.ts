/**
 * `npm run bench:image`: the container image's size, and its start-up to ready, built from the
 * Dockerfile on the base scripts/container-base.sh assembles (docs/operations.md, "The image's
 * figures"). Start-up is timed from `podman run` to the first 200 of /health on 127.0.0.1, as a
 * startupProbe sees it (container creation included), and from the service's own clock (its
 * ready line's `startup_ms`); each of ROUNDS fresh containers, read-only with no
 * capabilities, as the image test runs them. Writes bench/results/image-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { baseImage, buildImage, imageBytes, podman, runContainer, untilAnswers } from '../test/helpers/container.js'
import { ROOT } from '../test/helpers/paths.js'

const IMAGE = 'localhost/tfidf-serve:bench'
const ROUNDS = Number(process.env.ROUNDS ?? 7)
const MB = 1e6

const median = (xs: readonly number[]): number => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]! }

const base = await baseImage()
const built = performance.now()
await buildImage(ROOT, IMAGE, { NODE_IMAGE: base })
const buildSeconds = (performance.now() - built) / 1000
const [imageSize, baseSize] = [await imageBytes(IMAGE), await imageBytes(base)]

const toReady: number[] = []
const ownStart: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now()
  const c = await runContainer(IMAGE, [8000], ['--read-only', '--read-only-tmpfs=false', '--cap-drop=all', '--security-opt', 'no-new-privileges'])
  try {
    await untilAnswers(`http://127.0.0.1:${c.hostPort(8000)}/health`, c)
    toReady.push((performance.now() - started) / 1000)
    const ready = (await c.logs()).split('\n').find(l => l.includes('"msg":"ready"'))
    const ms = ready === undefined ? undefined : (JSON.parse(ready) as { startup_ms?: number }).startup_ms
    if (typeof ms === 'number') ownStart.push(ms / 1000)
  } finally {
    await c.remove()
  }
}
await podman(['rmi', IMAGE], { allowFailure: true })

const result = {
  when: new Date().toISOString(),
  base,
  build_seconds: Number(buildSeconds.toFixed(1)),
  image_mb: Number((imageSize / MB).toFixed(1)),
  base_mb: Number((baseSize / MB).toFixed(1)),
  added_mb: Number(((imageSize - baseSize) / MB).toFixed(1)),
  rounds: ROUNDS,
  run_to_ready_s: { median: Number(median(toReady).toFixed(3)), min: Number(Math.min(...toReady).toFixed(3)), max: Number(Math.max(...toReady).toFixed(3)) },
  service_startup_s: ownStart.length === 0 ? null : { median: median(ownStart), min: Math.min(...ownStart), max: Math.max(...ownStart) }
}
console.log('| image | MB | podman run to /health 200, s (median, min-max) | the service\'s own start-up, s |')
console.log('|---|---|---|---|')
console.log(`| tfidf-serve (default model inside) | ${result.image_mb} (base ${result.base_mb} + ${result.added_mb}) | ${result.run_to_ready_s.median} (${result.run_to_ready_s.min}-${result.run_to_ready_s.max}) | ${result.service_startup_s === null ? 'n/a' : `${result.service_startup_s.median} (${result.service_startup_s.min}-${result.service_startup_s.max})`} |`)
const dir = path.join(ROOT, 'bench', 'results')
mkdirSync(dir, { recursive: true })
const file = path.join(dir, `image-${result.when.replace(/[:.]/g, '-')}.json`)
writeFileSync(file, JSON.stringify(result, null, 2) + '\n')
console.log(`written: ${path.relative(ROOT, file)}`)
