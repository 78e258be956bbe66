/**
 * A compiled file's estimator states, each checked by the module that creates it (through
 * the registry): a compiled file carries only what that module's `check` accepts.
 */
import type { Role } from '../sklearn/estimator.js'
import { checkEstimator } from '../sklearn/registry.js'

/**
 * Checks an estimator state read from a compiled file, and the states inside it.
 * @throws ServiceError ERR_MODEL_SHAPE naming the path of the first thing wrong.
 */
export function checkEstimatorState (role: Role, value: unknown, where: string): void {
  checkEstimator(role, value, where)
}
