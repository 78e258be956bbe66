/**
 * FeatureUnion of text vectorizers (word plus character n-grams, say) and Pipelines of a
 * vectorizer and steps, as scikit-learn 1.2 to 1.9 compute it: each member's row in
 * `transformer_list` order ('drop' left out), times its `transformer_weights` entry, side by
 * side (`sparse.hstack(...).tocsr()`: each block's entries in their order, columns offset
 * by the widths before it). The result is float64 unless every block is float32.
 */
import { PyTuple, type PyObject } from '../../pickle/values.js'
import { defineEstimator, type BuildContext, type CreateContext, type EstimatorState, type TermCoverage, type Vectorizer, type CheckContext } from '../estimator.js'
import { attr, describe, items, param, unsupported } from '../record.js'
import type { SparseRow } from '../sparse-row.js'
import { Fields } from '../state-fields.js'

interface UnionMember {
  readonly name: string
  readonly state: EstimatorState
  /** transformer_weights[name], or null. */
  readonly weight: number | null
}

interface FeatureUnionState extends EstimatorState {
  readonly members: readonly UnionMember[]
}

function build (obj: PyObject, ctx: BuildContext): FeatureUnionState {
  const weights = param(obj, 'transformer_weights', null)
  if (weights !== null && !(weights instanceof Map)) unsupported(`${obj.name}.transformer_weights is ${describe(weights)}, not a dict`)
  const members: UnionMember[] = []
  for (const entry of items(attr(obj, 'transformer_list'), `${obj.name}.transformer_list`)) {
    const [name, est] = entry instanceof PyTuple ? entry.items : Array.isArray(entry) ? entry : []
    if (typeof name !== 'string') return unsupported(`${obj.name}.transformer_list holds ${describe(entry)}, not a (name, transformer) pair`)
    if (est === 'drop' || est === null) continue
    if (est === 'passthrough') unsupported(`${obj.name} member '${name}' is 'passthrough', which passes raw text on`)
    const weight = weights?.get(name) ?? null
    if (weight !== null && typeof weight !== 'number') unsupported(`${obj.name}.transformer_weights['${name}'] is ${describe(weight)}`)
    members.push({ name, state: ctx.build('vectorizer', est, `${obj.name} member '${name}'`), weight })
  }
  if (members.length === 0) unsupported(`${obj.name} has no member left`)
  return { type: 'feature-union', kind: obj.name, members }
}

function create (state: FeatureUnionState, ctx: CreateContext): Vectorizer {
  const members = state.members.map(m => ({ ...m, vectorizer: ctx.create('vectorizer', m.state) }))
  const offsets = members.map((_, i) => members.slice(0, i).reduce((sum, m) => sum + m.vectorizer.nFeatures, 0))
  const nFeatures = offsets[offsets.length - 1]! + members[members.length - 1]!.vectorizer.nFeatures
  const mixed = members.find(m => m.vectorizer.featureName === undefined)
  return {
    kind: `FeatureUnion(${members.map(m => m.vectorizer.kind).join(', ')})`,
    nFeatures,
    // get_feature_names_out's names: the member's name, '__', its own name for the feature.
    ...(mixed === undefined
      ? {
          featureName: (j: number) => {
            let i = members.length - 1
            while (offsets[i]! > j) i--
            const inner = members[i]!.vectorizer.featureName!(j - offsets[i]!)
            return inner === undefined ? undefined : `${members[i]!.name}__${inner}`
          }
        }
      : { mixedBy: mixed.vectorizer.mixedBy }),
    params: Object.fromEntries(members.map(m => [m.name, { ...m.vectorizer.params, ...(m.weight === null ? {} : { weight: m.weight }) }])),
    transform: (text: string, coverage?: TermCoverage): SparseRow => {
      const rows = members.map(m => m.vectorizer.transform(text, coverage))
      const length = rows.reduce((n, r) => n + r.indices.length, 0)
      const indices = new Int32Array(length)
      const values = new Float64Array(length)
      let at = 0
      rows.forEach((r, i) => {
        // csr * w, applied as the blocks are joined: a Python float keeps a float32 block float32.
        const w = members[i]!.weight
        for (let e = 0; e < r.indices.length; e++) {
          const v = r.values[e]!
          indices[at] = r.indices[e]! + offsets[i]!
          values[at++] = w === null ? v : r.float32 ? Math.fround(v * w) : v * w
        }
      })
      // sp.hstack keeps integer blocks integer; a weight (a Python float) makes them float64
      const integer = rows.every((r, i) => r.integer === true && members[i]!.weight === null)
      return { indices, values, float32: rows.every(r => r.float32), ...(integer ? { integer } : {}) }
    }
  }
}

/** What create and scoring rely on in a FeatureUnionState (from a compiled file, or just built). */
function check (state: unknown, where: string, ctx: CheckContext): asserts state is FeatureUnionState {
  const f = new Fields(state, where)
  f.list('members', 1).forEach((m, i) => {
    const member = new Fields(m, `${where}.members[${i}]`)
    member.string('name')
    member.nullable('weight', name => member.number(name))
    ctx.check('vectorizer', member.value('state'), `${member.where}.state`)
  })
}

export const featureUnion = defineEstimator<FeatureUnionState, 'vectorizer'>({
  type: 'feature-union',
  role: 'vectorizer',
  names: ['FeatureUnion'],
  build,
  check,
  create
})
