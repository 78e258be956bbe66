/** The handover bench's worker: reads the task's texts in the form they came in and answers five columns, as the classify worker does, with no model. */
const UTF8 = new TextDecoder()

export interface HandoverTask {
  readonly texts?: readonly string[]
  /** The texts as UTF-8, one after another, and where each ends. */
  readonly bytes?: Uint8Array
  readonly ends?: Uint32Array
}

export function handover (task: HandoverTask): { columns: Float64Array } {
  const texts = task.texts ?? Array.from(task.ends!, (end, i) => UTF8.decode(task.bytes!.subarray(i === 0 ? 0 : task.ends![i - 1], end)))
  const columns = new Float64Array(5 * texts.length)
  for (let i = 0; i < texts.length; i++) columns[i] = texts[i]!.length
  return { columns }
}
