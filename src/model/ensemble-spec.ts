/**
 * What loads an ensemble, as its settings declare it: read by the repository's layout (and
 * the command line) before anything is decoded, so it imports no decoder or estimator.
 */
import type { EnsembleMemberSettings, LabelSource, ModelSettings, CombineRule, TieRule } from '../settings/model-settings.js'
import type { ModelPaths } from '../sklearn/load-model.js'

/** One member as the load found it: a model file with its settings file, or another model's. */
export interface EnsembleMemberSpec {
  readonly name: string
  readonly weight: number
  readonly paths: ModelPaths
  readonly settingsFile: string | null
  /** The member's own label names, which replace its settings' (a file member's `labels`). */
  readonly labels?: LabelSource | null
}

/** What loads an ensemble: its rule and its members, and its settings file (for messages). */
export interface EnsembleSpec {
  readonly file: string
  readonly combine: CombineRule
  readonly ties: TieRule | null
  readonly separator: string
  readonly members: readonly EnsembleMemberSpec[]
}

/**
 * The spec of the ensemble `settings` declare: file members read with those settings (as the
 * folder would serve each file alone), models named by `resolveModel` (the repository finds
 * their folders; the command line has none).
 * @returns the spec, or the first member's problem (one line).
 */
export function ensembleSpecOf (settings: ModelSettings, resolveModel: (member: Extract<EnsembleMemberSettings, { kind: 'model' }>) => EnsembleMemberSpec | string): EnsembleSpec | string {
  const declared = settings.ensemble
  if (declared === null) return 'the settings declare no ensemble'
  const members: EnsembleMemberSpec[] = []
  for (const m of declared.members) {
    const member = m.kind === 'file' ? { name: m.name, weight: m.weight, paths: { model: m.model, vectorizers: m.vectorizers }, settingsFile: settings.file, labels: m.labels } : resolveModel(m)
    if (typeof member === 'string') return member
    members.push(member)
  }
  return { file: settings.file, combine: declared.combine, ties: declared.ties, separator: declared.separator, members }
}
