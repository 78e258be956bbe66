import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The project root (this file runs from dist/test/helpers/). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')
/** ../shared beside the clone: real corpora and wild model files, read in place, never copied. */
export const SHARED = path.resolve(ROOT, '..', 'shared')
