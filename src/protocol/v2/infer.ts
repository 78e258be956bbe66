/**
 * The Open Inference Protocol V2's tensors for a text classifier, shared by the REST routes
 * and gRPC so the two cannot drift: one BYTES input of texts (shape [N] or [N, 1], data flat or
 * nested, JSON strings or the binary tensor extension's 4-byte little-endian lengths), and the
 * outputs a request names (MLServer's `predict` and `predict_proba`, `decision_function`,
 * `confidence`), each as JSON data or binary, with Triton's `classification` top-k.
 */
import type { ScoreResult } from '../../pool/messages.js'
import { pyLen } from '../../python/py-len.js'

/** A request the protocol refuses (400 over REST, INVALID_ARGUMENT over gRPC). */
export class V2InputError extends Error {
  override readonly name = 'V2InputError'
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
  /** `parameters.binary_data_output`: outputs not named individually come back binary. */
  readonly binaryOutput: boolean
}

export interface TextLimits {
  readonly maxBatchSize: number
  readonly maxTextLength: number
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function fail (message: string): never {
  throw new V2InputError(message)
}

function isObject (v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** Flattens nested arrays of strings, row-major, as Triton walks a BYTES tensor's JSON. */
function flatten (data: unknown, out: string[], depth: number): void {
  if (depth > 4) fail('input data nests deeper than its shape')
  if (typeof data === 'string') { out.push(data); return }
  if (!Array.isArray(data)) fail('BYTES input data must be strings (JSON), or binary')
  for (const item of data) flatten(item, out, depth + 1)
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

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

function checkTexts (texts: readonly string[], limits: TextLimits): void {
  if (texts.length === 0) fail('the input holds no texts')
  if (texts.length > limits.maxBatchSize) fail(`the input holds ${texts.length} texts; this model takes at most ${limits.maxBatchSize} per request (max_batch_size)`)
  texts.forEach((t, i) => {
    if (t.length === 0) fail(`text ${i} is empty`)
    if (pyLen(t) > limits.maxTextLength) fail(`text ${i} has more than ${limits.maxTextLength} characters`)
    if (LONE_SURROGATE.test(t)) fail(`text ${i} holds a lone UTF-16 surrogate`)
  })
}

function parseOutputs (outputs: unknown): RequestedOutput[] | null {
  if (outputs === undefined) return null
  if (!Array.isArray(outputs)) fail('outputs must be a list')
  return outputs.map((o, i) => {
    if (!isObject(o) || typeof o.name !== 'string') fail(`outputs[${i}] must be {"name": str, "parameters"?: {...}}`)
    if (!(OUTPUT_NAMES as readonly string[]).includes(o.name)) fail(`unknown output '${o.name}': this model has ${OUTPUT_NAMES.join(', ')}`)
    const parameters = isObject(o.parameters) ? o.parameters : {}
    const classification = parameters.classification
    if (classification !== undefined && (typeof classification !== 'number' || !Number.isInteger(classification) || classification < 1)) fail(`outputs[${i}].parameters.classification must be a positive integer`)
    return { name: o.name as OutputName, binary: parameters.binary_data === true, classification }
  })
}

/**
 * Parses an inference request: `json` is the request's JSON (the whole body, or the header of
 * a binary one), `binary` what follows it.
 * @throws V2InputError saying what is wrong with the request.
 */
export function parseInferRequest (json: unknown, binary: Uint8Array, limits: TextLimits): InferRequest {
  if (!isObject(json)) fail('the request must be a JSON object')
  const { inputs, outputs, parameters, id } = json
  if (!Array.isArray(inputs) || inputs.length !== 1) fail('the request must have exactly one input: the texts, as a BYTES tensor')
  const input = inputs[0]
  if (!isObject(input)) fail('inputs[0] must be an object')
  if (input.datatype !== 'BYTES') fail(`inputs[0].datatype must be BYTES (texts), not ${JSON.stringify(input.datatype)}`)
  const shape = input.shape
  if (!Array.isArray(shape) || shape.length < 1 || shape.length > 2 || !shape.every(d => Number.isInteger(d) && d >= 0) || (shape.length === 2 && shape[1] !== 1)) {
    fail(`inputs[0].shape must be [N] or [N, 1], not ${JSON.stringify(shape)}`)
  }
  const count = (shape as number[]).reduce((a, b) => a * b, 1)
  const inputParameters = isObject(input.parameters) ? input.parameters : {}
  let texts: string[]
  if (inputParameters.binary_data_size !== undefined) {
    const size = inputParameters.binary_data_size
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size !== binary.length) fail(`inputs[0].parameters.binary_data_size is ${JSON.stringify(size)}, but ${binary.length} bytes follow the JSON`)
    texts = readBinaryTexts(binary, count)
  } else {
    if (binary.length > 0) fail('bytes follow the JSON, but no input says binary_data_size')
    texts = []
    flatten(input.data, texts, 0)
    if (texts.length !== count) fail(`inputs[0] holds ${texts.length} texts, not the ${count} its shape says`)
  }
  checkTexts(texts, limits)
  if (id !== undefined && typeof id !== 'string') fail('id must be a string')
  const params = isObject(parameters) ? parameters : {}
  return { id, texts, outputs: parseOutputs(outputs), binaryOutput: params.binary_data_output === true }
}

export interface ModelView {
  readonly name: string
  readonly version: string
  readonly labels: readonly string[]
}

interface EncodedOutput {
  readonly json: Record<string, unknown>
  readonly binary: Buffer | undefined
}

function fp64 (values: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(values.length * 8)
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i]!, i * 8)
  return out
}

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

/** The outputs of a scored batch, each in JSON or binary as asked. */
export function encodeOutputs (request: InferRequest, scores: ScoreResult, model: ModelView): EncodedOutput[] {
  const n = request.texts.length
  const available: RequestedOutput[] = OUTPUT_NAMES
    .filter(name => (name !== 'predict_proba' || scores.proba !== null) && (name !== 'decision_function' || scores.decision !== null))
    .map(name => ({ name, binary: request.binaryOutput, classification: undefined }))
  const asked = request.outputs ?? available
  return asked.map(o => {
    // Named outputs say binary_data each; with none named, binary_data_output decides.
    const toBinary = request.outputs === null ? request.binaryOutput : o.binary
    let datatype: string
    let shape: number[]
    let strings: string[] | undefined
    let numbers: ArrayLike<number> | undefined
    const rows = o.name === 'decision_function' ? scores.decision : o.name === 'predict_proba' ? scores.proba : (scores.proba ?? scores.decision)
    const width = o.name === 'decision_function' || (o.name !== 'predict_proba' && scores.proba === null) ? scores.decisionWidth : scores.probaWidth
    if (o.name === 'predict_proba' && scores.proba === null) fail('this model has no predict_proba')
    if (o.name === 'decision_function' && scores.decision === null) fail('this model has no decision_function')
    if (o.classification !== undefined) {
      if (rows === null) fail(`output ${o.name} has no scores to classify by`)
      strings = classify(rows, width, n, o.classification, model.labels)
      datatype = 'BYTES'
      shape = [n, Math.min(o.classification, width)]
    } else if (o.name === 'predict') {
      strings = Array.from(scores.classIndex, k => model.labels[k]!)
      datatype = 'BYTES'
      shape = [n]
    } else if (o.name === 'confidence') {
      numbers = scores.confidence
      datatype = 'FP64'
      shape = [n]
    } else {
      numbers = rows!
      datatype = 'FP64'
      shape = [n, width]
    }
    const json: Record<string, unknown> = { name: o.name, datatype, shape }
    if (toBinary) {
      const bytes = strings !== undefined ? writeBinaryStrings(strings) : fp64(numbers!)
      json.parameters = { binary_data_size: bytes.length }
      return { json, binary: bytes }
    }
    json.data = strings ?? Array.from(numbers!)
    return { json, binary: undefined }
  })
}

/** The response body: JSON alone, or (any output binary) the JSON header then the binary outputs in order. */
export function inferResponse (request: InferRequest, outputs: readonly EncodedOutput[], model: ModelView): { body: Buffer, headerLength: number | undefined } {
  const header = Buffer.from(JSON.stringify({ model_name: model.name, model_version: model.version, ...(request.id === undefined ? {} : { id: request.id }), outputs: outputs.map(o => o.json) }))
  const binary = outputs.filter(o => o.binary !== undefined).map(o => o.binary!)
  if (binary.length === 0) return { body: header, headerLength: undefined }
  return { body: Buffer.concat([header, ...binary]), headerLength: header.length }
}
