import type { ServiceContext } from '../service/context.js'
import type { BodyValidator } from './validate.js'

/** What the HTTP routes share: the service's context and the request bodies' validators. */
export interface AppContext extends ServiceContext {
  /** The request bodies' validators, compiled once from the limits. */
  readonly validator: BodyValidator
}
