/** The worker of noop-express-worker.ts: a label per text, without classifying. */
export default function label (texts: readonly string[]): string[] {
  return texts.map(() => 'positive')
}
