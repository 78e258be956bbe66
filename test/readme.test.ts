/**
 * Every example in README.md that shows output is run, and must print that output: the
 * `curl` examples against a real server on 127.0.0.1 with the default model and settings,
 * the `tfidf-serve` examples through the built CLI. Values that change from run to run
 * (times, memory, counters, dates) are compared by kind only; everything else exactly.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { runCli } from './helpers/cli.js'
import { ROOT } from './helpers/paths.js'
import { listen, startService, type Listening, type Service } from './helpers/service.js'

/** Fields whose values differ between runs: only their JSON type is compared. */
const VOLATILE = new Set(['processing_time', 'timestamp', 'used', 'available', 'percentage', 'memory_usage_mb', 'uptime_seconds', 'predictions_total', 'predictions_per_second', 'average_response_time', 'cache_hit_rate', 'request_id'])

interface Example { readonly command: string, readonly output: readonly string[], readonly line: number }

/** The `$ command` lines of README's sh blocks (with `\` continuations) and the lines they print. */
function examples (readme: string): Example[] {
  const out: Example[] = []
  const lines = readme.split('\n')
  let inSh = false
  let current: { command: string, output: string[], line: number } | undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.startsWith('```')) {
      if (current !== undefined) out.push(current)
      current = undefined
      inSh = !inSh && line === '```sh'
      continue
    }
    if (!inSh) continue
    if (line.startsWith('$ ')) {
      if (current !== undefined) out.push(current)
      let command = line.slice(2)
      while (command.endsWith('\\')) command = command.slice(0, -1) + (lines[++i] ?? '').trim()
      current = { command, output: [], line: i + 1 }
    } else if (current !== undefined && line.trim() !== '') {
      current.output.push(line)
    }
  }
  return out.filter(e => e.output.length > 0)
}

/** Splits a shell command into words, honouring single quotes (all README uses). */
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

async function runCurl (args: string[], port: number): Promise<string> {
  let method = 'GET'
  let body: string | undefined
  const headers: Record<string, string> = {}
  let url = ''
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-s') continue
    if (a === '-X') method = args[++i]!
    else if (a === '-H') { const [k, ...v] = args[++i]!.split(':'); headers[k!.trim()] = v.join(':').trim() } else if (a === '-d') { body = args[++i]!; if (method === 'GET') method = 'POST' } else if (a.startsWith('localhost:8000')) url = a.replace('localhost:8000', `http://127.0.0.1:${port}`)
    else throw new Error(`curl option ${a} is not understood by this test`)
  }
  const res = await fetch(url, { method, headers, body })
  return await res.text()
}

async function runExample (example: Example, port: number): Promise<string[]> {
  const [first, ...rest] = words(example.command)
  if (first === 'curl') return [await runCurl(rest, port)]
  // printf '...' | npx tfidf-serve <args>
  const pipe = rest.indexOf('|')
  if (first === 'printf' && pipe === 1 && rest[2] === 'npx' && rest[3] === 'tfidf-serve') {
    const input = rest[0]!.replace(/\\n/g, '\n')
    const run = await runCli(rest.slice(4), input)
    return run.stdout.split('\n').filter(l => l !== '')
  }
  throw new Error(`README line ${example.line}: '${example.command}' shows output but this test cannot run it`)
}

describe('README.md examples', function () {
  this.timeout(60000)
  let service: Service
  let listening: Listening
  before(async () => {
    service = await startService({ WORKERS: '2' })
    listening = await listen(service)
  })
  after(async () => {
    await listening.close()
    await service.close()
  })

  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  const found = examples(readme)

  it('has examples with output to check', () => {
    expect(found.length).to.be.above(8)
  })

  for (const example of found) {
    it(`line ${example.line}: ${example.command.slice(0, 90)} prints what README shows`, async () => {
      const printed = await runExample(example, listening.port)
      expect(printed.map(l => stable(JSON.parse(l)))).to.deep.equal(example.output.map(l => stable(JSON.parse(l))))
    })
  }
})
