/**
 * A compiled file's tree checked as a model: a single model's state (its text steps,
 * vectorizer, steps and classifier, each by check-estimators.ts, its versions and labels) or
 * an ensemble's members, each with the settings its load read (their declared preprocessing
 * checked by the settings' own schema), and the notes of its load.
 */
import type { AnyModelState, EnsembleState } from '../model/ensemble.js'
import type { AppSource, ServedModelState } from '../model/served-model.js'
import type { FunctionsModule } from '../preprocess/user-functions.js'
import { withUserFunctions, type UserFunctions } from '../preprocess/user-functions.js'
import { preprocessProblem } from '../settings/model-settings.js'
import { Fields, shapeProblem } from '../sklearn/state-fields.js'
import { checkEstimatorState } from './check-estimators.js'
import { checkStepData } from './check-step-data.js'

/** The path every message starts from: the tree's parts, named as in a compiled file. */
const AT = 'compiled model: '

/** At most this many notes and members: a load makes a handful. */
const MAX_LIST = 10_000

export function checkNotes (value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length > MAX_LIST || !value.every(n => typeof n === 'string')) throw shapeProblem(`${AT}notes`, 'are not a list of lines')
  return value as string[]
}

function checkFunctionsModule (value: unknown, where: string): FunctionsModule {
  const f = new Fields(value, where)
  const sha256 = f.string('sha256')
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw shapeProblem(`${where}.sha256`, 'is not a SHA-256')
  return { file: f.string('file'), source: f.string('source'), sha256 }
}

/** The settings a load read, as far as building the model uses them: preprocessing, columns, the functions module, the data its steps read. */
export function checkApp (value: unknown, where: string): AppSource | null {
  if (value === null) return null
  const f = new Fields(value, where)
  const settings = f.object('settings')
  settings.string('file')
  settings.string('name')
  settings.nullable('functions', name => settings.string(name))
  const problem = preprocessProblem(settings.value('preprocess'))
  if (problem !== undefined) throw shapeProblem(`${where}.settings`, problem)
  settings.list('columns').forEach((c, i) => {
    const column = new Fields(c, `${where}.settings.columns[${i}]`)
    column.string('function')
    column.int('width', 1)
  })
  f.nullable('functions', name => checkFunctionsModule(f.value(name), `${where}.${name}`))
  checkStepData(f.value('data'), `${where}.data`)
  return value as AppSource
}

/** The app's ported functions (the one module the serving settings name), for the states whose load used one. */
export type FunctionsFor = (app: AppSource | null) => UserFunctions | null

function checkServedState (value: unknown, where: string, functions: UserFunctions | null): ServedModelState {
  // The analyzer's own callables are looked up as the pickle path looks them up: among the app's functions.
  return withUserFunctions(functions, () => checkServedStateNow(value, where))
}

function checkServedStateNow (value: unknown, where: string): ServedModelState {
  const f = new Fields(value, where)
  f.list('textSteps').forEach((s, i) => { new Fields(s, `${where}.textSteps[${i}]`).string('name') })
  checkEstimatorState('vectorizer', f.value('vectorizer'), `${where}.vectorizer`)
  const steps = f.list('steps')
  steps.forEach((s, i) => checkEstimatorState('step', s, `${where}.steps[${i}]`))
  checkEstimatorState('classifier', f.value('classifier'), `${where}.classifier`)
  const versions = f.object('sklearnVersions')
  for (const [k, v] of Object.entries(f.value('sklearnVersions') as object)) if (typeof v !== 'string') throw shapeProblem(`${versions.where}.${k}`, 'is not a version string')
  if (f.has('search')) {
    const search = f.object('search')
    search.string('wrappedBy')
    search.nullable('bestParams', name => search.object(name))
  }
  if (f.has('modelFileSteps')) f.int('modelFileSteps', 1, steps.length)
  const labels = f.nullable('labels', name => f.strings(name, 1))
  const classes = new Fields(f.value('classifier'), `${where}.classifier`).strings('classes', 1)
  if (labels !== null && labels.length !== classes.length) throw shapeProblem(`${where}.labels`, `name ${labels.length} classes of ${classes.length}`)
  return value as ServedModelState
}

function checkEnsembleState (value: unknown, where: string, functionsFor: FunctionsFor): EnsembleState {
  const e = new Fields(value, where).object('ensemble')
  e.oneOf('combine', ['vote', 'mean', 'join'])
  e.oneOf('ties', ['first', 'lowest', null])
  e.string('separator')
  const members = e.list('members', 2)
  if (members.length > MAX_LIST) throw shapeProblem(`${e.where}.members`, 'are too many')
  members.forEach((m, i) => {
    const member = new Fields(m, `${e.where}.members[${i}]`)
    member.string('name')
    if (!(member.number('weight') > 0)) throw shapeProblem(`${member.where}.weight`, 'is not above 0')
    checkServedState(member.value('state'), `${member.where}.state`, functionsFor(checkApp(member.value('app'), `${member.where}.app`)))
  })
  return value as EnsembleState
}

/**
 * Checks a compiled file's model state, single or ensemble.
 * @throws ServiceError ERR_MODEL_SHAPE (or ERR_MODEL_UNSUPPORTED) naming the path of the first thing wrong.
 */
export function checkModelState (value: unknown, app: AppSource | null, functionsFor: FunctionsFor): AnyModelState {
  const f = new Fields(value, `${AT}state`)
  return f.has('ensemble') ? checkEnsembleState(value, f.where, functionsFor) : checkServedState(value, f.where, functionsFor(app))
}

/** The settings of every load the file holds (the model's, or each ensemble member's), checked. */
export function appsOf (state: unknown, app: unknown): Array<AppSource | null> {
  const f = new Fields(state, `${AT}state`)
  if (!f.has('ensemble')) return [checkApp(app, `${AT}app`)]
  const members = f.object('ensemble').list('members')
  return members.map((m, i) => checkApp(new Fields(m, `${AT}state.ensemble.members[${i}]`).value('app'), `${AT}state.ensemble.members[${i}].app`))
}
