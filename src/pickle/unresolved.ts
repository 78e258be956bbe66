/**
 * Refused globals kept as inert placeholders, for a reader that defers the refusal.
 *
 * The strict reader refuses a file at the first global the allow-list does not hold. A
 * scikit-learn search object (GridSearchCV) carries data no model uses: its scorer's
 * metric function, the scipy.stats distributions it sampled from, a splitter. A reader
 * that is given `onRefusedGlobal` (unpickler.ts) instead turns each refused global into a
 * `RefusedGlobal` and every value made from it into an `Unresolved`: nothing is called,
 * nothing is looked up, and the file's reader decides later, knowing which parts of the
 * file a model uses, whether to refuse it, with the error the strict reader would have
 * thrown (same message, same byte offset).
 */
import { ServiceError } from '../errors.js'
import type { Buildable, PyValue } from './values.js'

/** One GLOBAL / STACK_GLOBAL / INST of a name the allow-list refused, where it was read. */
export class RefusedGlobal {
  /**
   * @param module and `name` as the file spells them (Python 2 names unmapped, as the strict message shows them).
   * @param detail the strict reader's message, e.g. "unsupported object 'os.system'".
   * @param offset the byte offset of the opcode that named it.
   */
  constructor (readonly module: string, readonly name: string, readonly detail: string, readonly offset: number) {}

  get qualifiedName (): string {
    return `${this.module}.${this.name}`
  }

  /** The error the strict reader throws at this global (the caller adds the file). */
  toError (): ServiceError {
    return new ServiceError('ERR_PICKLE_GLOBAL_NOT_ALLOWED', this.detail, { offset: this.offset })
  }
}

/**
 * A value made from a refused global: the global itself, a call of it, an object of its
 * class, or a call of an allowed function with it as an argument. It keeps what it was given
 * (`parts`: arguments, BUILD state, appended items) only so that walks can see the values
 * inside it; it is never read as anything else.
 */
export class Unresolved implements Buildable {
  readonly parts: PyValue[]

  constructor (readonly global: RefusedGlobal, parts: readonly PyValue[] = []) {
    this.parts = parts.slice()
  }

  get qualifiedName (): string {
    return this.global.qualifiedName
  }

  setState (state: PyValue): void {
    this.parts.push(state)
  }
}
