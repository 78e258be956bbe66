/**
 * `npm run build`'s second step, after tsc: each thread the service runs as one file (esbuild),
 * written beside tsc's output in dist/src/, which `npm start`, the image and the threads the
 * service starts load (src/layout.ts). Node 20's module loader spends about 0.1 s of CPU per
 * thread finding, reading and linking the ~100 files of ours a thread imports, and the front
 * thread another ~0.2 s on Express's and ajv's CommonJS files; bundled, each reads a few.
 *
 * The front thread's bundle keeps what main.ts imports only when configured (tracing, gRPC,
 * webhooks, the model poller) in chunks of their own, loaded when it is, with every module
 * still one instance; the packages those parts and the access layer load, and those that find
 * files of their own at run time (piscina's worker, lzma-native's binary, gRPC's protos), stay
 * outside and load from node_modules as before, only when needed. The worker, decoding and
 * span-export threads' bundles are whole: a thread loads its one file.
 */
import { readdirSync, rmSync } from 'node:fs'
import { build } from 'esbuild'

// Chunks are named by their hashes: the last build's must not pile up beside this one's.
for (const f of readdirSync('dist/src')) if (/[.]bundle[.-]/.test(f)) rmSync(`dist/src/${f}`)

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: 'dist/src',
  // Bundled CommonJS (Express, ajv, ...) calls require() for Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning'
}

await build({
  ...common,
  entryPoints: { 'main.bundle': 'dist/src/main.js' },
  splitting: true,
  chunkNames: 'main.bundle-[hash]',
  // iconv-lite and mime-db: Express's dependencies load them at once, yet iconv-lite's 550 KB
  // of encodings are read only for a body in another charset and mime-db is a JSON file:
  // bundled, the front thread parsed all of it as code at every start; from node_modules,
  // require() reads iconv-lite's index and JSON.parse()s mime-db.
  external: ['piscina', 'lzma-native', 'seek-bzip', 'iconv-lite', 'mime-db', '@grpc/*', '@opentelemetry/sdk-trace', '@opentelemetry/exporter-trace-otlp-proto', '@opentelemetry/resources', '@opentelemetry/core', '@opentelemetry/semantic-conventions']
})

await build({
  ...common,
  entryPoints: {
    'classify-worker.bundle': 'dist/workers/classify.js',
    'decode-worker.bundle': 'dist/workers/decode.js',
    'export-thread.bundle': 'dist/src/tracing/export-thread.js'
  },
  external: ['lzma-native', 'seek-bzip']
})
