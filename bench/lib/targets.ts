/** Issue 24's targets, read off one run's figures: each with its figure, its goal and whether it was met. */
import { CEILING_SERVERS } from '../sections/ceiling.js'
import type { Row } from './report.js'

/** The ceiling section's servers, by what each is here. */
const [, TASKS, MODEL_TASKS, SPEC_FLOOR, SERVICE, BATCHING] = CEILING_SERVERS

export interface Target {
  readonly target: string
  readonly figure: string
  readonly goal: string
  readonly met: boolean
}

interface Figures {
  readonly http: readonly Row[]
  /** The ceiling section's paired shares (sections/ceiling.ts), preferred to the http section's when run. */
  readonly ceiling?: ReadonlyArray<{ server: string, scenario: string, ofCeiling: number }>
  readonly startup: ReadonlyArray<{ model: string, workers: number, startupSeconds: number, rssAfterLoadMb: number }>
  /** The Python service's start-up timed in the start-up section (preferred: same section, same medians). */
  readonly baselineStartup?: ReadonlyArray<{ model: string, startupSeconds: number }>
  /** A process that only decodes each model: the floor under our start-up. */
  readonly decodeFloor?: ReadonlyArray<{ model: string, seconds: number }>
  /** The service started on a model with next to nothing to decode: the floor from everything else. */
  readonly serviceFloor?: { modelKb: number, seconds: number }
  readonly baselineMemory: ReadonlyArray<Record<string, unknown>>
  readonly batching: ReadonlyArray<{ setting: string, scenario: string, textsPerSecond: number, p99Ms: number }>
  readonly transports: ReadonlyArray<{ build: string, protocol: string, serverUs: number }>
}

const pct = (x: number): string => `${Math.round(x * 100)}%`

export function targetRows (f: Figures): Target[] {
  const out: Target[] = []
  const httpShare = (scenario: string): number | undefined => f.http.find(r => r.server === 'tfidf-serve' && r.model === 'default' && r.scenario === scenario)?.ofCeiling
  const noop = (server: string, scenario: string): Row | undefined => f.http.find(r => r.server === server && r.scenario === scenario)
  const paired = (server: string, scenario: string): number | undefined => f.ceiling?.find(r => r.server === server && r.scenario === scenario)?.ofCeiling
  for (const [scenario, goal] of [['batch50 c50', 0.6], ['single c10', 0.8]] as const) {
    const ceiling = noop('noop-express', scenario)
    const crossing = noop('noop-express-worker', scenario)
    // Side by side when the ceiling section ran; else the http section's runs one after another.
    const ours = paired(SERVICE, scenario) ?? httpShare(scenario)
    const shape = paired(TASKS, scenario) ?? (ceiling === undefined || crossing === undefined ? undefined : crossing.requestsPerSecond / ceiling.requestsPerSecond)
    const modelShape = paired(MODEL_TASKS, scenario)
    const specFloor = paired(SPEC_FLOOR, scenario)
    const batching = paired(BATCHING, scenario)
    const notes = [shape === undefined ? '' : `the ceiling with the design's worker tasks, classifying nothing: ${pct(shape)}`, modelShape === undefined ? '' : `the same tasks classifying with the model: ${pct(modelShape)}`, specFloor === undefined ? '' : `and doing what the spec asks of every request: ${pct(specFloor)}`, batching === undefined ? '' : `batching on: ${pct(batching)}`].filter(n => n !== '')
    if (ours !== undefined) out.push({ target: `spec route, ${scenario}, of the no-op Express ceiling`, figure: pct(ours) + (notes.length > 0 ? ` (${notes.join('; ')})` : ''), goal: `>= ${pct(goal)}`, met: ours >= goal })
  }
  const off = f.batching.find(r => r.setting === 'off' && r.scenario === 'single c50')
  const on = f.batching.find(r => r.setting !== 'off' && r.scenario === 'single c50')
  if (off !== undefined && on !== undefined) {
    const gain = on.textsPerSecond / off.textsPerSecond
    out.push({ target: `adaptive batching (${on.setting}), single c50, against off`, figure: `${gain.toFixed(2)}x`, goal: '>= 1.5x', met: gain >= 1.5 })
    const wait = Number(/, ([\d.]+) ms$/.exec(on.setting)?.[1] ?? NaN)
    out.push({ target: 'its p99 over the p99 with batching off', figure: `+${(on.p99Ms - off.p99Ms).toFixed(0)} ms`, goal: `<= ${wait} ms (the wait bound)`, met: on.p99Ms - off.p99Ms <= wait })
  }
  const spec = f.transports.find(r => r.build === 'this build' && r.protocol === 'spec /predict')
  for (const protocol of f.transports.filter(t => t.build === 'this build' && t.protocol !== 'spec /predict').map(t => t.protocol)) {
    const r = f.transports.find(t => t.build === 'this build' && t.protocol === protocol)
    if (spec !== undefined && r !== undefined) out.push({ target: `${protocol}: server CPU per text against the spec route`, figure: `${(r.serverUs / spec.serverUs).toFixed(2)}x`, goal: '<= 1.10x', met: r.serverUs / spec.serverUs <= 1.1 })
  }
  const large = f.startup.find(r => r.model === 'large' && r.workers === 2)
  if (large !== undefined) {
    out.push({ target: 'RSS after load, 200,000 features, 2 workers', figure: `${Math.round(large.rssAfterLoadMb)} MB`, goal: '<= 150 MB', met: large.rssAfterLoadMb <= 150 })
    const python = f.baselineStartup?.find(b => b.model === 'large')?.startupSeconds ?? f.baselineMemory.find(b => b.model === 'large' && b.workers === 1)?.startup_s as number | undefined
    const floor = f.decodeFloor?.find(d => d.model === 'large')?.seconds
    const service = f.serviceFloor
    const floorNote = python === undefined ? '' : [
      floor === undefined ? '' : `; a process that only decodes the model: ${floor.toFixed(2)} s, ${(floor / python).toFixed(2)}x`,
      service === undefined ? '' : `; the service on a ${Math.round(service.modelKb)} KB model: ${service.seconds.toFixed(2)} s, ${(service.seconds / python).toFixed(2)}x`
    ].join('')
    if (python !== undefined) out.push({ target: 'start-up to ready, 200,000 features, against the Python service', figure: `${(large.startupSeconds / python).toFixed(2)}x (${large.startupSeconds.toFixed(2)} s against ${python.toFixed(2)} s${floorNote})`, goal: '<= 0.55x', met: large.startupSeconds / python <= 0.55 })
  }
  return out
}
