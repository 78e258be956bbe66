/**
 * Unpickled scikit-learn records to typed estimator state, checked once (shapes,
 * dtypes, class counts) so prediction code can trust it. Knows the attribute layouts
 * of scikit-learn 0.20 to 1.9 (e.g. TfidfTransformer's `_idf_diag` before 1.5 and
 * `idf_` after; LogisticRegression's `multi_class` 'deprecated' or missing from 1.5).
 */
import { ServiceError } from '../errors.js'
import { DType, NdArray, elementAt, type NumericArray } from '../pickle/numpy.js'
import { SparseMatrix, indexAt } from '../pickle/scipy-sparse.js'
import { PyFrozenSet, PyGlobal, PyObject, PyTuple, type PyValue } from '../pickle/values.js'
import type { Classifier } from './classifier.js'
import { LinearClassifier, type ProbaKind } from './linear-classifier.js'
import { numpySum } from './math.js'
import { NaiveBayes } from './naive-bayes.js'
import { pyStr } from './python-repr.js'
import { buildAnalyzer, type AnalyzerOptions } from './text/analyzer.js'
import { ENGLISH_STOP_WORDS } from './text/unicode-tables.js'
import { TextVectorizer, type TfidfOptions } from './vectorizer.js'

const VECTORIZERS = new Set(['CountVectorizer', 'TfidfVectorizer'])
const LINEAR = new Set(['LogisticRegression', 'LogisticRegressionCV', 'LinearSVC', 'SGDClassifier', 'RidgeClassifier', 'RidgeClassifierCV', 'Perceptron', 'PassiveAggressiveClassifier'])
const NAIVE_BAYES = new Set(['MultinomialNB', 'ComplementNB', 'BernoulliNB'])

function unsupported (detail: string): never {
  throw new ServiceError('ERR_MODEL_UNSUPPORTED', detail)
}

function shapeError (detail: string): never {
  throw new ServiceError('ERR_MODEL_SHAPE', detail)
}

/** The scikit-learn class name of a record, or undefined for anything else. */
export function sklearnClass (value: PyValue): string | undefined {
  return value instanceof PyObject && (value.module === 'sklearn' || value.module.startsWith('sklearn.')) ? value.name : undefined
}

export function isVectorizerRecord (value: PyValue): boolean {
  const name = sklearnClass(value)
  return name !== undefined && (VECTORIZERS.has(name) || name === 'TfidfTransformer' || name === 'HashingVectorizer')
}

export function isClassifierRecord (value: PyValue): boolean {
  const name = sklearnClass(value)
  return name !== undefined && !isVectorizerRecord(value) && name !== 'Pipeline'
}

/** What a value is, for messages: 'sklearn.svm._classes.SVC', 'a list', ... */
export function describe (value: PyValue): string {
  if (value instanceof PyObject || value instanceof PyGlobal) return value.qualifiedName
  if (value === null) return 'None'
  if (Array.isArray(value)) return 'a list'
  if (value instanceof PyTuple) return 'a tuple'
  if (value instanceof Map) return 'a dict'
  return typeof value === 'string' ? `the string '${value}'` : typeof value
}

function attr (obj: PyObject, name: string): PyValue {
  if (!obj.has(name)) unsupported(`${obj.name} has no '${name}': is it fitted?`)
  return obj.get(name)
}

function param<T> (obj: PyObject, name: string, fallback: T): PyValue | T {
  return obj.has(name) ? obj.get(name) : fallback
}

function bool (obj: PyObject, name: string, fallback: boolean): boolean {
  const v = param(obj, name, fallback)
  if (typeof v === 'boolean') return v
  if (v === 0 || v === 1) return v === 1
  return unsupported(`${obj.name}.${name} is ${describe(v)}, not a bool`)
}

/** A numeric array's values as float64 (exact for every numeric dtype but int64 past 2^53). */
export function toFloat64 (array: NdArray, what: string): Float64Array {
  if (array.data instanceof Map || Array.isArray(array.data)) shapeError(`${what} is not a numeric array`)
  const data = array.data as NumericArray
  if (data instanceof Float64Array) return data
  const out = new Float64Array(data.length)
  for (let i = 0; i < data.length; i++) out[i] = Number(data[i])
  return out
}

function numericArray (value: PyValue, what: string, ndim: number): NdArray {
  if (!(value instanceof NdArray) || value.dtype.kind === 'O' || value.dtype.fields !== undefined || !'biuf'.includes(value.dtype.kind)) {
    return shapeError(`${what} is ${describe(value)}, not a numeric array`)
  }
  if (value.shape.length !== ndim) shapeError(`${what} has ${value.shape.length} dimensions, expected ${ndim}`)
  return value
}

/** `classes_` as Python prints each label. */
function readClasses (value: PyValue, owner: string): string[] {
  if (!(value instanceof NdArray) || value.shape.length !== 1) return shapeError(`${owner}.classes_ is not a 1-d array`)
  const isFloat = value.dtype.kind === 'f'
  const labels: string[] = []
  for (let i = 0; i < value.size; i++) labels.push(pyStr(elementAt(value.data, i, value.dtype), isFloat))
  if (labels.length < 2) unsupported(`${owner} has ${labels.length} class; at least 2 are needed`)
  return labels
}

// ---------------------------------------------------------------- vectorizers

function stopWords (obj: PyObject): ReadonlySet<string> | null {
  const v = param(obj, 'stop_words', null)
  if (v === null) return null
  if (v === 'english') return new Set(ENGLISH_STOP_WORDS)
  if (typeof v === 'string') return unsupported(`${obj.name}.stop_words '${v}' is not a built-in stop list`)
  const items = Array.isArray(v) ? v : v instanceof PyTuple ? v.items : v instanceof Set || v instanceof PyFrozenSet ? [...v] : undefined
  if (items === undefined || items.some(w => typeof w !== 'string')) return unsupported(`${obj.name}.stop_words is ${describe(v)}`)
  return new Set(items as string[])
}

function ngramRange (obj: PyObject): [number, number] {
  const v = param(obj, 'ngram_range', new PyTuple([1, 1]))
  const items = v instanceof PyTuple ? v.items : Array.isArray(v) ? v : []
  const [a, b] = items
  if (items.length !== 2 || typeof a !== 'number' || typeof b !== 'number') return unsupported(`${obj.name}.ngram_range is ${describe(v)}`)
  return [a, b]
}

/** Refuses anything a file cannot carry: callables, file input, custom decoders. */
function analyzerOptions (obj: PyObject): AnalyzerOptions {
  for (const name of ['preprocessor', 'tokenizer']) {
    const v = param(obj, name, null)
    if (v !== null) unsupported(`${obj.name}.${name} is the callable ${describe(v)}, which cannot be served without Python`)
  }
  const analyzer = param(obj, 'analyzer', 'word')
  if (analyzer !== 'word' && analyzer !== 'char' && analyzer !== 'char_wb') {
    unsupported(`${obj.name}.analyzer is ${typeof analyzer === 'string' ? `'${analyzer}'` : `the callable ${describe(analyzer)}`}, which cannot be served without Python`)
  }
  const input = param(obj, 'input', 'content')
  if (input !== 'content') unsupported(`${obj.name}.input is '${String(input)}'; only 'content' can be served`)
  const strip = param(obj, 'strip_accents', null)
  if (strip !== null && strip !== 'ascii' && strip !== 'unicode') unsupported(`${obj.name}.strip_accents is ${describe(strip)}`)
  const tokenPattern = param(obj, 'token_pattern', '(?u)\\b\\w\\w+\\b')
  if (analyzer === 'word' && typeof tokenPattern !== 'string') unsupported(`${obj.name}.token_pattern is ${describe(tokenPattern)}`)
  return {
    analyzer,
    lowercase: bool(obj, 'lowercase', true),
    stripAccents: strip,
    tokenPattern: typeof tokenPattern === 'string' ? tokenPattern : '',
    stopWords: stopWords(obj),
    ngramRange: ngramRange(obj)
  }
}

/** The vectorizer's `dtype` parameter: a numpy type, a dtype, or its name. */
function dtypeName (obj: PyObject): string {
  const v = param(obj, 'dtype', null)
  if (v === null) return 'int64'
  if (v instanceof PyGlobal) return v.name
  if (v instanceof DType) return v.kind === 'f' ? `float${v.itemsize * 8}` : `${v.kind}${v.itemsize}`
  if (typeof v === 'string') return v
  return unsupported(`${obj.name}.dtype is ${describe(v)}`)
}

/** `vocabulary_` checked in place (terms are strings, indices 0..n-1 each once) and used as it is. */
function vocabulary (obj: PyObject): Map<string, number> {
  const v = attr(obj, 'vocabulary_')
  if (!(v instanceof Map)) return shapeError(`${obj.name}.vocabulary_ is ${describe(v)}, not a dict`)
  const seen = new Uint8Array(v.size)
  for (const [term, index] of v) {
    if (typeof term !== 'string' || typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= v.size || seen[index] === 1) {
      shapeError(`${obj.name}.vocabulary_ maps ${JSON.stringify(String(term)).slice(0, 40)} to ${String(index)}; indices must be 0..${v.size - 1}, each once`)
    }
    seen[index] = 1
  }
  return v as Map<string, number>
}

/** TfidfTransformer state: idf from `idf_` (sklearn >= 1.5) or the diagonal of `_idf_diag`. */
function tfidfOptions (obj: PyObject): TfidfOptions {
  const norm = param(obj, 'norm', 'l2')
  if (norm !== null && norm !== 'l1' && norm !== 'l2') unsupported(`${obj.name}.norm is ${describe(norm)}`)
  const useIdf = bool(obj, 'use_idf', true)
  let idf: Float64Array | null = null
  let idfFloat32 = false
  if (useIdf) {
    if (obj.has('idf_')) {
      const array = numericArray(obj.get('idf_'), `${obj.name}.idf_`, 1)
      idf = toFloat64(array, `${obj.name}.idf_`)
      idfFloat32 = array.dtype.kind === 'f' && array.dtype.itemsize === 4
    } else {
      const diag = attr(obj, '_idf_diag')
      if (!(diag instanceof SparseMatrix)) return shapeError(`${obj.name}._idf_diag is ${describe(diag)}, not a sparse matrix`)
      idf = diagonal(diag)
      idfFloat32 = diag.data.dtype.kind === 'f' && diag.data.dtype.itemsize === 4
    }
  }
  return { sublinearTf: bool(obj, 'sublinear_tf', false), idf, idfFloat32, norm }
}

function diagonal (m: SparseMatrix): Float64Array {
  const [rows, cols] = m.shape
  if (rows !== cols) shapeError(`_idf_diag is ${rows} x ${cols}, not square`)
  const out = new Float64Array(rows)
  const data = toFloat64(m.data, '_idf_diag data')
  if (m.format === 'csr' || m.format === 'csc') {
    for (let i = 0; i < rows; i++) {
      for (let p = indexAt(m.indptr!, i); p < indexAt(m.indptr!, i + 1); p++) if (indexAt(m.indices!, p) === i) out[i] = data[p]!
    }
  } else if (m.format === 'dia') {
    for (let d = 0; d < m.offsets!.size; d++) {
      if (indexAt(m.offsets!, d) === 0) out.set(data.subarray(d * m.data.shape[1]!, d * m.data.shape[1]! + rows))
    }
  } else {
    for (let p = 0; p < m.data.size; p++) if (indexAt(m.row!, p) === indexAt(m.col!, p)) out[indexAt(m.row!, p)] = data[p]!
  }
  return out
}

/**
 * A vectorizer from one to two records: a CountVectorizer or TfidfVectorizer, optionally
 * followed by a TfidfTransformer (a Pipeline's steps, or separate files).
 * @throws ServiceError ERR_MODEL_UNSUPPORTED / ERR_MODEL_SHAPE naming what is wrong.
 */
export function buildVectorizer (stages: readonly PyValue[]): TextVectorizer {
  const [first, second, ...rest] = stages
  const name = sklearnClass(first)
  if (name === 'HashingVectorizer') unsupported('HashingVectorizer is not supported (it hashes features instead of keeping a vocabulary)')
  if (name === undefined || !VECTORIZERS.has(name)) return unsupported(`${describe(first)} is not a supported vectorizer (CountVectorizer, TfidfVectorizer)`)
  if (rest.length > 0) unsupported(`more than two vectorizer stages (${stages.map(describe).join(', ')})`)
  const obj = first as PyObject
  const vocab = vocabulary(obj)
  const dtype = dtypeName(obj)
  if (dtype === 'float16') unsupported(`${obj.name}.dtype float16 is not supported`)
  let tfidf: TfidfOptions | null = null
  let kind = name
  if (name === 'TfidfVectorizer') {
    const inner = obj.get('_tfidf')
    tfidf = tfidfOptions(inner instanceof PyObject ? inner : obj)
  }
  if (second !== undefined) {
    if (sklearnClass(second) !== 'TfidfTransformer' || name !== 'CountVectorizer') {
      unsupported(`${describe(second)} cannot follow ${name}; only CountVectorizer + TfidfTransformer is supported`)
    }
    tfidf = tfidfOptions(second as PyObject)
    kind = 'CountVectorizer + TfidfTransformer'
  }
  if (tfidf?.idf !== null && tfidf?.idf !== undefined && tfidf.idf.length !== vocab.size) {
    shapeError(`the vectorizer has ${vocab.size} features but its idf has ${tfidf.idf.length}`)
  }
  const analyzer = analyzerOptions(obj)
  return new TextVectorizer({
    kind,
    analyze: buildAnalyzer(analyzer),
    analyzerOptions: analyzer,
    vocabulary: vocab,
    nFeatures: vocab.size,
    binary: bool(obj, 'binary', false),
    float32: dtype === 'float32',
    tfidf
  })
}

// ---------------------------------------------------------------- classifiers

/** coef_ (dense or sparsified) as nFeatures rows of nOutputs values. */
function transposedCoef (value: PyValue, owner: string): { coefT: Float64Array, outputs: number, features: number } {
  if (value instanceof SparseMatrix) {
    const [outputs, features] = value.shape
    const coefT = new Float64Array(outputs * features)
    const data = toFloat64(value.data, `${owner}.coef_`)
    if (value.format !== 'csr' && value.format !== 'csc') unsupported(`${owner}.coef_ is a ${value.format} matrix`)
    const major = value.format === 'csr' ? outputs : features
    for (let i = 0; i < major; i++) {
      for (let p = indexAt(value.indptr!, i); p < indexAt(value.indptr!, i + 1); p++) {
        const j = indexAt(value.indices!, p)
        const [row, col] = value.format === 'csr' ? [i, j] : [j, i]
        coefT[col * outputs + row] = data[p]!
      }
    }
    return { coefT, outputs, features }
  }
  const array = numericArray(value, `${owner}.coef_`, 2)
  const [outputs, features] = array.shape as [number, number]
  const flat = toFloat64(array, `${owner}.coef_`)
  const coefT = new Float64Array(outputs * features)
  for (let k = 0; k < outputs; k++) for (let j = 0; j < features; j++) coefT[j * outputs + k] = flat[k * features + j]!
  return { coefT, outputs, features }
}

function intercept (value: PyValue, outputs: number, owner: string): Float64Array {
  if (typeof value === 'number') return new Float64Array(outputs).fill(value)
  const array = numericArray(value, `${owner}.intercept_`, 1)
  if (array.size !== outputs) shapeError(`${owner}.intercept_ has ${array.size} values for ${outputs} rows of coef_`)
  return toFloat64(array, `${owner}.intercept_`).slice()
}

function logisticProba (obj: PyObject, nClasses: number): ProbaKind {
  let multiClass = param(obj, 'multi_class', 'auto')
  if (multiClass === 'deprecated') multiClass = 'auto'
  const solver = param(obj, 'solver', 'lbfgs')
  if (multiClass === 'ovr' || multiClass === 'warn') return 'ovr'
  if (multiClass === 'auto') return nClasses <= 2 || solver === 'liblinear' ? 'ovr' : 'multinomial'
  if (multiClass === 'multinomial') return 'multinomial'
  return unsupported(`${obj.name}.multi_class is ${describe(multiClass)}`)
}

function linearClassifier (obj: PyObject, name: string): { classifier: Classifier, classes: string[] } {
  const classesValue = name.startsWith('RidgeClassifier') && !obj.has('classes_')
    ? attr(attr(obj, '_label_binarizer') as PyObject, 'classes_')
    : attr(obj, 'classes_')
  const classes = readClasses(classesValue, name)
  const { coefT, outputs, features } = transposedCoef(attr(obj, 'coef_'), name)
  const expected = classes.length === 2 ? 1 : classes.length
  if (outputs !== expected) shapeError(`${name}.coef_ has ${outputs} rows for ${classes.length} classes`)
  let proba: ProbaKind = 'none'
  const params: Record<string, unknown> = {}
  if (name.startsWith('LogisticRegression')) {
    proba = logisticProba(obj, classes.length)
    params.multi_class = proba === 'ovr' ? 'ovr' : 'multinomial'
    params.solver = param(obj, 'solver', null)
    params.C = param(obj, 'C', null)
  } else if (name === 'SGDClassifier') {
    const loss = param(obj, 'loss', 'hinge')
    params.loss = loss
    proba = loss === 'log_loss' || loss === 'log' ? 'ovr' : loss === 'modified_huber' ? 'modified_huber' : 'none'
  }
  return {
    classes,
    classifier: new LinearClassifier({ kind: name, coefT, intercept: intercept(attr(obj, 'intercept_'), outputs, name), nFeatures: features, nClasses: classes.length, proba, params })
  }
}

function naiveBayes (obj: PyObject, name: 'MultinomialNB' | 'ComplementNB' | 'BernoulliNB'): { classifier: Classifier, classes: string[] } {
  const classes = readClasses(attr(obj, 'classes_'), name)
  const flpArray = numericArray(attr(obj, 'feature_log_prob_'), `${name}.feature_log_prob_`, 2)
  const [c, f] = flpArray.shape as [number, number]
  if (c !== classes.length) shapeError(`${name}.feature_log_prob_ has ${c} rows for ${classes.length} classes`)
  const flp = toFloat64(flpArray, `${name}.feature_log_prob_`)
  const prior = toFloat64(numericArray(attr(obj, 'class_log_prior_'), `${name}.class_log_prior_`, 1), `${name}.class_log_prior_`)
  if (prior.length !== c) shapeError(`${name}.class_log_prior_ has ${prior.length} values for ${c} classes`)
  const weightT = new Float64Array(c * f)
  const offset = new Float64Array(c)
  let binarize: number | null = null
  if (name === 'BernoulliNB') {
    // jll = X @ (flp - neg).T + (class_log_prior_ + neg.sum(axis=1)), neg = log(1 - exp(flp))
    const neg = flp.map(v => Math.log(1 - Math.exp(v)))
    for (let k = 0; k < c; k++) {
      for (let j = 0; j < f; j++) weightT[j * c + k] = flp[k * f + j]! - neg[k * f + j]!
      offset[k] = prior[k]! + numpySum(neg, k * f, (k + 1) * f)
    }
    const b = param(obj, 'binarize', 0)
    binarize = b === null ? null : typeof b === 'number' ? b : unsupported(`${name}.binarize is ${describe(b)}`)
  } else {
    for (let k = 0; k < c; k++) for (let j = 0; j < f; j++) weightT[j * c + k] = flp[k * f + j]!
    if (name === 'MultinomialNB' || c === 1) offset.set(prior)
  }
  return { classes, classifier: new NaiveBayes({ kind: name, weightT, offset, nFeatures: f, nClasses: c, binarize, params: { alpha: param(obj, 'alpha', null) } }) }
}

/**
 * A classifier record to a Classifier and its labels.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED naming an estimator outside the supported set.
 */
export function buildClassifier (value: PyValue): { classifier: Classifier, classes: string[] } {
  const name = sklearnClass(value)
  if (name !== undefined && LINEAR.has(name)) return linearClassifier(value as PyObject, name)
  if (name !== undefined && NAIVE_BAYES.has(name)) return naiveBayes(value as PyObject, name as 'MultinomialNB')
  return unsupported(`${describe(value)} is not a supported classifier (${[...LINEAR, ...NAIVE_BAYES].join(', ')})`)
}
