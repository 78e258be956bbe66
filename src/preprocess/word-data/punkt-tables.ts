/** Punkt's four tables as plain data: what either layout gives, and what a compiled model carries. */
export interface PunktTables {
  readonly abbrevTypes: readonly string[]
  /** Pairs of types as `${first}\t${second}` (no type holds a tab). */
  readonly collocations: readonly string[]
  readonly sentStarters: readonly string[]
  readonly orthoContext: ReadonlyArray<readonly [string, number]>
}
