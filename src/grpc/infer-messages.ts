/**
 * ModelInferRequest in, ModelInferResponse out, through the same parsing and encoding as REST
 * (src/protocol/v2/infer.ts), so the two answer alike: the request is turned into the JSON form
 * REST reads (its texts from `contents.bytes_contents`, or `raw_input_contents` as REST's binary
 * part), and the outputs come back as Triton's gRPC server sends them, every one in
 * `raw_output_contents` (tritonclient.grpc reads FP64 only from there), or in `contents` when
 * the request sets `parameters.binary_data_output` to false.
 */
import { encodeOutputs, parseInferRequest, V2InputError, type InferRequest, type ModelView, type TextLimits } from '../protocol/v2/infer.js'
import type { ScoreResult } from '../pool/messages.js'

/** An InferParameter as proto-loader gives it: the oneof's member named by `parameter_choice`. */
export interface InferParameter {
  readonly parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param'
  readonly bool_param?: boolean
  readonly int64_param?: number
  readonly string_param?: string
  readonly double_param?: number
  readonly uint64_param?: number
}

export interface InferTensorContents {
  readonly bytes_contents?: Uint8Array[]
  readonly fp64_contents?: number[]
}

export interface ModelInferRequest {
  readonly model_name: string
  readonly model_version: string
  readonly id: string
  readonly parameters: Readonly<Record<string, InferParameter>>
  readonly inputs: ReadonlyArray<{ name: string, datatype: string, shape: number[], parameters: Record<string, InferParameter>, contents: InferTensorContents | null }>
  readonly outputs: ReadonlyArray<{ name: string, parameters: Record<string, InferParameter> }>
  readonly raw_input_contents: Uint8Array[]
}

export interface ModelInferResponse {
  readonly model_name: string
  readonly model_version: string
  readonly id: string
  readonly parameters: Record<string, InferParameter>
  readonly outputs: Array<{ name: string, datatype: string, shape: number[], parameters: Record<string, InferParameter>, contents?: InferTensorContents }>
  readonly raw_output_contents: Buffer[]
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })
const EMPTY = new Uint8Array(0)

function fail (message: string): never {
  throw new V2InputError(message)
}

/** The value the parameter holds, or undefined when none is set. */
function valueOf (p: InferParameter | undefined): unknown {
  return p?.parameter_choice === undefined ? undefined : p[p.parameter_choice]
}

function decodeText (bytes: Uint8Array, where: string): string {
  try {
    return UTF8.decode(bytes)
  } catch {
    fail(`${where} is not valid UTF-8`)
  }
}

/**
 * Reads a ModelInferRequest as REST reads its JSON body; every output is to be binary (raw)
 * unless `parameters.binary_data_output` is false.
 * @throws V2InputError for what REST answers 400.
 */
export function readInferRequest (message: ModelInferRequest, limits: TextLimits): InferRequest {
  const raw = message.raw_input_contents
  if (raw.length > 0 && raw.length !== message.inputs.length) fail(`raw_input_contents holds ${raw.length} tensors for ${message.inputs.length} inputs; it needs one per input, in order`)
  const inputs = message.inputs.map((input, i) => {
    const tensor = { name: input.name, datatype: input.datatype, shape: input.shape }
    const contents = input.contents?.bytes_contents ?? []
    if (raw.length > 0) {
      if (contents.length > 0) fail(`inputs[${i}] has contents, but raw_input_contents is given: the protocol allows one or the other`)
      // REST's binary tensor: its size is what it is, its framing the same 4-byte lengths.
      return { ...tensor, parameters: { binary_data_size: raw[i]!.length } }
    }
    return { ...tensor, data: contents.map((bytes, k) => decodeText(bytes, `inputs[${i}].contents.bytes_contents[${k}]`)) }
  })
  const outputs = message.outputs.map(o => {
    const classification = valueOf(o.parameters.classification)
    return { name: o.name, parameters: classification === undefined ? {} : { classification } }
  })
  const binaryOutput = valueOf(message.parameters.binary_data_output)
  if (binaryOutput !== undefined && typeof binaryOutput !== 'boolean') fail('parameters.binary_data_output must be a bool_param')
  const json = { id: message.id === '' ? undefined : message.id, inputs, ...(outputs.length === 0 ? {} : { outputs }) }
  const request = parseInferRequest(json, raw[0] ?? EMPTY, limits)
  const toRaw = binaryOutput !== false
  return { ...request, binaryOutput: toRaw, outputs: request.outputs?.map(o => ({ ...o, binary: toRaw })) ?? null }
}

/**
 * The response to `request`, its outputs encoded as REST encodes them.
 * @throws V2InputError when an output asked for is one the model lacks.
 */
export function inferResponseMessage (request: InferRequest, scores: ScoreResult, model: ModelView): ModelInferResponse {
  const encoded = encodeOutputs(request, scores, model)
  const outputs = encoded.map(({ json, binary }) => {
    const tensor = { name: json.name as string, datatype: json.datatype as string, shape: json.shape as number[], parameters: {} }
    if (binary !== undefined) return tensor
    const data = json.data as Array<string | number>
    return { ...tensor, contents: json.datatype === 'BYTES' ? { bytes_contents: data.map(s => Buffer.from(s as string, 'utf8')) } : { fp64_contents: data as number[] } }
  })
  const raw = encoded.flatMap(o => o.binary === undefined ? [] : [o.binary])
  return { model_name: model.name, model_version: model.version, id: request.id ?? '', parameters: {}, outputs, raw_output_contents: raw }
}
