/**
 * The Open Inference Protocol V2's tensors for a text classifier, typed and shared by every
 * transport: a request is one BYTES input of texts (shape [N] or [N, 1]) and the outputs it
 * names (MLServer's `predict` and `predict_proba`, `decision_function`, `confidence`, each
 * JSON or binary, with Triton's `classification` top-k); a response is typed output tensors.
 * REST (json-codec.ts) and gRPC (src/grpc/infer-messages.ts) only decode their wire format
 * into these types and encode the typed outputs back, so the two cannot drift.
 */
import { ServiceError } from '../../errors.js'
import type { Predicted } from '../../pool/classifier-pool.js'
import { pyLen } from '../../python/py-len.js'

/** A request the protocol refuses: 400 over REST, INVALID_ARGUMENT over gRPC (ERR_V2_INPUT). */
export class V2InputError extends ServiceError {
  constructor (message: string) {
    super('ERR_V2_INPUT', message)
    this.name = 'V2InputError'
  }
}

export type OutputName = 'predict' | 'predict_proba' | 'decision_function' | 'confidence'
export const OUTPUT_NAMES: readonly OutputName[] = ['predict', 'predict_proba', 'decision_function', 'confidence']

export interface RequestedOutput {
  readonly name: OutputName
  readonly binary: boolean
  /** Triton's classification extension: the top `classification` classes as "value:index:label". */
  readonly classification: number | undefined
}

export interface InferRequest {
  readonly id: string | undefined
  readonly texts: string[]
  /** The outputs asked for; all the model has when the request names none. */
  readonly outputs: readonly RequestedOutput[] | null
  /** Outputs not named individually come back binary (REST's `binary_data_output`; gRPC's raw contents). */
  readonly binaryOutput: boolean
}

export interface TextLimits {
  readonly maxBatchSize: number
  readonly maxTextLength: number
}

/** The one input as a transport decoded it: datatype and shape as sent, its texts read once the shape is known. */
export interface DecodedInput {
  readonly datatype: unknown
  readonly shape: unknown
  /** The texts the input holds; `count` is what its shape says. */
  readonly texts: (count: number) => string[]
}

/** An output a request names, as sent (checked by buildInferRequest). */
export interface OutputAsk {
  readonly name: unknown
  readonly binary: boolean
  readonly classification: unknown
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

export function fail (message: string): never {
  throw new V2InputError(message)
}

/** The texts of a binary BYTES tensor: each a 4-byte little-endian length, then its UTF-8 bytes. */
export function readBinaryTexts (bytes: Uint8Array, count: number): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: string[] = []
  let at = 0
  for (let i = 0; i < count; i++) {
    if (at + 4 > bytes.length) fail(`binary input holds ${i} elements, not the ${count} its shape says`)
    const n = view.getUint32(at, true)
    at += 4
    if (at + n > bytes.length) fail(`binary input element ${i} claims ${n} bytes past the end of the data`)
    try {
      out.push(UTF8.decode(bytes.subarray(at, at + n)))
    } catch {
      fail(`binary input element ${i} is not valid UTF-8`)
    }
    at += n
  }
  if (at !== bytes.length) fail(`binary input has ${bytes.length - at} bytes after its ${count} elements`)
  return out
}

/** Each element of a BYTES tensor: a 4-byte little-endian length, then the bytes. */
export function writeBinaryStrings (values: readonly string[]): Buffer {
  const parts = values.map(v => Buffer.from(v, 'utf8'))
  const out = Buffer.alloc(parts.reduce((n, p) => n + 4 + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.writeUInt32LE(p.length, at)
    p.copy(out, at + 4)
    at += 4 + p.length
  }
  return out
}

/** Texts given element by element must be as many as the shape says. */
export function checkCount (texts: readonly string[], count: number): string[] {
  if (texts.length !== count) fail(`inputs[0] holds ${texts.length} texts, not the ${count} its shape says`)
  return texts as string[]
}

function checkTexts (texts: readonly string[], limits: TextLimits): void {
  if (texts.length === 0) fail('the input holds no texts')
  if (texts.length > limits.maxBatchSize) fail(`the input holds ${texts.length} texts; this model takes at most ${limits.maxBatchSize} per request (max_batch_size)`)
  texts.forEach((t, i) => {
    if (t.length === 0) fail(`text ${i} is empty`)
    // Code points are counted only when UTF-16 units could be too many (docs/http-api.md, "Requests").
    if (t.length > limits.maxTextLength && pyLen(t) > limits.maxTextLength) fail(`text ${i} has more than ${limits.maxTextLength} characters`)
    if (!(t as unknown as { isWellFormed: () => boolean }).isWellFormed()) fail(`text ${i} holds a lone UTF-16 surrogate`)
  })
}

function checkOutputs (outputs: readonly OutputAsk[] | null): RequestedOutput[] | null {
  if (outputs === null) return null
  return outputs.map((o, i) => {
    if (typeof o.name !== 'string') fail(`outputs[${i}] must be {"name": str, "parameters"?: {...}}`)
    if (!(OUTPUT_NAMES as readonly string[]).includes(o.name)) fail(`unknown output '${o.name}': this model has ${OUTPUT_NAMES.join(', ')}`)
    const classification = o.classification
    if (classification !== undefined && (typeof classification !== 'number' || !Number.isInteger(classification) || classification < 1)) fail(`outputs[${i}].parameters.classification must be a positive integer`)
    return { name: o.name as OutputName, binary: o.binary, classification }
  })
}

/**
 * The typed request from what a transport decoded: the one input's datatype and shape checked,
 * its texts read and checked against the limits, then the outputs named read and checked (in
 * that order, so every transport reports the same first problem).
 * @throws V2InputError saying what is wrong with the request.
 */
export function buildInferRequest (request: { readonly id: unknown, readonly inputs: readonly DecodedInput[], readonly outputs: () => readonly OutputAsk[] | null, readonly binaryOutput: boolean }, limits: TextLimits): InferRequest {
  if (request.inputs.length !== 1) fail('the request must have exactly one input: the texts, as a BYTES tensor')
  const input = request.inputs[0]!
  if (input.datatype !== 'BYTES') fail(`inputs[0].datatype must be BYTES (texts), not ${JSON.stringify(input.datatype)}`)
  const shape = input.shape
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > 2 || !shape.every(d => Number.isInteger(d) && d >= 0) || (shape.length === 2 && shape[1] !== 1)) {
    fail(`inputs[0].shape must be [N] or [N, 1], not ${JSON.stringify(shape)}`)
  }
  const texts = input.texts((shape as number[]).reduce((a, b) => a * b, 1))
  checkTexts(texts, limits)
  if (request.id !== undefined && typeof request.id !== 'string') fail('id must be a string')
  return { id: request.id, texts, outputs: checkOutputs(request.outputs()), binaryOutput: request.binaryOutput }
}

export interface ModelView {
  readonly name: string
  readonly version: string
  readonly labels: readonly string[]
}

/** An output tensor of a response: strings (BYTES) or numbers (FP64), to be sent as JSON data or binary. */
export type OutputTensor = {
  readonly name: OutputName
  readonly shape: number[]
  readonly binary: boolean
} & ({ readonly datatype: 'BYTES', readonly data: readonly string[] } | { readonly datatype: 'FP64', readonly data: ArrayLike<number> })

/** Top-k "value:index:label" strings of each row, by value, as Triton's classification extension gives them. */
function classify (rows: Float64Array, width: number, n: number, k: number, labels: readonly string[]): string[] {
  const out: string[] = []
  const top = Math.min(k, width)
  for (let i = 0; i < n; i++) {
    const order = Array.from({ length: width }, (_, j) => j).sort((a, b) => rows[i * width + b]! - rows[i * width + a]! || a - b)
    // Two-class decision rows hold one value, the second class's score.
    for (const j of order.slice(0, top)) out.push(`${rows[i * width + j]}:${j}:${labels[width === 1 ? 1 : j] ?? j}`)
  }
  return out
}

/** Whether a request's outputs need score rows: all outputs (none named), the scores themselves, or a top-k of them. */
export function needsScores (request: InferRequest): boolean {
  return request.outputs === null || request.outputs.some(o => o.name === 'predict_proba' || o.name === 'decision_function' || o.classification !== undefined)
}

/**
 * The output tensors of a scored batch, as the request asks for them.
 * @throws V2InputError when an output asked for is one the model lacks.
 */
export function inferOutputs (request: InferRequest, scores: Predicted, model: ModelView): OutputTensor[] {
  const n = request.texts.length
  const available: RequestedOutput[] = OUTPUT_NAMES
    .filter(name => (name !== 'predict_proba' || scores.proba !== null) && (name !== 'decision_function' || scores.decision !== null))
    .map(name => ({ name, binary: request.binaryOutput, classification: undefined }))
  const asked = request.outputs ?? available
  return asked.map((o): OutputTensor => {
    // Named outputs say binary_data each; with none named, binary_data_output decides.
    const binary = request.outputs === null ? request.binaryOutput : o.binary
    const rows = o.name === 'decision_function' ? scores.decision : o.name === 'predict_proba' ? scores.proba : (scores.proba ?? scores.decision)
    const width = o.name === 'decision_function' || (o.name !== 'predict_proba' && scores.proba === null) ? scores.decisionWidth : scores.probaWidth
    if (o.name === 'predict_proba' && scores.proba === null) fail('this model has no predict_proba')
    if (o.name === 'decision_function' && scores.decision === null) fail('this model has no decision_function')
    if (o.classification !== undefined) {
      if (rows === null) fail(`output ${o.name} has no scores to classify by`)
      return { name: o.name, datatype: 'BYTES', shape: [n, Math.min(o.classification, width)], data: classify(rows, width, n, o.classification, model.labels), binary }
    }
    if (o.name === 'predict') return { name: o.name, datatype: 'BYTES', shape: [n], data: Array.from(scores.classIndex, k => model.labels[k]!), binary }
    if (o.name === 'confidence') return { name: o.name, datatype: 'FP64', shape: [n], data: scores.confidence, binary }
    return { name: o.name, datatype: 'FP64', shape: [n, width], data: rows!, binary }
  })
}

/** An FP64 tensor's bytes: little-endian doubles. */
export function fp64Bytes (values: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(values.length * 8)
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i]!, i * 8)
  return out
}

/** A tensor's data as the binary tensor extension sends it. */
export function tensorBytes (tensor: OutputTensor): Buffer {
  return tensor.datatype === 'BYTES' ? writeBinaryStrings(tensor.data) : fp64Bytes(tensor.data)
}
