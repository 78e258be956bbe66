/**
 * `node dist/bench/pool/handover.bench.js`: what handing a chunk of texts to a Piscina worker
 * and its five columns back costs, apart from any model: CPU of every thread of this process
 * per task, texts as an array of strings (structured clone, what the pool sends) against the
 * same texts as UTF-8 in one transferred buffer with their end offsets (encoded here, decoded
 * in the worker), for chunks of 10 and 50 texts of 100-300 characters, 2 workers, 16 tasks in
 * flight. Medians of 5 interleaved rounds.
 */
import { Piscina } from 'piscina'
import { loadTexts } from '../lib/corpus.js'
import { median } from '../lib/paired-turns.js'
import { markdown } from '../lib/report.js'
import type { HandoverTask } from './handover-worker.js'

const TASKS = 20_000
const IN_FLIGHT = 16
const ENCODER = new TextEncoder()

function asBytes (texts: readonly string[]): { task: HandoverTask, transferList: ArrayBuffer[] } {
  const bytes = new Uint8Array(texts.reduce((n, t) => n + 3 * t.length, 0))
  const ends = new Uint32Array(texts.length)
  let at = 0
  texts.forEach((t, i) => {
    at += ENCODER.encodeInto(t, bytes.subarray(at)).written
    ends[i] = at
  })
  return { task: { bytes, ends }, transferList: [bytes.buffer] }
}

async function cpuPerTask (pool: Piscina, form: 'strings' | 'bytes', chunk: readonly string[]): Promise<number> {
  const before = process.cpuUsage()
  let sent = 0
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (sent++ < TASKS) {
      if (form === 'strings') await pool.run({ texts: chunk } satisfies HandoverTask, { name: 'handover' })
      else {
        const { task, transferList } = asBytes(chunk)
        await pool.run(task, { name: 'handover', transferList })
      }
    }
  }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / TASKS
}

const texts = loadTexts()
const pool = new Piscina({ filename: new URL('./handover-worker.js', import.meta.url).href, minThreads: 2, maxThreads: 2, idleTimeout: Infinity })
const rows: string[][] = []
for (const size of [10, 50]) {
  const chunk = texts.slice(0, size)
  const us: Record<'strings' | 'bytes', number[]> = { strings: [], bytes: [] }
  await cpuPerTask(pool, 'strings', chunk)
  await cpuPerTask(pool, 'bytes', chunk)
  for (let round = 0; round < 5; round++) {
    for (const form of round % 2 === 0 ? ['strings', 'bytes'] as const : ['bytes', 'strings'] as const) us[form].push(await cpuPerTask(pool, form, chunk))
  }
  rows.push([String(size), median(us.strings).toFixed(1), median(us.bytes).toFixed(1), (median(us.bytes) / median(us.strings)).toFixed(2) + 'x', us.bytes.map((b, r) => (b / us.strings[r]!).toFixed(2)).join(' ')])
}
await pool.destroy()
console.log(markdown(['texts a task', 'CPU us a task, strings', 'UTF-8 bytes, transferred', 'bytes / strings', 'each round'], rows))
