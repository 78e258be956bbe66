import { expect } from 'chai'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { PyObject } from '../../src/pickle/values.js'
import type { Role } from '../../src/sklearn/estimator.js'
import { buildEstimator } from '../../src/sklearn/registry.js'
import { FIXTURES } from './paths.js'

/** A record of test/fixtures/estimators (e.g. '1.9.1/tree-gini/final_best_model.pkl'), read afresh: tests corrupt it. */
export async function fixtureRecord (file: string): Promise<PyObject> {
  const value = await readPickleFile(path.join(FIXTURES, 'estimators', file))
  expect(value).to.be.instanceOf(PyObject)
  return value as PyObject
}

/** A record's attributes, to edit in place. */
export function stateOf (obj: PyObject): Map<unknown, unknown> {
  return obj.state as Map<unknown, unknown>
}

/** The ServiceError `run` throws; fails the test if it throws nothing or anything else. */
export function errorOf (run: () => unknown): ServiceError {
  try {
    run()
  } catch (err) {
    expect(err).to.be.instanceOf(ServiceError)
    return err as ServiceError
  }
  return expect.fail('no error was thrown')
}

/** The ServiceError building `record` in `role` throws. */
export function buildError (record: PyObject, role: Role = 'classifier'): ServiceError {
  return errorOf(() => buildEstimator(role, record))
}
