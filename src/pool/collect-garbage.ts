/**
 * A full garbage collection now. Decoding a model leaves several times its final size in
 * garbage (the pickle's memo, dicts, the arrays before they move to shared memory);
 * collecting right after returns those pages before the first request instead of whenever
 * V8 gets round to it. A process started without --expose-gc gets the flag at run time and
 * `gc` from a fresh context.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

export function collectGarbage (): void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as (() => void) | undefined
  gc?.()
}
