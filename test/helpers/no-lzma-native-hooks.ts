/** The resolve hook of no-lzma-native.ts. */
interface Context { readonly parentURL?: string }
type Next = (specifier: string, context: Context) => Promise<unknown>

export async function resolve (specifier: string, context: Context, next: Next): Promise<unknown> {
  if (specifier === 'lzma-native') throw new Error('Error relocating /app/node_modules/lzma-native/prebuilds/linux-x64/node.napi.node: __memcpy_chk: symbol not found')
  return await next(specifier, context)
}
