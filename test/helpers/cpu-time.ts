/**
 * CPU time, for tests that bound how long work may take. A wall-clock bound fails on a machine
 * whose cores other work shares (the process waits for a core, and the clock runs on); the CPU
 * this process spends does not grow with that wait, so a bound on it still catches what such a
 * test is for: work that grows out of proportion to its input, or never ends. How fast the work
 * is belongs in bench/, not in a test.
 */

/** Milliseconds of CPU (user and system, every thread of this process) spent while `work` runs. */
export async function cpuMs<T> (work: () => Promise<T> | T): Promise<{ result: T, ms: number }> {
  const before = process.cpuUsage()
  const result = await work()
  const used = process.cpuUsage(before)
  return { result, ms: (used.user + used.system) / 1000 }
}
