/**
 * scikit-learn (and imbalanced-learn) Pipelines on the text side: the steps a Pipeline record holds, a vectorizer
 * chained with the steps after it (each width checked against the next), and a Pipeline
 * of a vectorizer and steps as a vectorizer of its own (inside a FeatureUnion).
 */
import { PyObject, PyTuple, isPyObject, type PyValue } from '../pickle/values.js'
import { defineEstimator, type EstimatorState, type Step, type Vectorizer, type CheckContext } from './estimator.js'
import { attr, items, shapeError, sklearnClass, unsupported } from './record.js'
import { Fields } from './state-fields.js'

/** Whether a value is imbalanced-learn's Pipeline (`imblearn.pipeline.Pipeline`), which may hold samplers. */
export function isImblearnPipeline (value: PyValue): value is PyObject {
  return isPyObject(value, 'imblearn.pipeline.Pipeline')
}

/** Whether a value is a scikit-learn or an imbalanced-learn Pipeline. */
export function isPipeline (value: PyValue): value is PyObject {
  return sklearnClass(value) === 'Pipeline' || isImblearnPipeline(value)
}

/**
 * Whether a value is an imbalanced-learn sampler: a class that has `fit_resample`, which are
 * those of `imblearn.over_sampling`, `imblearn.under_sampling`, `imblearn.combine` and
 * `FunctionSampler` (imbalanced-learn 0.10 to 0.13). Nothing of it is read: prediction skips it.
 */
export function isSampler (value: PyValue): boolean {
  return value instanceof PyObject && (/^imblearn\.(over_sampling|under_sampling|combine)\./.test(value.module) || (value.module.startsWith('imblearn.') && value.name === 'FunctionSampler'))
}

/**
 * The estimators of a Pipeline record, 'passthrough' and None steps left out, and in an
 * imbalanced-learn Pipeline its samplers too: they resample only while fitting, and imblearn's
 * `Pipeline._iter(filter_resample=True)` skips every step with `fit_resample` when it
 * predicts (imblearn/pipeline.py, 0.10).
 */
export function pipelineSteps (pipeline: PyObject): PyValue[] {
  const imblearn = isImblearnPipeline(pipeline)
  return items(attr(pipeline, 'steps'), `${pipeline.name}.steps`)
    .map(step => step instanceof PyTuple && step.length >= 2 ? step.items[1] : undefined)
    .filter(est => est !== null && est !== 'passthrough' && est !== undefined && !(imblearn && isSampler(est)))
}

/** A vectorizer and the steps after it, as one Vectorizer (checked: each width fits the next). */
export function chainSteps (vectorizer: Vectorizer, steps: readonly Step[]): Vectorizer {
  let width = vectorizer.nFeatures
  let from = `the vectorizer (${vectorizer.kind})`
  for (const step of steps) {
    // -1: a step that takes any width (Normalizer, a TfidfTransformer without idf).
    if (step.nFeaturesIn >= 0 && step.nFeaturesIn !== width) shapeError(`${from} has ${width} features but ${step.kind} expects ${step.nFeaturesIn}`)
    if (step.nFeaturesOut >= 0) width = step.nFeaturesOut
    from = step.kind
  }
  if (steps.length === 0) return vectorizer
  const mixing = steps.find(s => s.sourceFeature === undefined)
  const names = vectorizer.featureName
  const source = (j: number): number => steps.reduceRight((k, step) => step.sourceFeature!(k), j)
  return {
    kind: [vectorizer.kind, ...steps.map(s => s.kind)].join(' + '),
    nFeatures: width,
    params: vectorizer.params,
    transform: (text, coverage) => steps.reduce((row, step) => step.transform(row), vectorizer.transform(text, coverage)),
    // A feature after steps that keep features apart is the vectorizer's feature it came from.
    ...(mixing === undefined && names !== undefined
      ? { featureName: (j: number) => names(source(j)), sourceFeature: source }
      : { mixedBy: mixing?.kind ?? vectorizer.mixedBy })
  }
}

interface TextPipelineState extends EstimatorState {
  readonly vectorizer: EstimatorState
  readonly steps: readonly EstimatorState[]
}

/** What create and scoring rely on in a TextPipelineState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is TextPipelineState {
  const f = new Fields(state, where)
  ctx.check('vectorizer', f.value('vectorizer'), `${where}.vectorizer`)
  f.list('steps').forEach((s, i) => ctx.check('step', s, `${where}.steps[${i}]`))
}

/** A Pipeline inside a FeatureUnion: a vectorizer, then steps (a classifier in it is refused as a step). */
export const textPipeline = defineEstimator<TextPipelineState, 'vectorizer'>({
  type: 'text-pipeline',
  role: 'vectorizer',
  names: ['Pipeline'],
  build: (obj, ctx) => {
    const [first, ...rest] = pipelineSteps(obj)
    if (first === undefined) unsupported(`${obj.name} has no steps`)
    return {
      type: 'text-pipeline',
      kind: obj.name,
      vectorizer: ctx.build('vectorizer', first, `${obj.name} first step`),
      steps: rest.map((s, i) => ctx.build('step', s, `${obj.name} step ${i + 2}`))
    }
  },
  check,
  create: (state, ctx) => chainSteps(ctx.create('vectorizer', state.vectorizer), state.steps.map(s => ctx.create('step', s)))
})
