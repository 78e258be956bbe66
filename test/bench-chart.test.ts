/**
 * The bench's picture (bench/lib/chart.ts, written by `npm run bench` as
 * bench/results/<time>.svg) reads: one panel per figure with labelled axes and their values,
 * every bar's value on it, and on ours its ratios to the Python service and to the ceiling.
 * Drawn from a full run kept in bench/results.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { chart } from '../bench/lib/chart.js'
import type { Row } from '../bench/lib/report.js'
import { ROOT } from './helpers/paths.js'

const RUN = path.join(ROOT, 'bench', 'results', '2026-11-27T14-36-24-701Z.json')

describe("the bench's picture", function () {
  this.timeout(60000)
  let svg: string
  /** The words of the picture's text elements, in order. */
  let texts: string[]
  before(async () => {
    const rows = (JSON.parse(readFileSync(RUN, 'utf8')) as { http: Row[] }).http.filter(r => r.model === 'default' && !r.server.includes('cached'))
    svg = await chart(rows, 'texts/s and p99 by scenario, default model')
    texts = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map(m => m[1]!.replace(/&amp;/g, '&').replace(/&#39;|&apos;/g, "'"))
  })

  it('is an SVG drawn by vega, with a panel per figure and labelled axes', () => {
    expect(svg).to.match(/^<svg [^>]*width="\d+" height="\d+"/)
    for (const t of ['Throughput: texts per second (longer is better)', 'Tail latency: p99, milliseconds (shorter is better)', 'texts per second', 'p99 latency, ms']) expect(texts).to.include(t)
    expect(texts.filter(t => t.startsWith('by scenario: the form (single, a batch of 10 or of 50 texts)'))).to.have.length(2)
  })

  it('gives the axes their values and names every scenario and server', () => {
    for (const t of ['0', '10,000', '20,000', '30,000', '100', '200', '400']) expect(texts).to.include(t)
    for (const s of ['single c1', 'single c50', 'batch10 c10', 'batch50 c50']) expect(texts.filter(t => t === s)).to.have.length(2)
    for (const s of ['tfidf-serve', 'Python service, 1 worker', 'Python service, 2 workers']) expect(texts).to.include(s)
  })

  it("prints each bar's value, and on ours its ratio to the Python service and its share of the ceiling", () => {
    // batch10 c10 in that run: 20,011 texts/s against the Python service's 3,461; p99 15 ms against 50.
    expect(texts).to.include('20,011  ·  5.8x the Python service  ·  38% of the ceiling')
    expect(texts).to.include('3,461')
    expect(texts).to.include("15  ·  0.30x the Python service's")
    expect(texts.filter(t => t.includes('x the Python service  ·  '))).to.have.length(9)
  })
})
