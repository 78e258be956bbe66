/**
 * ModelInferRequest in, ModelInferResponse out: the message decoded into the typed V2 request
 * (src/protocol/v2/infer.ts) that REST's JSON decodes into too, its texts from
 * `contents.bytes_contents` or `raw_input_contents` (the binary tensor's 4-byte lengths); the
 * typed outputs sent as Triton's gRPC server sends them, every one in `raw_output_contents`
 * (tritonclient.grpc reads FP64 only from there), or in `contents` when the request sets
 * `parameters.binary_data_output` to false.
 */
import { buildInferRequest, checkCount, fail, readBinaryTexts, tensorBytes, type InferRequest, type ModelView, type OutputTensor, type TextLimits } from '../protocol/v2/infer.js'

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
 * Reads a ModelInferRequest into the typed request; every output is to be binary (raw)
 * unless `parameters.binary_data_output` is false.
 * @throws V2InputError for what REST answers 400.
 */
export function readInferRequest (message: ModelInferRequest, limits: TextLimits): InferRequest {
  const raw = message.raw_input_contents
  if (raw.length > 0 && raw.length !== message.inputs.length) fail(`raw_input_contents holds ${raw.length} tensors for ${message.inputs.length} inputs; it needs one per input, in order`)
  const inputs = message.inputs.map((input, i) => {
    const contents = input.contents?.bytes_contents ?? []
    if (raw.length > 0 && contents.length > 0) fail(`inputs[${i}] has contents, but raw_input_contents is given: the protocol allows one or the other`)
    const texts = raw.length > 0
      ? (count: number) => readBinaryTexts(raw[i]!, count)
      : (count: number) => checkCount(contents.map((bytes, k) => decodeText(bytes, `inputs[${i}].contents.bytes_contents[${k}]`)), count)
    return { datatype: input.datatype, shape: input.shape, texts }
  })
  const binaryOutput = valueOf(message.parameters.binary_data_output)
  if (binaryOutput !== undefined && typeof binaryOutput !== 'boolean') fail('parameters.binary_data_output must be a bool_param')
  const toRaw = binaryOutput !== false
  const outputs = message.outputs.map(o => ({ name: o.name, binary: toRaw, classification: valueOf(o.parameters.classification) }))
  return buildInferRequest({ id: message.id === '' ? undefined : message.id, inputs, outputs: () => outputs.length === 0 ? null : outputs, binaryOutput: toRaw }, limits)
}

/** The response to `request`: its typed outputs as contents, or as raw bytes when binary. */
export function inferResponseMessage (request: InferRequest, tensors: readonly OutputTensor[], model: ModelView): ModelInferResponse {
  const raw: Buffer[] = []
  const outputs = tensors.map(o => {
    const tensor = { name: o.name, datatype: o.datatype, shape: o.shape, parameters: {} }
    if (o.binary) {
      raw.push(tensorBytes(o))
      return tensor
    }
    return { ...tensor, contents: o.datatype === 'BYTES' ? { bytes_contents: o.data.map(s => Buffer.from(s, 'utf8')) } : { fp64_contents: Array.from(o.data) } }
  })
  return { model_name: model.name, model_version: model.version, id: request.id ?? '', parameters: {}, outputs, raw_output_contents: raw }
}
