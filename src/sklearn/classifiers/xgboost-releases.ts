/**
 * The xgboost releases whose XGBClassifier files are served, each checked against that
 * release run on fixtures (1.7.4 from Debian; 2.0.3, 2.1.1, 3.0.0 and 3.2.0 built from their
 * public source: test/fixtures/xgboost/README.md), and what differs between them that a
 * prediction sees: how `base_score` is stored and how it becomes the starting margin.
 *
 * - 1.7 .. 3.0 store one float (`"5E-1"`, `"1.8533333E-1"`: xgboost's to_chars), which 2.0+
 *   estimates from the training labels unless it was given. Every margin starts from
 *   ProbToMargin of it: -logf(1/b - 1) for binary:logistic (which CHECKs 0 < b < 1), b itself
 *   for the softmax objectives, every class alike.
 * - 3.1+ store a vector (`"[1.8533333E-1]"`, one per class for multi-class: ParamArray's
 *   JSON), a one-item vector standing for every class (HandleOldFormat). The softmax
 *   objectives estimate each class's margin (log of its share less the mean of those logs)
 *   and keep it as it is; binary:logistic accepts 0 <= b <= 1, clamps b into
 *   [1e-6, 1 - 1e-6] and takes Logit, -logf(1/b - 1) (src/objective/regression_loss.h).
 */
import { glibcLogf } from '../float32.js'
import { shapeError, unsupported } from '../record.js'

export interface Release {
  /** major.minor: a release line, its patch releases alike. */
  readonly line: string
  /** The release the fixtures were made with. */
  readonly checked: string
  /** base_score is a JSON array of float32s (3.1+), else one float. */
  readonly interceptVector: boolean
  /** predict reads best_iteration from the learner's attributes (2.0+), else from the Booster's Python attribute. */
  readonly bestIterationInLearner: boolean
}

const RELEASES: readonly Release[] = [
  { line: '1.7', checked: '1.7.4', interceptVector: false, bestIterationInLearner: false },
  { line: '2.0', checked: '2.0.3', interceptVector: false, bestIterationInLearner: true },
  { line: '2.1', checked: '2.1.1', interceptVector: false, bestIterationInLearner: true },
  { line: '3.0', checked: '3.0.0', interceptVector: false, bestIterationInLearner: true },
  { line: '3.2', checked: '3.2.0', interceptVector: true, bestIterationInLearner: true }
]

const LATEST = RELEASES[RELEASES.length - 1]!

/** The lines served, for messages: "1.7, 2.0, 2.1, 3.0 and 3.2". */
function servedLines (): string {
  const lines = RELEASES.map(r => r.line)
  return `${lines.slice(0, -1).join(', ')} and ${lines[lines.length - 1]!}`
}

/**
 * The release line a Booster's `version` belongs to.
 * @throws ServiceError ERR_MODEL_UNSUPPORTED for a release no fixture checks, saying what to do.
 */
export function releaseOf (version: string): Release {
  const line = version.split('.').slice(0, 2).join('.')
  const release = RELEASES.find(r => r.line === line)
  if (release !== undefined) return release
  return unsupported(`XGBClassifier written by xgboost ${version} is not supported: tfidf-serve reproduces xgboost ${servedLines()} exactly ` +
    `(checked against ${RELEASES.map(r => r.checked).join(', ')}) and no other release; save the model with one of those, ` +
    `e.g. train it, or load it and pickle it again, under pip install 'xgboost==${LATEST.line}.*'`)
}

// What xgboost's to_chars and JSON writer print for a float32: digits, '.', exponent.
const FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

function float32Of (text: string, what: string): number {
  const v = FLOAT.test(text) ? Math.fround(Number(text)) : Number.NaN
  // A shortest float32 decimal rounds to that float32 through a double.
  if (!Number.isFinite(v)) shapeError(`${what} is ${JSON.stringify(text)}, not a finite number`)
  return v
}

/** The stored base_score values, as float32s: one, or one per margin. */
function interceptsOf (release: Release, text: string, nGroups: number): number[] {
  const what = 'learner_model_param.base_score'
  if (!release.interceptVector) return [float32Of(text, what)]
  const inner = /^\[(.*)\]$/s.exec(text.trim())
  if (inner === null) return shapeError(`${what} is ${JSON.stringify(text)}, not the array xgboost ${release.line} writes`)
  const values = inner[1]!.split(',').map(item => float32Of(item.trim(), what))
  // LearnerModelParamLegacy::ValidateLength: one intercept, or one per output.
  if (values.length !== 1 && values.length !== nGroups) shapeError(`${what} has ${values.length} values for ${nGroups} margins`)
  return values
}

/**
 * The float32 margin each output starts from (LearnerModelParam's base score after the
 * objective's ProbToMargin), from the stored base_score text.
 * @param binary whether the objective is binary:logistic (one margin).
 * @returns the base margins, one per output, and the stored values (for the model's params).
 */
export function baseMarginsOf (release: Release, text: string, binary: boolean, nGroups: number): { margins: Float32Array, stored: number[] } {
  const stored = interceptsOf(release, text, nGroups)
  const margins = new Float32Array(nGroups)
  if (!binary) {
    margins.set(stored.length === 1 ? new Array<number>(nGroups).fill(stored[0]!) : stored)
    return { margins, stored }
  }
  let b = stored[0]!
  if (release.interceptVector) {
    // LogisticRegression::CheckIntercept accepts the degenerate 0 and 1, then ProbToMargin clamps.
    if (!(b >= 0 && b <= 1)) shapeError(`base_score ${text} is outside [0, 1], which binary:logistic requires`)
    b = Math.min(Math.max(b, Math.fround(1e-6)), Math.fround(1 - Math.fround(1e-6)))
  } else if (!(b > 0 && b < 1)) {
    shapeError(`base_score ${text} is outside (0, 1), which binary:logistic requires`)
  }
  margins[0] = -glibcLogf(Math.fround(Math.fround(1 / b) - 1))
  return { margins, stored }
}
