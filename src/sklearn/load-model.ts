/**
 * Model files to a Predictor: a classifier file with its vectorizer file(s), or one
 * file holding both (a Pipeline, or a tuple, list or dict bundle, as notebooks save).
 */
import { ServiceError } from '../errors.js'
import { readPickleFile, type ReadPickleOptions } from '../pickle/read-pickle-file.js'
import { PyObject, PyTuple, type PyValue } from '../pickle/values.js'
import { buildClassifier, buildVectorizer, describe, isClassifierRecord, isVectorizerRecord, sklearnClass } from './from-pickle.js'
import { TextClassifier } from './predictor.js'
import type { TextVectorizer } from './vectorizer.js'

export interface ModelPaths {
  /** The classifier, a Pipeline, or a bundle holding vectorizer and classifier. */
  readonly model: string
  /** Vectorizer file(s), in pipeline order (CountVectorizer then TfidfTransformer); unused when the model holds one. */
  readonly vectorizers?: readonly string[]
}

export interface LoadedModel {
  readonly predictor: TextClassifier
  /** Things worth a log line, e.g. that the vectorizer path was ignored. */
  readonly notes: readonly string[]
}

interface Parts {
  readonly vectorizers: PyValue[]
  readonly classifier: PyValue | undefined
}

function pipelineSteps (pipeline: PyObject): PyValue[] {
  const steps = pipeline.get('steps')
  if (!Array.isArray(steps)) throw new ServiceError('ERR_MODEL_UNSUPPORTED', 'Pipeline has no steps list')
  return steps
    .map(step => step instanceof PyTuple && step.length >= 2 ? step.items[1] : undefined)
    .filter(est => est !== null && est !== 'passthrough' && est !== undefined)
}

/** The vectorizer stages and the classifier a loaded value holds. */
function split (value: PyValue): Parts {
  if (sklearnClass(value) === 'Pipeline') {
    const steps = pipelineSteps(value as PyObject)
    const last = steps[steps.length - 1]
    if (last !== undefined && isVectorizerRecord(last)) return { vectorizers: steps, classifier: undefined }
    const vectorizers = steps.slice(0, -1)
    for (const step of vectorizers) {
      if (!isVectorizerRecord(step)) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `Pipeline step ${describe(step)} is not supported (only vectorizers before the classifier)`)
    }
    return { vectorizers, classifier: last }
  }
  const items = value instanceof PyTuple ? [...value.items] : Array.isArray(value) ? value : value instanceof Map ? [...value.values()] : undefined
  if (items === undefined) return isVectorizerRecord(value) ? { vectorizers: [value], classifier: undefined } : { vectorizers: [], classifier: value }
  const parts = items.filter(item => item instanceof PyObject).map(split)
  const vectorizers = parts.flatMap(p => p.vectorizers)
  const classifiers = parts.map(p => p.classifier).filter(c => c !== undefined && isClassifierRecord(c))
  if (classifiers.length > 1) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `the bundle holds ${classifiers.length} classifiers (${classifiers.map(describe).join(', ')}); keep one`)
  return { vectorizers, classifier: classifiers[0] }
}

function versionOf (value: PyValue): string | undefined {
  if (value instanceof PyObject) {
    const v = value.get('_sklearn_version')
    if (typeof v === 'string') return v
    if (sklearnClass(value) === 'Pipeline') return pipelineSteps(value).map(versionOf).find(x => x !== undefined)
  }
  if (value instanceof PyTuple || Array.isArray(value) || value instanceof Map) {
    const items = value instanceof PyTuple ? value.items : Array.isArray(value) ? value : [...value.values()]
    return items.map(versionOf).find(x => x !== undefined)
  }
  return undefined
}

function inFile<T> (file: string, build: () => T): T {
  try {
    return build()
  } catch (err) {
    if (err instanceof ServiceError) throw err.withFile(file)
    throw err
  }
}

/**
 * Loads and checks a model.
 * @throws ServiceError naming the file and the problem: unreadable, refused global,
 * unsupported estimator, or a vectorizer whose feature count differs from the classifier's.
 */
export async function loadModel (paths: ModelPaths, options: ReadPickleOptions = {}): Promise<LoadedModel> {
  const notes: string[] = []
  const model = await readPickleFile(paths.model, options)
  const parts = inFile(paths.model, () => split(model))
  if (parts.classifier === undefined) {
    throw new ServiceError('ERR_MODEL_UNSUPPORTED', `no classifier found (the file holds ${describe(model)})`, { file: paths.model })
  }
  const versions: Record<string, string> = {}
  const modelVersion = versionOf(model)
  if (modelVersion !== undefined) versions[paths.model] = modelVersion
  let vectorizer: TextVectorizer
  let vectorizerFile: string
  if (parts.vectorizers.length > 0) {
    vectorizerFile = paths.model
    if ((paths.vectorizers ?? []).length > 0) notes.push(`${paths.model} holds its own vectorizer; ignoring ${(paths.vectorizers ?? []).join(', ')}`)
    vectorizer = inFile(paths.model, () => buildVectorizer(parts.vectorizers))
  } else {
    const files = paths.vectorizers ?? []
    if (files.length === 0) throw new ServiceError('ERR_MODEL_UNSUPPORTED', 'the model holds no vectorizer and no vectorizer file was given', { file: paths.model })
    const stages: PyValue[] = []
    for (const file of files) {
      const value = await readPickleFile(file, options)
      const v = versionOf(value)
      if (v !== undefined) versions[file] = v
      const found = inFile(file, () => split(value)).vectorizers
      if (found.length === 0) throw new ServiceError('ERR_MODEL_UNSUPPORTED', `no vectorizer found (the file holds ${describe(value)})`, { file })
      stages.push(...found)
    }
    vectorizerFile = files.join(', ')
    vectorizer = inFile(files[0]!, () => buildVectorizer(stages))
  }
  const { classifier, classes } = inFile(paths.model, () => buildClassifier(parts.classifier))
  if (classifier.nFeatures !== vectorizer.nFeatures) {
    throw new ServiceError('ERR_MODEL_SHAPE', `the vectorizer (${vectorizerFile}) has ${vectorizer.nFeatures} features but the classifier expects ${classifier.nFeatures}`, { file: paths.model })
  }
  const predictor = new TextClassifier(vectorizer, classifier, classes, { vectorizerParams: vectorizerParams(vectorizer), sklearnVersions: versions })
  return { predictor, notes }
}

function vectorizerParams (v: TextVectorizer): Record<string, unknown> {
  const { tfidf, binary, float32, analyzerOptions: a } = v.options
  return {
    analyzer: a.analyzer,
    ngram_range: a.ngramRange,
    lowercase: a.lowercase,
    strip_accents: a.stripAccents,
    ...(a.analyzer === 'word' ? { token_pattern: a.tokenPattern, stop_words: a.stopWords === null ? null : a.stopWords.size } : {}),
    binary,
    dtype: float32 ? 'float32' : 'float64',
    ...(tfidf === null ? {} : { norm: tfidf.norm, use_idf: tfidf.idf !== null, sublinear_tf: tfidf.sublinearTf })
  }
}
