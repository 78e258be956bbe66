/**
 * Columns an app appended to the vectorizer's row itself before its classifier, numbers its
 * own code computed from each text:
 *
 *   X = scipy.sparse.hstack([vectorizer.transform(fed), extra])   # extra: one row per text
 *
 * declared in the settings (`columns`: the Python function's name and how many numbers it
 * gives) and ported in the functions module. The row is the vectorizer's entries in their
 * order, then each nonzero number at vectorizer width + k, as the CSR matrix hstack gives
 * (zeros are not stored: hstack builds its blocks with nonzero()), in float64: hstack's
 * upcast of the TF-IDF row and numpy's array of Python numbers.
 */
import { ServiceError } from '../errors.js'
import type { Vectorizer } from './estimator.js'
import type { SparseRow } from './sparse-row.js'
import { numbersFunction, type UserFunctions } from './text/user-callables.js'

/** One block of columns as the settings declare it: its Python function and its width. */
export interface AppColumnsSpec {
  readonly function: string
  readonly width: number
}

/** The columns a block adds for a text: given the raw text and the text fed to the vectorizer. */
type ColumnsOf = (text: string, fed: string) => Float64Array

/** The declared blocks' total width. */
export function columnsWidth (columns: readonly AppColumnsSpec[]): number {
  return columns.reduce((sum, c) => sum + c.width, 0)
}

/**
 * `side` (a text's row from its raw text, cleaning included) with the app's columns after it.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED when the functions module lacks a block's function.
 */
export function appendColumns (side: Vectorizer, columns: readonly AppColumnsSpec[], functions: UserFunctions | null): Vectorizer {
  const blocks: Array<{ of: ColumnsOf, at: number }> = []
  let at = side.nFeatures
  for (const c of columns) {
    blocks.push({ of: numbersFunction(functions, c.function, 'a columns block', c.width), at })
    at += c.width
  }
  const names = side.featureName
  const nameOf = (j: number): string | undefined => {
    for (let b = blocks.length - 1; b >= 0; b--) if (j >= blocks[b]!.at) return `${columns[b]!.function}[${j - blocks[b]!.at}]`
    return names?.(j)
  }
  return {
    ...side,
    kind: `${side.kind} + ${columns.map(c => `${c.function} (${c.width})`).join(' + ')}`,
    nFeatures: at,
    transform: (text, coverage): SparseRow => {
      const row = side.transform(text, coverage)
      const fed = side.clean?.(text) ?? text
      const indices = Array.from(row.indices)
      const values = Array.from(row.values)
      for (const block of blocks) {
        const numbers = block.of(text, fed)
        for (let k = 0; k < numbers.length; k++) {
          if (numbers[k] === 0) continue
          indices.push(block.at + k)
          values.push(numbers[k]!)
        }
      }
      return { indices: Int32Array.from(indices), values: Float64Array.from(values), float32: false }
    },
    ...(names === undefined ? {} : { featureName: nameOf })
  }
}

/**
 * `clean` remembering its last answer: the row's cleaning and the columns' `fed` ask for the
 * same text one after the other, and a cleaning is worth not running twice.
 */
export function rememberLast (clean: (text: string) => string): (text: string) => string {
  let last: string | undefined
  let answer = ''
  return text => {
    if (text !== last) {
      answer = clean(text)
      last = text
    }
    return answer
  }
}

/**
 * Why the classifier's width is not the row's: said with both numbers, the declared columns
 * apart, and a hint when an app may have appended columns it did not declare.
 */
export function widthMismatch (from: string, sideWidth: number, columns: readonly AppColumnsSpec[], expected: number): ServiceError {
  const declared = columnsWidth(columns)
  const have = declared === 0
    ? `${from} has ${sideWidth} features`
    : `${from} has ${sideWidth} features and the settings declare ${declared} columns of the app's own (${sideWidth + declared} in all)`
  const hint = declared === 0 && expected > sideWidth
    ? `; if the app appended ${expected - sideWidth} columns of its own to the vectorizer's row (scipy hstack), declare them in the settings ("columns")`
    : ''
  return new ServiceError('ERR_MODEL_SHAPE', `${have} but the classifier expects ${expected}${hint}`)
}
