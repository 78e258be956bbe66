/**
 * A full collection soon after a model is dropped. Its arrays live in SharedArrayBuffers that
 * go back to the system only once every thread has collected its views of them, and an idle
 * thread may not collect for a long time: measured, six reloads of a 200,000-feature model
 * grew RSS from 149 to 256 MB without this. Workers cannot take --expose-gc in execArgv, so
 * the flag is set at run time and `gc` fetched from a fresh context.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let gc: (() => void) | undefined

function collect (): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('gc') as () => void
  }
  gc()
}

/**
 * Collects twice now: the first pass frees the objects that held a dropped model's views, the
 * second the views themselves. Run inside a task: an idle Piscina worker waits in
 * Atomics.wait, so neither its messages nor its timers run until a task wakes it.
 */
export function collectNow (): void {
  collect()
  collect()
}
