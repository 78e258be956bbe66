/**
 * V2 over REST: an inference request's JSON (the whole body, or the header of a binary one)
 * and the bytes after it, decoded into the typed request (infer.ts); the typed outputs encoded
 * as the JSON body, or the JSON header followed by the binary outputs.
 */
import { buildInferRequest, checkCount, fail, readBinaryTexts, tensorBytes, type InferRequest, type ModelView, type OutputAsk, type OutputTensor, type TextLimits } from './infer.js'

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

function outputAsks (outputs: unknown): OutputAsk[] | null {
  if (outputs === undefined) return null
  if (!Array.isArray(outputs)) fail('outputs must be a list')
  return outputs.map((o, i) => {
    if (!isObject(o)) fail(`outputs[${i}] must be {"name": str, "parameters"?: {...}}`)
    const parameters = isObject(o.parameters) ? o.parameters : {}
    return { name: o.name, binary: parameters.binary_data === true, classification: parameters.classification }
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
  const inputParameters = isObject(input.parameters) ? input.parameters : {}
  const texts = (count: number): string[] => {
    if (inputParameters.binary_data_size !== undefined) {
      const size = inputParameters.binary_data_size
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size !== binary.length) fail(`inputs[0].parameters.binary_data_size is ${JSON.stringify(size)}, but ${binary.length} bytes follow the JSON`)
      return readBinaryTexts(binary, count)
    }
    if (binary.length > 0) fail('bytes follow the JSON, but no input says binary_data_size')
    const flat: string[] = []
    flatten(input.data, flat, 0)
    return checkCount(flat, count)
  }
  const params = isObject(parameters) ? parameters : {}
  return buildInferRequest({ id, inputs: [{ datatype: input.datatype, shape: input.shape, texts }], outputs: () => outputAsks(outputs), binaryOutput: params.binary_data_output === true }, limits)
}

/** The response body: JSON alone, or (any output binary) the JSON header then the binary outputs in order. */
export function inferResponse (request: InferRequest, outputs: readonly OutputTensor[], model: ModelView): { body: Buffer, headerLength: number | undefined } {
  const binary: Buffer[] = []
  const tensors = outputs.map(o => {
    const tensor = { name: o.name, datatype: o.datatype, shape: o.shape }
    if (!o.binary) return { ...tensor, data: Array.from(o.data as ArrayLike<string | number>) }
    const bytes = tensorBytes(o)
    binary.push(bytes)
    return { ...tensor, parameters: { binary_data_size: bytes.length } }
  })
  const header = Buffer.from(JSON.stringify({ model_name: model.name, model_version: model.version, ...(request.id === undefined ? {} : { id: request.id }), outputs: tensors }))
  if (binary.length === 0) return { body: header, headerLength: undefined }
  return { body: Buffer.concat([header, ...binary]), headerLength: header.length }
}
