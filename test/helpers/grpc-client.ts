/** A real gRPC client of the service's own .proto files, for tests. */
import { credentials, type Client, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js'

export function clientOf (service: ServiceClientConstructor, port: number): Client {
  return new service(`127.0.0.1:${port}`, credentials.createInsecure())
}

/** A unary call, as a promise. */
export async function unary<T = Record<string, unknown>> (client: Client, method: string, message: object): Promise<T> {
  const fn = (client as unknown as Record<string, (m: object, cb: (err: ServiceError | null, res: T) => void) => void>)[method]!
  return await new Promise<T>((resolve, reject) => { fn.call(client, message, (err, res) => { if (err === null) resolve(res); else reject(err) }) })
}

/** A unary call that must fail: its status code and details. */
export async function failure (client: Client, method: string, message: object): Promise<{ code: number, details: string }> {
  try {
    await unary(client, method, message)
  } catch (err) {
    return { code: (err as ServiceError).code, details: (err as ServiceError).details }
  }
  throw new Error(`${method} succeeded`)
}
