/** Limits every transport shares, so the CLI, HTTP and gRPC take them from one place. */

/**
 * Largest request a transport takes, in bytes: an HTTP body, a gRPC message (SPEC's 1 MiB).
 * A coded (gzip, deflate, br) body may inflate to four times this, no more.
 */
export const BODY_LIMIT = 1024 * 1024

/** Most features an explanation lists per text (`top_k`, `--top-k`), and how many by default. */
export const MAX_TOP_K = 100
export const DEFAULT_TOP_K = 10
