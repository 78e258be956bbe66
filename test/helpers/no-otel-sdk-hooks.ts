/** The resolve hook of no-otel-sdk.ts. */
interface Context { readonly parentURL?: string }
type Next = (specifier: string, context: Context) => Promise<unknown>

export async function resolve (specifier: string, context: Context, next: Next): Promise<unknown> {
  if (specifier.startsWith('@opentelemetry/') && specifier !== '@opentelemetry/api') throw new Error(`${specifier} was imported`)
  return await next(specifier, context)
}
