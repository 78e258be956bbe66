/**
 * A test-only worker: the real worker plus hooks driven by the texts themselves, so
 * tests can make a task slow or kill its worker without anything of the sort in
 * production code. '__sleep_<ms>__' waits, '__crash__' ends the worker thread.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import * as real from '../../workers/classify.js'
import type { PredictResult, PredictTask } from '../../src/pool/messages.js'

export const status = real.status
export const lines = real.lines
export const explain = real.explain

async function hooks (texts: readonly string[]): Promise<void> {
  for (const text of texts) {
    if (text === '__crash__') process.exit(7)
    const sleepMs = /^__sleep_(\d+)__$/.exec(text)
    if (sleepMs !== null) await sleep(Number(sleepMs[1]))
  }
}

export async function predict (task: PredictTask): Promise<PredictResult> {
  await hooks(task.texts)
  return await real.predict(task)
}
