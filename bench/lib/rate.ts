/** Texts per second of `run` over `texts`, repeated for `seconds` after a warm-up of 200. */
export function rate (texts: readonly string[], seconds: number, run: (text: string) => void): number {
  for (const t of texts.slice(0, 200)) run(t)
  let done = 0
  const started = performance.now()
  do {
    for (const t of texts) run(t)
    done += texts.length
  } while (performance.now() - started < seconds * 1000)
  return done / ((performance.now() - started) / 1000)
}
