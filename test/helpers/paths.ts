import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The project root (this file runs from dist/test/helpers/). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')
/**
 * ../shared beside the clone: real corpora and wild model files, read in place, never copied
 * (TFIDF_TEST_SHARED names another folder). Tests find it through ./shared-data.ts.
 */
export const SHARED = process.env.TFIDF_TEST_SHARED ?? path.resolve(ROOT, '..', 'shared')
