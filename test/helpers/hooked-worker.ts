/**
 * A test-only worker: the real worker plus hooks driven by the texts themselves, so
 * tests can make a task slow or kill its worker without anything of the sort in
 * production code. '__sleep_<ms>__' waits (the worker's event loop free), '__busy_<ms>__'
 * keeps the thread busy (no message reaches it meanwhile), '__crash__' ends the worker thread.
 * The hooks run chunk by chunk, each chunk's start marked as the real worker marks it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import * as real from '../../workers/classify.js'
import { CHUNK_CLOCK, epochNow, type PredictResult, type PredictTask } from '../../src/pool/messages.js'

export const status = real.status
export const lines = real.lines
export const explain = real.explain

async function hooks (texts: readonly string[]): Promise<void> {
  for (const text of texts) {
    if (text === '__crash__') process.exit(7)
    const sleepMs = /^__sleep_(\d+)__$/.exec(text)
    if (sleepMs !== null) await sleep(Number(sleepMs[1]))
    const busyMs = /^__busy_(\d+)__$/.exec(text)
    if (busyMs !== null) for (const until = performance.now() + Number(busyMs[1]); performance.now() < until;);
  }
}

export async function predict (task: PredictTask): Promise<PredictResult> {
  const size = task.chunkSize ?? task.texts.length
  for (let at = 0; at < task.texts.length; at += size) {
    if (task.chunkClock !== undefined) task.chunkClock[CHUNK_CLOCK.startedAt] = epochNow()
    await hooks(task.texts.slice(at, at + size))
  }
  return await real.predict(task)
}
