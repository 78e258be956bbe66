import { expect } from 'chai'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { CLI, runCli } from './helpers/cli.js'
import { FIXTURES } from './helpers/paths.js'
import { expectClose } from './helpers/close.js'

const cli = runCli
const run = promisify(execFile)


const CASE = path.join(FIXTURES, 'sklearn', 'logreg-binary')
const expected = JSON.parse(readFileSync(path.join(CASE, 'expected.json'), 'utf8')) as { classes: string[], predict: string[], predict_proba: number[][], decision_function: number[][] }
const texts = (JSON.parse(readFileSync(path.join(FIXTURES, 'sklearn', 'texts.json'), 'utf8')) as { texts: string[] }).texts
const MODEL_ARGS = ['--model', path.join(CASE, 'final_best_model.pkl'), '--vectorizer', path.join(CASE, 'tfidf_vectorizer.pkl')]

describe('the tfidf-serve command', function () {
  this.timeout(60000)

  context('predict', () => {
    it('reads jsonl from stdin and answers what scikit-learn answers, line for line', async () => {
      const input = texts.map(text => JSON.stringify({ text })).join('\n') + '\n'
      const { stdout, code } = await cli(['predict', '--format', 'jsonl', ...MODEL_ARGS], input)
      expect(code).to.equal(0)
      const lines = stdout.trimEnd().split('\n').map(l => JSON.parse(l) as { label: string, confidence: number, proba: number[], decision: number[] })
      expect(lines.length).to.equal(texts.length)
      lines.forEach((line, i) => {
        expect(line.label).to.equal(expected.predict[i])
        expectClose(line.proba, expected.predict_proba[i]!, 1e-9, `line ${i}`)
        expectClose(line.decision, expected.decision_function[i]!, 1e-9, `line ${i}`)
        expect(line.confidence).to.equal(Math.max(...line.proba))
      })
    })

    it('reads one text per line from a file, with the default model when no flags are given', async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'tfidf-cli-'))
      const file = path.join(dir, 'texts.txt')
      writeFileSync(file, 'a wonderful, moving film\r\ndull and lifeless\n')
      const { stdout, code } = await cli(['predict', file])
      expect(code).to.equal(0)
      const labels = stdout.trimEnd().split('\n').map(l => (JSON.parse(l) as { label: string }).label)
      expect(labels).to.deep.equal(['positive', 'negative'])
    })

    it('leaves out proba for a model without predict_proba', async () => {
      const svc = path.join(FIXTURES, 'sklearn', 'linearsvc-bigrams-stop')
      const { stdout } = await cli(['predict', '--model', path.join(svc, 'final_best_model.pkl'), '--vectorizer', path.join(svc, 'tfidf_vectorizer.pkl')], 'a plain sentence\n')
      const line = JSON.parse(stdout) as Record<string, unknown>
      expect(Object.keys(line)).to.deep.equal(['label', 'confidence', 'decision'])
      expect(line.decision).to.have.length(1)
    })

    it('gives a hard VotingClassifier neither proba nor decision, and its share of votes as confidence', async () => {
      const dir = path.join(FIXTURES, 'estimators', '1.9.1', 'voting-hard')
      const voting = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as { predict: string[] }
      const estimatorTexts = (JSON.parse(readFileSync(path.join(FIXTURES, 'estimators', 'texts.json'), 'utf8')) as { texts: string[] }).texts
      const input = estimatorTexts.map(text => JSON.stringify({ text })).join('\n') + '\n'
      const { stdout, code } = await cli(['predict', '--format', 'jsonl', '--model', path.join(dir, 'final_best_model.pkl'), '--vectorizer', path.join(dir, '..', '_vectorizers', 'sent.pkl')], input)
      expect(code).to.equal(0)
      const lines = stdout.trimEnd().split('\n').map(l => JSON.parse(l) as Record<string, unknown>)
      expect(lines.map(l => Object.keys(l))).to.deep.equal(lines.map(() => ['label', 'confidence']))
      expect(lines.map(l => l.label)).to.deep.equal(voting.predict)
      // Three unweighted members: two or three of them voted for the label.
      expect(new Set(lines.map(l => l.confidence))).to.satisfy((s: Set<number>) => [...s].every(c => c === 2 / 3 || c === 1))
      const { stdout: described } = await cli(['inspect', '--model', path.join(dir, 'final_best_model.pkl'), '--vectorizer', path.join(dir, '..', '_vectorizers', 'sent.pkl')])
      expect(JSON.parse(described)).to.include({ classifier: 'VotingClassifier', vectorizer: 'TfidfVectorizer', confidence: 'votes' })
    })

    it('describes a Pipeline of vectorizer, selection step and classifier saved as one file', async () => {
      const dir = path.join(FIXTURES, 'estimators', '1.6.1', 'select-kbest')
      const { stdout } = await cli(['inspect', '--model', path.join(dir, 'pipeline.pkl')])
      const info = JSON.parse(stdout) as Record<string, unknown>
      expect(info).to.include({ classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', n_features: 400, confidence: 'predict_proba' })
      expect(info.steps).to.deep.equal(['SelectKBest'])
      expect(Object.values(info.sklearn_versions as Record<string, string>)).to.deep.equal(['1.6.1'])
    })

    it('with --workers 2 gives the same lines, in input order, as with one worker', async () => {
      // 3,000 lines: twelve chunks of 256 texts, more than the four kept in flight, so the order
      // of output depends on the writer waiting for the oldest chunk.
      const input = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ text: `${texts[i % texts.length]!} ${i}` })).join('\n') + '\n'
      const one = await cli(['predict', '--format', 'jsonl', '--workers', '1', ...MODEL_ARGS], input)
      const two = await cli(['predict', '--format', 'jsonl', '--workers', '2', ...MODEL_ARGS], input)
      expect([one.code, two.code]).to.deep.equal([0, 0])
      expect(two.stdout.split('\n')).to.have.length(3001)
      expect(two.stdout).to.equal(one.stdout)
      const reference = await cli(['predict', '--format', 'jsonl', '--workers', '1', ...MODEL_ARGS], texts.map(text => JSON.stringify({ text })).join('\n') + '\n')
      const labels = reference.stdout.trimEnd().split('\n').map(l => (JSON.parse(l) as { label: string }).label)
      expect(labels).to.deep.equal(expected.predict)
    })

    it('with --stats reports the texts, the workers, one shared model and no per-worker copy', async () => {
      const input = 'a wonderful, moving film\n'.repeat(1000)
      const { stdout, stderr, code } = await cli(['predict', '--workers', '2', '--stats'], input)
      expect(code).to.equal(0)
      expect(stdout.trimEnd().split('\n')).to.have.length(1000)
      const stats = JSON.parse(stderr) as { texts: number, seconds: number, workers: number, shared_model_bytes: number, worker_own_bytes: number[], max_rss_bytes: number }
      expect(stats).to.include({ texts: 1000, workers: 2 })
      expect(stats.worker_own_bytes).to.deep.equal([0, 0])
      expect(stats.shared_model_bytes).to.be.above(1_000_000)
      expect(stats.seconds).to.be.above(0)
      expect(stats.max_rss_bytes).to.be.above(stats.shared_model_bytes)
    })

    it('keeps memory flat however many lines it reads', async function () {
      // Seven million lines through four runs: about 40 s on two quiet cores, and several times
      // that when other work shares them. What is checked is memory, not speed (bench/ times the
      // CLI), so the time bound only catches a run that never ends.
      this.timeout(600_000)
      // Peak memory once the heaps have grown to their working size, against six times the lines.
      const peak = async (lines: number): Promise<number> => await new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, 'predict', '--workers', '2', '--stats'], { stdio: ['pipe', 'pipe', 'pipe'] })
        let newlines = 0
        let stderr = ''
        child.stdout.on('data', (d: Buffer) => { for (const b of d) if (b === 10) newlines++ })
        child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
        child.on('error', reject)
        child.on('close', code => {
          if (code !== 0 || newlines !== lines) return reject(new Error(`exit ${String(code)}, ${newlines} lines out of ${lines}: ${stderr}`))
          resolve((JSON.parse(stderr) as { max_rss_bytes: number }).max_rss_bytes)
        })
        child.stdin.end('a wonderful, moving film that I would see again\n'.repeat(lines))
      })
      // The peak of three heaps moves by up to ~25 MB with the moment each collects, so each size
      // is read twice and its lower peak kept.
      const lowerPeak = async (lines: number): Promise<number> => Math.min(await peak(lines), await peak(lines))
      const before = await lowerPeak(500_000)
      const after = await lowerPeak(3_000_000)
      // 2,500,000 more lines: 122 MB more input, 330 MB more output; kept, either would show.
      expect(after - before).to.be.below(48 * 1024 * 1024)
    })

    it('refuses a --workers that is not a whole number from 1 to 1024', async () => {
      for (const bad of ['0', '1.5', 'two', '2000']) {
        const { code, stderr } = await cli(['predict', '--workers', bad], 'x\n')
        expect(code).to.equal(2)
        expect(stderr).to.contain('--workers must be an integer from 1 to 1024')
      }
    })

    it('fails with one line on stderr and exit 1 for a missing model', async () => {
      const { stdout, stderr, code } = await cli(['predict', '--model', '/no/such/model.pkl'], 'x\n')
      expect([code, stdout]).to.deep.equal([1, ''])
      expect(stderr).to.equal('tfidf-serve: no such file: /no/such/model.pkl\n')
    })

    it('fails with exit 2 for a bad option or a bad jsonl line', async () => {
      expect((await cli(['predict', '--format', 'csv'])).code).to.equal(2)
      expect((await cli(['predict', '--bogus'])).code).to.equal(2)
      const bad = await cli(['predict', '--format', 'jsonl'], '{"text": "ok"}\nnot json\n')
      expect(bad.code).to.equal(2)
      expect(bad.stderr).to.contain('line 2 is not JSON')
    })
  })

  it('inspect describes the default model', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'inspect'])
    const info = JSON.parse(stdout) as Record<string, unknown>
    expect(info).to.include({ classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', n_features: 29238, confidence: 'predict_proba' })
    expect(info.classes).to.deep.equal(['negative', 'positive'])
    expect(Object.values(info.sklearn_versions as Record<string, string>)).to.deep.equal(['1.2.1', '1.2.1'])
  })

  it('prints help for each command', async () => {
    for (const command of ['predict', 'inspect', 'serve']) {
      const { stdout, code } = await cli([command, '--help'])
      expect(code).to.equal(0)
      expect(stdout).to.match(new RegExp(`^Usage: tfidf-serve ${command}`))
    }
    expect((await cli(['--help'])).stdout).to.contain('Commands:')
  })
})
