/**
 * A test-only worker: the real worker plus hooks driven by the texts themselves, so
 * tests can make a task slow or kill its worker without anything of the sort in
 * production code. '__sleep_<ms>__' waits, '__crash__' ends the worker thread.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import * as real from '../../workers/classify.js'
import type { ClassifyResult, ClassifyTask, ScoreResult } from '../../src/pool/messages.js'

export const status = real.status
export const lines = real.lines
export const explain = real.explain
export const drop = real.drop

async function hooks (texts: readonly string[]): Promise<void> {
  for (const text of texts) {
    if (text === '__crash__') process.exit(7)
    const sleepMs = /^__sleep_(\d+)__$/.exec(text)
    if (sleepMs !== null) await sleep(Number(sleepMs[1]))
  }
}

export async function classify (task: ClassifyTask): Promise<ClassifyResult> {
  await hooks(task.texts)
  return await real.classify(task)
}

/** V2's scores (REST and gRPC) take the same hooks. */
export async function score (task: ClassifyTask): Promise<ScoreResult> {
  await hooks(task.texts)
  return await real.score(task)
}
