/**
 * Piscina, loaded with require() rather than imported. It is CommonJS: imported, Node 20 reads
 * its ES module wrapper and has cjs-module-lexer scan its entry for names first, about 8 ms
 * of the front thread's CPU that came before the workers could be spawned (18-20 ms imported,
 * 10-12 ms required). Required or imported, it is the same module (package.json's "require"
 * and "import" conditions both lead to dist/main.js).
 */
import { createRequire } from 'node:module'
import type * as PiscinaModule from 'piscina'

const piscina = createRequire(import.meta.url)('piscina') as typeof PiscinaModule

export const Piscina = piscina.Piscina
export type Piscina<T = unknown, R = unknown> = PiscinaModule.Piscina<T, R>
export const queueOptionsSymbol: typeof PiscinaModule.queueOptionsSymbol = piscina.queueOptionsSymbol
export type { TaskQueue } from 'piscina'
