/**
 * A test-only worker: the real worker plus hooks driven by the texts themselves, so
 * tests can make a task slow or kill its worker without anything of the sort in
 * production code. '__sleep_<ms>__' waits, '__crash__' ends the worker thread.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import * as real from '../../workers/classify.js'
import type { ClassifyResult, ClassifyTask } from '../../src/pool/messages.js'

export const status = real.status
export const lines = real.lines
export const explain = real.explain
export const score = real.score
export const drop = real.drop

export async function classify (task: ClassifyTask): Promise<ClassifyResult> {
  for (const text of task.texts) {
    if (text === '__crash__') process.exit(7)
    const sleepMs = /^__sleep_(\d+)__$/.exec(text)
    if (sleepMs !== null) await sleep(Number(sleepMs[1]))
  }
  return await real.classify(task)
}
