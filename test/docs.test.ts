/**
 * The examples of README.md and docs/*.md cannot rot: every block marked runnable is run, and
 * must print what it shows.
 *
 * - `<!-- run -->` on the line before a ```sh block: each `$ command` runs, in order, in one
 *   scratch folder per page (holding links to models/ and test/, whose fixtures examples use), so a page's later blocks see the files
 *   its earlier ones made. `curl` goes to a real service on 127.0.0.1 with the default model and
 *   settings, or to the one the block started with `[VAR=value ...] npm start`; `npx tfidf-serve`
 *   is the built CLI; `mkdir`, `cp`, `printf`, `cat`, `echo` run in bash. A command must succeed
 *   (the CLI's exit 0, an HTTP status below 400). The lines a command shows after it are what it
 *   must print: JSON compared whole, with the values that change from run to run (times, memory,
 *   counters, ids) compared by their JSON type only; other lines exactly, a line ending in `...`
 *   by what comes before it, and a line `...` standing for any number of lines.
 * - `<!-- settings -->` (or `<!-- settings: PATH -->`, written to PATH in the scratch folder)
 *   before a ```json block: a model-settings.json, which must pass the settings reader and load
 *   the model it names against the files beside it (`tfidf-serve inspect --settings`, exit 0):
 *   those an earlier block copied there, or with `<!-- settings: PATH with FOLDER -->` the files
 *   of FOLDER (in the repository) linked beside it first, or else the default model's.
 *   `<!-- keys -->` (or `<!-- keys: PATH -->`) likewise for an API key file (read only).
 * - `<!-- fragment -->` before a ```json block: part of a settings file, shown alone. A ```json
 *   block that declares settings (`"op"`, `"preprocess"`, `"tfidf_serve"`, `"ensemble"`,
 *   `"labels"`) is marked one way or the other.
 * - A ```sh block with a `$ ` prompt that is not marked runnable fails the test: a shown
 *   command is one a reader will type.
 *
 * The troubleshooting page must name every error code of src/errors.ts.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readKeyFile } from '../src/access/key-file.js'
import { ERROR_CODES } from '../src/errors.js'
import { readModelSettings } from '../src/settings/model-settings.js'
import { runCli } from './helpers/cli.js'
import { ROOT } from './helpers/paths.js'
import { readyPort, start, type Run } from './helpers/processes.js'
import { listen, startService, type Listening, type Service } from './helpers/service.js'

/** Fields whose values differ between runs: only their JSON type is compared. */
const VOLATILE = new Set(['processing_time', 'timestamp', 'used', 'available', 'percentage', 'memory_usage_mb', 'uptime_seconds', 'predictions_total', 'predictions_per_second', 'average_response_time', 'cache_hit_rate', 'request_id', 'sha256'])
/** Keys that make a ```json block a settings example. */
const SETTINGS_KEYS = /"(op|preprocess|tfidf_serve|ensemble|labels)":/
/** Commands run as they are, by bash, in the scratch folder: they only make files. */
const SHELL_COMMANDS = new Set(['mkdir', 'cp', 'printf', 'cat', 'echo'])

interface Command { readonly text: string, readonly output: readonly string[], readonly line: number }
interface Block { readonly page: string, readonly line: number, readonly kind: 'run' | 'settings' | 'keys' | 'fragment' | 'unmarked', readonly target?: string, readonly models?: string, readonly body: readonly string[] }

const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter(f => f.endsWith('.md')).sort().map(f => `docs/${f}`)]

/** The fenced blocks of a page that are marked, and the unmarked sh blocks. */
function blocks (page: string): Block[] {
  const lines = readFileSync(path.join(ROOT, page), 'utf8').split('\n')
  const out: Block[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = lines[i]!
    if (!fence.startsWith('```')) continue
    let end = i + 1
    while (end < lines.length && !lines[end]!.startsWith('```')) end++
    const marker = /^<!-- (run|settings|keys|fragment)(?::\s*(\S+)(?: with (\S+))?)? -->$/.exec(lines[i - 1] ?? '')
    const body = lines.slice(i + 1, end)
    if (marker !== null) out.push({ page, line: i + 1, kind: marker[1] as Block['kind'], target: marker[2], models: marker[3], body })
    else if (fence === '```sh' || fence === '```json') out.push({ page, line: i + 1, kind: 'unmarked', body })
    i = end
  }
  return out
}

/** The `$ command` lines of a block (with `\` continuations) and the lines each shows. */
function commands (block: Block): Command[] {
  const out: Array<{ text: string, output: string[], line: number }> = []
  for (let i = 0; i < block.body.length; i++) {
    const line = block.body[i]!
    if (line.startsWith('$ ')) {
      let text = line.slice(2)
      const at = block.line + i + 1
      while (text.endsWith('\\')) text = text.slice(0, -1) + (block.body[++i] ?? '').trim()
      out.push({ text, output: [], line: at })
    } else if (out.length > 0 && line.trim() !== '') {
      out[out.length - 1]!.output.push(line)
    }
  }
  return out
}

/** Splits a shell command into words, honouring single quotes (all the docs use). */
function words (command: string): string[] {
  const out: string[] = []
  const re = /'([^']*)'|(\S+)/g
  for (let m = re.exec(command); m !== null; m = re.exec(command)) out.push(m[1] ?? m[2]!)
  return out
}

/** Replaces the volatile fields' values by their JSON type. */
function stable (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) ? `<${typeof v}>` : stable(v)]))
  }
  return value
}

function parsed (line: string): unknown {
  try {
    return stable(JSON.parse(line))
  } catch {
    return undefined
  }
}

/** Whether `printed` is what `shown` shows: JSON whole, modulo volatile values; `abc...` a line starting abc; `...` any lines. */
function matches (printed: readonly string[], shown: readonly string[]): boolean {
  if (shown.length === 0) return printed.length === 0
  const [first, ...rest] = shown
  if (first === '...') return printed.some((_, i) => matches(printed.slice(i), rest)) || matches([], rest)
  if (printed.length === 0) return false
  const json = parsed(first!)
  const same = json !== undefined
    ? JSON.stringify(parsed(printed[0]!)) === JSON.stringify(json)
    : first!.endsWith('...') ? printed[0]!.startsWith(first!.slice(0, -3)) : printed[0] === first
  return same && matches(printed.slice(1), rest)
}

/** What a command printed, and why it failed when it did (a status of 400 or more, an exit code). */
interface Printed { readonly lines: readonly string[], readonly failed?: string }

async function runCurl (args: string[], port: number): Promise<Printed> {
  let method = 'GET'
  let body: string | undefined
  const headers: Record<string, string> = {}
  let url = ''
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-s') continue
    if (a === '-X') method = args[++i]!
    else if (a === '-H') {
      const [k, ...v] = args[++i]!.split(':')
      headers[k!.trim()] = v.join(':').trim()
    } else if (a === '-d') {
      body = args[++i]!
      if (method === 'GET') method = 'POST'
    } else if (a.startsWith('localhost:8000')) url = a.replace('localhost:8000', `http://127.0.0.1:${port}`)
    else throw new Error(`curl option ${a} is not understood by this test`)
  }
  const res = await fetch(url, { method, headers, body })
  const text = await res.text()
  return { lines: [text], failed: res.status >= 400 ? `HTTP ${res.status}` : undefined }
}

/** One page's scratch folder and the service its current block started, if any. */
interface PageRun { readonly dir: string, started?: Run, port?: number }

async function runCommand (command: Command, run: PageRun, defaultPort: () => Promise<number>): Promise<Printed> {
  const all = words(command.text)
  let env: Record<string, string> = {}
  while (all.length > 0 && /^[A-Z_]+=/.test(all[0]!)) {
    const [name, ...value] = all.shift()!.split('=')
    env = { ...env, [name!]: value.join('=') }
  }
  const [first, ...rest] = all
  if (first === 'npm' && rest.join(' ') === 'start') {
    run.started = start(env, run.dir)
    run.port = await readyPort(run.started)
    return { lines: [] }
  }
  if (Object.keys(env).length > 0) throw new Error(`only npm start takes settings here: ${command.text}`)
  if (first === 'curl') return await runCurl(rest, run.port ?? await defaultPort())
  const pipe = all.indexOf('|')
  let input = ''
  let cli = all
  if (pipe === 2 && first === 'printf') {
    input = execFileSync('bash', ['-c', command.text.slice(0, command.text.indexOf('|'))], { cwd: run.dir, encoding: 'utf8' })
    cli = all.slice(3)
  }
  if (cli[0] === 'npx' && cli[1] === 'tfidf-serve') {
    const result = await runCli(cli.slice(2), input, [], run.dir)
    return { lines: result.stdout.split('\n').filter(l => l !== ''), failed: result.code === 0 ? undefined : `exit ${result.code}: ${result.stderr.trimEnd()}` }
  }
  if (pipe === -1 && SHELL_COMMANDS.has(first!)) {
    return { lines: execFileSync('bash', ['-c', command.text], { cwd: run.dir, encoding: 'utf8' }).split('\n').filter(l => l !== '') }
  }
  throw new Error(`${command.text}: this test cannot run it`)
}

describe('the examples of README.md and docs/', function () {
  this.timeout(120000)
  let service: Service | undefined
  let listening: Listening | undefined
  const scratch = mkdtempSync(path.join(tmpdir(), 'tfidf-docs-'))
  /** The default service, started once on first use and shared by every page. */
  const defaultPort = async (): Promise<number> => {
    if (listening === undefined) {
      service = await startService({ WORKERS: '2' })
      listening = await listen(service)
    }
    return listening.port
  }
  after(async () => {
    await listening?.close()
    await service?.close()
    rmSync(scratch, { recursive: true, force: true })
  })

  const all = PAGES.flatMap(blocks)

  it('has runnable examples on every page that shows commands, and marks every shown command', () => {
    expect(all.filter(b => b.kind === 'run').length).to.be.above(10)
    const unmarked = all.filter(b => b.kind === 'unmarked' && b.body.some(l => l.startsWith('$ ')))
    expect(unmarked.map(b => `${b.page}:${b.line}`), 'sh blocks with a $ prompt but no <!-- run --> before them').to.deep.equal([])
  })

  it('marks every settings example as one that loads (<!-- settings -->) or as a fragment (<!-- fragment -->)', () => {
    const settingsLike = all.filter(b => b.kind === 'unmarked' && !b.body.some(l => l.startsWith('$ ')) && b.body.some(l => SETTINGS_KEYS.test(l)))
    expect(settingsLike.map(b => `${b.page}:${b.line}`), 'json blocks of settings with neither marker').to.deep.equal([])
  })

  it('names every error code in docs/troubleshooting.md', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'troubleshooting.md'), 'utf8')
    expect(Object.keys(ERROR_CODES).filter(code => !page.includes(code))).to.deep.equal([])
  })

  for (const page of PAGES) {
    const marked = all.filter(b => b.page === page && b.kind !== 'unmarked')
    if (marked.length === 0) continue
    context(page, () => {
      const run: PageRun = { dir: path.join(scratch, page.replace(/\W/g, '_')) }
      before(() => {
        mkdirSync(run.dir, { recursive: true })
        symlinkSync(path.join(ROOT, 'models'), path.join(run.dir, 'models'))
        symlinkSync(path.join(ROOT, 'test'), path.join(run.dir, 'test'))
      })
      for (const block of marked) {
        if (block.kind === 'fragment') continue
        if (block.kind === 'keys') {
          it(`line ${block.line}: the key file ${block.target ?? ''} is one its reader takes`, () => {
            const file = path.join(run.dir, block.target ?? 'keys.json')
            mkdirSync(path.dirname(file), { recursive: true })
            writeFileSync(file, block.body.join('\n'))
            expect(() => readKeyFile(file)).not.to.throw()
          })
          continue
        }
        if (block.kind === 'settings') {
          it(`line ${block.line}: the settings file ${block.target ?? ''} loads the model it names${block.models === undefined ? '' : ` (${block.models})`}`, async () => {
            const file = path.join(run.dir, block.target ?? path.join(`settings-${block.line}`, 'model-settings.json'))
            const dir = path.dirname(file)
            mkdirSync(dir, { recursive: true })
            writeFileSync(file, block.body.join('\n'))
            const settings = readModelSettings(file)
            const models = block.models === undefined ? (settings.model !== null && existsSync(settings.model)) || settings.ensemble !== null ? null : path.join(ROOT, 'models') : path.join(ROOT, block.models)
            for (const f of models === null ? [] : readdirSync(models)) {
              if (f !== 'model-settings.json' && !existsSync(path.join(dir, f))) symlinkSync(path.join(models!, f), path.join(dir, f))
            }
            const inspected = await runCli(['inspect', '--settings', file], '', [], run.dir)
            expect(inspected.stderr, `${page} line ${block.line}`).to.equal('')
            expect(inspected.code).to.equal(0)
          })
          continue
        }
        const shown = commands(block)
        it(`line ${block.line}: ${shown.map(c => c.text.slice(0, 60)).join('; ')}`, async () => {
          try {
            for (const command of shown) {
              const printed = await runCommand(command, run, defaultPort)
              // A command shown with its output must print it (an error body included); one shown
              // alone must succeed.
              const ok = command.output.length === 0 ? printed.failed === undefined : matches(printed.lines, command.output)
              expect(ok, `${page} line ${command.line}: ${command.text}\n${printed.failed ?? ''}\nprinted:\n${printed.lines.join('\n')}\nshown:\n${command.output.join('\n')}`).to.equal(true)
            }
          } finally {
            run.started?.child.kill('SIGTERM')
            if (run.started !== undefined) await run.started.exit
            run.started = undefined
            run.port = undefined
          }
        })
      }
    })
  }
})
