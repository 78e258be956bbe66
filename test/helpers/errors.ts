import { expect } from 'chai'
import { ServiceError } from '../../src/errors.js'

/** The ServiceError `run` rejects with; fails the test if it resolves or throws anything else. */
export async function serviceErrorOf (run: () => Promise<unknown>): Promise<ServiceError> {
  let caught: unknown
  try {
    await run()
  } catch (err) {
    caught = err
  }
  expect(caught).to.be.instanceOf(ServiceError)
  return caught as ServiceError
}
