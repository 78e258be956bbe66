/**
 * The gRPC server (GRPC_PORT): `inference.GRPCInferenceService` and `grpc.health.v1.Health`
 * over the context REST uses, so both protocols share one pool, repository, cache of counters,
 * limits and timeouts. @grpc/grpc-js, plain JavaScript: no native build.
 */
import { ServiceError } from '../errors.js'
import { Server, ServerCredentials } from '@grpc/grpc-js'
import { BODY_LIMIT } from '../service/limits.js'
import { createHealthService, type HealthService } from './health-service.js'
import { createInferenceService, type GrpcContext } from './inference-service.js'
import { loadServices } from './protos.js'

export interface GrpcServer {
  readonly server: Server
  readonly health: HealthService
}

/** How long close() lets calls in flight finish before it cuts them off, beyond REQUEST_TIMEOUT_MS. */
const CLOSE_MARGIN_MS = 1000

/**
 * Both services on a new, unbound server. A message is at most 1 MiB, REST's body limit
 * (RESOURCE_EXHAUSTED past it, from grpc-js itself).
 */
export function createGrpcServer (ctx: GrpcContext): GrpcServer {
  const services = loadServices()
  const server = new Server({ 'grpc.max_receive_message_length': BODY_LIMIT })
  const health = createHealthService(ctx)
  server.addService(services.inference.service, createInferenceService(ctx))
  server.addService(services.health.service, health.implementation)
  return { server, health }
}

export interface ListeningGrpcServer {
  /** The port bound (the one asked for, or the one the system chose for 0). */
  readonly port: number
  /**
   * Stops taking calls, turns health NOT_SERVING and ends Watch streams, then waits for the
   * calls in flight (at most REQUEST_TIMEOUT_MS and a second, then cuts them off). Never rejects.
   */
  close: () => Promise<void>
}

/** `host` as grpc-js's address wants it: an IPv6 address in brackets. */
function address (host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`
}

/**
 * Serves gRPC on `host`:`port` (plaintext: TLS belongs to the mesh or proxy, as for HTTP).
 * @throws Error when the address cannot be bound (in use, not local).
 */
export async function startGrpcServer (ctx: GrpcContext, port: number, host: string): Promise<ListeningGrpcServer> {
  const { server, health } = createGrpcServer(ctx)
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address(host, port), ServerCredentials.createInsecure(), (err, actual) => {
      if (err === null) resolve(actual)
      // A port in use is a bad setting: one line at start-up, like the others.
      else reject(new ServiceError('ERR_CONFIG_INVALID', `invalid configuration: cannot listen for gRPC on ${address(host, port)}: ${err.message}`, { cause: err }))
    })
  })
  let closing: Promise<void> | undefined
  return {
    port: bound,
    close: async () => {
      closing ??= new Promise<void>(resolve => {
        health.stop()
        const force = setTimeout(() => server.forceShutdown(), ctx.config.requestTimeoutMs + CLOSE_MARGIN_MS)
        server.tryShutdown(() => {
          clearTimeout(force)
          resolve()
        })
      })
      await closing
    }
  }
}
