/**
 * `grpc.health.v1.Health` (Check, List, Watch), what Kubernetes gRPC probes and service meshes
 * call. The service "" (or `inference.GRPCInferenceService`) is SERVING while the server is
 * ready, as GET /v2/health/ready and ServerReady answer (the same operation); a model's name is SERVING
 * while that model is READY; any other name is NOT_FOUND for Check (SERVICE_UNKNOWN for Watch,
 * as the protocol says). Everything turns NOT_SERVING once the server begins to stop.
 */
import { status, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation } from '@grpc/grpc-js'
import { V2Operations } from '../protocol/v2/operations.js'
import type { GrpcContext } from './inference-service.js'
import { INFERENCE_SERVICE } from './protos.js'

export type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN'

/** How often a Watch looks again (the pool and repository raise no event for it to wait on). */
export const WATCH_INTERVAL_MS = 1000

/** The protocol's bound on List's answer. */
const LIST_MAX = 100

export interface HealthService {
  readonly implementation: UntypedServiceImplementation
  /** Reports NOT_SERVING from now on, sends that to every Watch and ends them (a graceful stop waits for open calls). */
  stop: () => void
}

interface Watch {
  readonly call: ServerWritableStream<{ service: string }, { status: ServingStatus }>
  last: ServingStatus
  readonly timer: NodeJS.Timeout
}

export function createHealthService (ctx: GrpcContext): HealthService {
  let stopping = false
  const v2 = new V2Operations(ctx)
  const watches = new Set<Watch>()

  const statusOf = (service: string): ServingStatus => {
    const entry = ctx.repository.entry(service)
    if (entry === undefined && service !== '' && service !== INFERENCE_SERVICE) return 'SERVICE_UNKNOWN'
    if (stopping || !ctx.pool.ready) return 'NOT_SERVING'
    const serving = entry === undefined ? v2.serverReady().ready : entry.state === 'READY' && entry.served !== null
    return serving ? 'SERVING' : 'NOT_SERVING'
  }

  const end = (watch: Watch): void => {
    clearInterval(watch.timer)
    watches.delete(watch)
  }

  const implementation: UntypedServiceImplementation = {
    Check: (call: ServerUnaryCall<{ service: string }, unknown>, callback: sendUnaryData<unknown>) => {
      const s = statusOf(call.request.service)
      if (s === 'SERVICE_UNKNOWN') callback({ code: status.NOT_FOUND, details: `unknown service ${JSON.stringify(call.request.service)}: ask for "" (the server) or a model's name` })
      else callback(null, { status: s })
    },
    List: (_call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
      const names = ['', INFERENCE_SERVICE, ...ctx.repository.entries().map(e => e.name).filter(n => n !== '' && n !== INFERENCE_SERVICE)]
      if (names.length > LIST_MAX) {
        callback({ code: status.RESOURCE_EXHAUSTED, details: `${names.length} services, more than the ${LIST_MAX} List may return; Check them by name` })
        return
      }
      callback(null, { statuses: Object.fromEntries(names.map(n => [n, { status: statusOf(n) }])) })
    },
    Watch: (call: ServerWritableStream<{ service: string }, { status: ServingStatus }>) => {
      const service = call.request.service
      const watch: Watch = {
        call,
        last: statusOf(service),
        timer: setInterval(() => {
          const now = statusOf(service)
          if (now === watch.last) return
          watch.last = now
          call.write({ status: now })
        }, WATCH_INTERVAL_MS)
      }
      watch.timer.unref()
      watches.add(watch)
      call.on('cancelled', () => end(watch))
      call.on('error', () => end(watch))
      call.write({ status: watch.last })
    }
  }

  return {
    implementation,
    stop: () => {
      stopping = true
      for (const watch of [...watches]) {
        end(watch)
        if (watch.last !== 'NOT_SERVING' && watch.last !== 'SERVICE_UNKNOWN') watch.call.write({ status: 'NOT_SERVING' })
        watch.call.end()
      }
    }
  }
}
