/**
 * What the Open Inference Protocol V2 says about the server and a model, shared by the REST
 * routes and gRPC: the extensions implemented, and a model's input and output tensors.
 */
import type { ModelStatus } from '../../pool/messages.js'

/** The extensions implemented (server metadata lists only these, over REST and gRPC alike). */
export const V2_EXTENSIONS = ['model_repository', 'binary_tensor_data', 'classification'] as const

export const V2_PLATFORM = 'sklearn'

/** A tensor's name, datatype and shape (-1: any size). */
export interface TensorMetadata {
  readonly name: string
  readonly datatype: string
  readonly shape: number[]
}

/** The model's one input (its texts) and the outputs its scores hold, as the protocol's metadata gives them. */
export function modelTensors (status: ModelStatus): { inputs: TensorMetadata[], outputs: TensorMetadata[] } {
  const width = status.classes.length
  return {
    inputs: [{ name: 'text', datatype: 'BYTES', shape: [-1] }],
    outputs: [
      { name: 'predict', datatype: 'BYTES', shape: [-1] },
      ...(status.outputs.proba ? [{ name: 'predict_proba', datatype: 'FP64', shape: [-1, width] }] : []),
      ...(status.outputs.decisionWidth > 0 ? [{ name: 'decision_function', datatype: 'FP64', shape: [-1, status.outputs.decisionWidth] }] : []),
      { name: 'confidence', datatype: 'FP64', shape: [-1] }
    ]
  }
}
