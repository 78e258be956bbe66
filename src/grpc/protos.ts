/**
 * The two .proto files the gRPC server serves, loaded at run time with @grpc/proto-loader (no
 * generated code): the Open Inference Protocol's `inference.GRPCInferenceService` and
 * `grpc.health.v1.Health`. tsc copies no .proto into dist, so they are read from the package's
 * own src/grpc (kept by package.json `files` and the Dockerfile); a client may load the same
 * files with the same options.
 */
import { loadPackageDefinition, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js'
import { loadSync, type Options } from '@grpc/proto-loader'
import path from 'node:path'
import { GRPC_PROTO_DIR } from '../layout.js'

/** src/grpc/grpc_service.proto and health.proto, read at run time (src/layout.ts). */
export const INFERENCE_PROTO = path.join(GRPC_PROTO_DIR, 'grpc_service.proto')
export const HEALTH_PROTO = path.join(GRPC_PROTO_DIR, 'health.proto')

export const INFERENCE_SERVICE = 'inference.GRPCInferenceService'
export const HEALTH_SERVICE = 'grpc.health.v1.Health'

/**
 * Field names as the .proto spells them (`raw_input_contents`); int64 as JS numbers (shapes and
 * counts here stay far below 2^53); enums as their names; every field present, unset ones at
 * their defaults (message fields null); the oneof's chosen member named in `parameter_choice`.
 */
export const PROTO_OPTIONS: Options = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true }

export interface LoadedServices {
  readonly inference: ServiceClientConstructor
  readonly health: ServiceClientConstructor
}

/** Both services, parsed from their .proto files (a few milliseconds; once per server). */
export function loadServices (): LoadedServices {
  const root = loadPackageDefinition(loadSync([INFERENCE_PROTO, HEALTH_PROTO], PROTO_OPTIONS))
  const inference = (root.inference as GrpcObject).GRPCInferenceService as ServiceClientConstructor
  const health = (((root.grpc as GrpcObject).health as GrpcObject).v1 as GrpcObject).Health as ServiceClientConstructor
  return { inference, health }
}
