export async function main (): Promise<void> { throw new Error('the HTTP service is not built yet') }
