/**
 * Search objects pickled whole (GridSearchCV, RandomizedSearchCV, Halving*), imbalanced-learn
 * pipelines, joblib < 0.10 files and unfitted models (test/fixtures/search/generate.py), and
 * refused globals deferred to where the model uses them (src/pickle/unresolved.ts,
 * src/sklearn/refused-globals.ts).
 */
import { expect } from 'chai'
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ServiceError } from '../../src/errors.js'
import { decodePickleBytes, readPickleFile } from '../../src/pickle/read-pickle-file.js'
import { unpickle } from '../../src/pickle/unpickler.js'
import { Unresolved, type RefusedGlobal } from '../../src/pickle/unresolved.js'
import { PyObject, PyTuple } from '../../src/pickle/values.js'
import { loadModel } from '../../src/sklearn/load-model.js'
import { runCli } from '../helpers/cli.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { expectParity, readExpected, type ExpectedCase } from '../helpers/parity.js'
import { FIXTURES } from '../helpers/paths.js'

const DIR = path.join(FIXTURES, 'search')
const TEXTS = (JSON.parse(readFileSync(path.join(FIXTURES, 'estimators', 'texts.json'), 'utf8')) as { texts: string[] }).texts
const VERSIONS = readdirSync(DIR).filter(name => /^\d+\.\d+\.\d+$/.test(name)).sort()
const REFUSED = path.join(DIR, '1.2.1', 'refused')

interface SearchCase extends ExpectedCase {
  wrapped_by: string | null
  best_params: Record<string, unknown> | null
}

const casesOf = (version: string): string[] =>
  readdirSync(path.join(DIR, version)).filter(name => name !== 'refused' && statSync(path.join(DIR, version, name)).isDirectory()).sort()

const modelOf = (dir: string, expected: ExpectedCase): string => path.join(dir, expected.files[expected.files.length - 1]!)

/** The error the strict reader (no deferral: the allow-list refuses at once) gives for a file. */
async function strictError (file: string): Promise<ServiceError> {
  return await serviceErrorOf(async () => await readPickleFile(file))
}

/** A temporary folder, removed after `run`. */
async function inTempDir<T> (run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tfidf-search-'))
  try {
    return await run(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const STACK_GLOBAL = 0x93
const ONE_LINE_OS_SYSTEM = /^unsupported object 'os\.system' in \S+ \(byte (\d+)\)$/

/** Checks a refusal names os.system in one line, at the offset of the opcode that names it. */
function expectOsSystemRefusal (err: ServiceError, file: string): void {
  expect(err.code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
  const match = ONE_LINE_OS_SYSTEM.exec(err.message)
  expect(match, err.message).to.not.equal(null)
  const bytes = readFileSync(file)
  const offset = Number(match![1])
  expect(err.offset).to.equal(offset)
  // Protocol 4: 'os' and 'system' pushed as short strings (each memoized), then STACK_GLOBAL at the offset.
  expect(bytes[offset]).to.equal(STACK_GLOBAL)
  expect(bytes.subarray(offset - 14, offset).toString('latin1')).to.equal('\x8c\x02os\x94\x8c\x06system\x94')
}

describe('search objects and imbalanced-learn pipelines, as scikit-learn wrote and ran them', () => {
  it('has fixtures from scikit-learn 1.2.1 (with imbalanced-learn 0.10), 1.6.1 and 1.9.1', () => {
    expect(VERSIONS).to.deep.equal(['1.2.1', '1.6.1', '1.9.1'])
    expect(casesOf('1.2.1')).to.include.members(['grid-logreg', 'random-distributions', 'halving-grid', 'halving-random', 'imblearn-smote', 'old-joblib-npy', 'old-joblib-z', 'os-system-unused'])
  })

  for (const version of VERSIONS) {
    describe(`scikit-learn ${version}`, () => {
      for (const name of casesOf(version)) {
        const dir = path.join(DIR, version, name)
        const expected = readExpected(dir) as SearchCase
        it(`${name}: labels equal, probabilities and decisions within 1e-9 (${expected.note})`, async () => {
          const { predictor } = await loadModel({ model: modelOf(dir, expected) })
          expect(predictor.info.classifier).to.equal(expected.estimator)
          expectParity(predictor, expected, TEXTS)
          if (expected.wrapped_by === null) {
            expect(predictor.info.search).to.equal(undefined)
          } else {
            expect(predictor.info.search).to.deep.equal({ wrappedBy: expected.wrapped_by, bestParams: expected.best_params })
          }
        })
      }
    })
  }
})

describe('refused globals in parts of a file no prediction reads', () => {
  // Each of these files names a global the allow-list refuses, only where no prediction reads
  // it; the strict reader refuses the file, the model loader serves it (the parity cases above).
  for (const [file, global] of [
    ['1.2.1/grid-logreg/model.pkl', 'sklearn.metrics._scorer._passthrough_scorer'],
    ['1.2.1/grid-linearsvc-accuracy/model.joblib', 'sklearn.metrics._classification.accuracy_score'],
    ['1.6.1/grid-multimetric-refit-str/model.pkl', 'sklearn.metrics._classification.accuracy_score'],
    ['1.2.1/random-distributions/model.pkl', 'scipy.stats._distn_infrastructure.rv_continuous_frozen'],
    ['1.6.1/halving-random/model.joblib', 'scipy.stats._distn_infrastructure.rv_continuous_frozen'],
    ['1.2.1/grid-refit-callable/model.pkl', '__main__.best_by_score'],
    ['1.2.1/imblearn-svd-smote/model.pkl', 'sklearn.neighbors._kd_tree.newObj']
  ] as const) {
    it(`${file} names ${global}, which the strict reader refuses`, async () => {
      const err = await strictError(path.join(DIR, file))
      expect(err.code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
      expect(err.detail).to.match(new RegExp(`^unsupported object '${global.replace(/[.]/g, '\\.')}'`))
    })
  }

  context('os.system in attributes of a search that no prediction reads (scorer_, param_grid)', () => {
    const file = path.join(DIR, '1.2.1', 'os-system-unused', 'model.pkl')

    it('is in the file: the strict reader refuses it', async () => {
      expectOsSystemRefusal(await strictError(file), file)
    })

    it('loads and serves best_estimator_ (the parity case above), never calling it', async () => {
      const { predictor } = await loadModel({ model: file })
      expect(predictor.info.search?.wrappedBy).to.equal('GridSearchCV')
      expect(predictor.predict('a wonderful film').label).to.be.oneOf(predictor.classes)
    })
  })

  context('os.system where the model reads it', () => {
    for (const [name, where] of [
      ['os-system-used.pkl', 'an attribute of the classifier in best_estimator_'],
      ['os-system-shared.pkl', 'one call shared by scorer_ (inert) and the classifier (read)'],
      ['os-system-best-params.pkl', 'best_params_ (which inspect shows)'],
      ['os-system-bundle.pkl', 'the bundle beside the search']
    ] as const) {
      it(`is refused in one line naming os.system and its byte: ${where}`, async () => {
        const file = path.join(REFUSED, name)
        expectOsSystemRefusal(await serviceErrorOf(async () => await loadModel({ model: file })), file)
      })
    }

    it('fails with what the strict reader says when os.system is its first refused global', async () => {
      const file = path.join(REFUSED, 'os-system-used.pkl')
      const deferred = await serviceErrorOf(async () => await loadModel({ model: file }))
      const strict = await strictError(file)
      expect({ code: deferred.code, message: deferred.message }).to.deep.equal({ code: strict.code, message: strict.message })
    })

    it('refuses a file with no search object as before (test/fixtures/pickle/os-system.pkl)', async () => {
      const file = path.join(FIXTURES, 'pickle', 'os-system.pkl')
      const deferred = await serviceErrorOf(async () => await loadModel({ model: file }))
      const strict = await strictError(file)
      expect({ code: deferred.code, message: deferred.message }).to.deep.equal({ code: strict.code, message: strict.message })
    })

    it('refuses os.system named and dropped before the model (GLOBAL, POP), at byte 0', async () => {
      await inTempDir(async dir => {
        const model = readFileSync(path.join(DIR, '1.2.1', 'grid-logreg', 'model.pkl'))
        const file = path.join(dir, 'model.pkl')
        writeFileSync(file, Buffer.concat([Buffer.from('cos\nsystem\n0', 'latin1'), model]))
        const err = await serviceErrorOf(async () => await loadModel({ model: file }))
        expect(err.code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
        expect(err.message).to.equal(`unsupported object 'os.system' in ${file} (byte 0)`)
      })
    })
  })

  context('the unpickler deferring refusals', () => {
    const deferred = (bytes: number[]): { value: unknown, refused: RefusedGlobal[] } => {
      const refused: RefusedGlobal[] = []
      return { value: unpickle(Uint8Array.from(bytes), { onRefusedGlobal: g => { refused.push(g) } }), refused }
    }
    const text = (s: string): number[] => [...Buffer.from(s, 'latin1')]

    it('makes a call of a refused global an inert placeholder holding its arguments', () => {
      // os.system('ls'), protocol 0
      const { value, refused } = deferred([...text('cos\nsystem\n(Vls\ntR.')])
      expect(value).to.be.instanceOf(Unresolved)
      expect((value as Unresolved).qualifiedName).to.equal('os.system')
      expect((value as Unresolved).parts.slice(1)).to.deep.equal(['ls'])
      expect(refused.map(g => [g.qualifiedName, g.offset])).to.deep.equal([['os.system', 0]])
    })

    it('makes copyreg._reconstructor of a refused class a placeholder, and BUILD keeps its state there', () => {
      // copy_reg._reconstructor(scipy.stats.X, object, None), then BUILD {'a': 1}, protocol 0
      const { value } = deferred([...text('ccopy_reg\n_reconstructor\n(cscipy.stats\nX\nc__builtin__\nobject\nNtR(dVa\nI1\nsb.')])
      expect(value).to.be.instanceOf(Unresolved)
      expect((value as Unresolved).qualifiedName).to.equal('scipy.stats.X')
      expect((value as Unresolved).parts.at(-1)).to.deep.equal(new Map([['a', 1]]))
    })

    it('keeps a placeholder inside an allowed record as it is', () => {
      // sklearn.X() with BUILD {'f': os.system}, protocol 2
      const { value } = deferred([0x80, 0x02, ...text('csklearn.svm\nSVC\n)\x81}Vf\ncos\nsystem\nsb.')])
      expect(value).to.be.instanceOf(PyObject)
      expect((value as PyObject).get('f')).to.be.instanceOf(Unresolved)
    })

    it('fails a pickle that breaks after a refused global with that global\'s error, as the strict reader does', () => {
      let caught: unknown
      try {
        deferred([...text('cos\nsystem\n(Vls\ntR')]) // no STOP
      } catch (err) {
        caught = err
      }
      expect(caught).to.be.instanceOf(ServiceError)
      expect((caught as ServiceError).message).to.equal("unsupported object 'os.system' (byte 0)")
    })

    it('refuses at once without onRefusedGlobal', () => {
      expect(() => unpickle(Uint8Array.from(text('cos\nsystem\n(Vls\ntR.')))).to.throw("unsupported object 'os.system' (byte 0)")
    })

    it('keeps a tuple of placeholders apart from allowed values', () => {
      const { value } = deferred([...text('(cos\nsystem\nI1\nt.')])
      expect(value).to.be.instanceOf(PyTuple)
      expect((value as PyTuple).items[1]).to.equal(1)
    })
  })
})

describe('refused search, unfitted and joblib < 0.10 files, in one line', () => {
  const refusals: Array<[string, string, string]> = [
    ['refit-false.pkl', 'ERR_MODEL_UNSUPPORTED', 'GridSearchCV was fitted with refit=False, so it holds no fitted model: fit it with refit=True and save it or its best_estimator_'],
    ['unfitted-search.pkl', 'ERR_MODEL_UNSUPPORTED', 'GridSearchCV is not fitted (no best_estimator_): fit it before saving it'],
    ['unfitted-pipeline.pkl', 'ERR_MODEL_UNSUPPORTED', 'TfidfVectorizer is not fitted (no vocabulary_): fit it before saving it'],
    ['unfitted-vectorizer.pkl', 'ERR_MODEL_UNSUPPORTED', 'TfidfVectorizer is not fitted (no vocabulary_): fit it before saving it'],
    // Its fit raised ("After pruning, no terms remain") and left fixed_vocabulary_ and _tfidf behind.
    ['interrupted-fit-vectorizer.pkl', 'ERR_MODEL_UNSUPPORTED', 'TfidfVectorizer is not fitted (no vocabulary_): fit it before saving it'],
    ['unfitted-classifier.pkl', 'ERR_MODEL_UNSUPPORTED', 'LogisticRegression is not fitted (no classes_): fit it before saving it']
  ]
  for (const [name, code, message] of refusals) {
    it(`${name}: ${message}`, async () => {
      const file = path.join(REFUSED, name)
      const err = await serviceErrorOf(async () => await loadModel({ model: file }))
      expect({ code: err.code, message: err.message }).to.deep.equal({ code, message: `${message} in ${file}` })
    })
  }

  for (const [name, named] of [['old-joblib-parent', '../escape.npy'], ['old-joblib-absolute', '/etc/passwd']]) {
    it(`${name}: an NDArrayWrapper naming '${named}' is refused, the file never read`, async () => {
      const file = path.join(REFUSED, name!, 'model.pkl')
      const err = await serviceErrorOf(async () => await loadModel({ model: file }))
      expect(err.code).to.equal('ERR_PICKLE_INVALID')
      expect(err.message).to.match(new RegExp(`^NDArrayWrapper names '${named!.replace(/[.]/g, '\\.')}': only a \\.npy file beside the pickle is read \\(no path, no '\\.\\.'\\) in \\S+model\\.pkl \\(byte \\d+\\)$`))
    })
  }

  it('a joblib < 0.10 pickle whose array file is missing names that file', async () => {
    await inTempDir(async dir => {
      const file = path.join(dir, 'model.pkl')
      copyFileSync(path.join(DIR, '1.2.1', 'old-joblib-npy', 'model.pkl'), file)
      const err = await serviceErrorOf(async () => await loadModel({ model: file }))
      expect(err.code).to.equal('ERR_MODEL_READ')
      expect(err.message).to.match(/^cannot read the array file model\.pkl_01\.npy beside it: no such file in \S+model\.pkl \(byte \d+\)$/)
    })
  })

  it('a joblib < 0.10 pickle decoded from bytes alone (no folder) is refused', async () => {
    const bytes = readFileSync(path.join(DIR, '1.2.1', 'old-joblib-npy', 'model.pkl'))
    const err = await serviceErrorOf(async () => await decodePickleBytes(bytes))
    expect(err.code).to.equal('ERR_PICKLE_UNSUPPORTED')
  })

  it('a corrupt .npy.z array file is refused as compression', async () => {
    await inTempDir(async dir => {
      const from = path.join(DIR, '1.2.1', 'old-joblib-z')
      for (const name of readdirSync(from)) copyFileSync(path.join(from, name), path.join(dir, name))
      const side = path.join(dir, 'model.pkl_01.npy.z')
      const bytes = readFileSync(side)
      writeFileSync(side, bytes.subarray(0, bytes.length - 4))
      const err = await serviceErrorOf(async () => await loadModel({ model: path.join(dir, 'model.pkl') }))
      expect(err.code).to.equal('ERR_MODEL_COMPRESSION')
    })
  })
})

describe('tfidf-serve inspect of a search object', function () {
  this.timeout(30000)

  it('says which search wrapped the model and its best_params_', async () => {
    const file = path.join(DIR, '1.2.1', 'random-distributions', 'model.pkl')
    const { stdout, code } = await runCli(['inspect', '--model', file])
    expect(code).to.equal(0)
    const shown = JSON.parse(stdout) as Record<string, unknown>
    const expected = readExpected(path.dirname(file)) as SearchCase
    expect(shown.classifier).to.equal('LogisticRegression')
    expect(shown.wrapped_by).to.equal('RandomizedSearchCV')
    expect(shown.best_params).to.deep.equal(expected.best_params)
  })

  it('shows no search fields for a model no search wrapped', async () => {
    const { stdout, code } = await runCli(['inspect', '--model', path.join(DIR, '1.2.1', 'imblearn-smote', 'model.joblib')])
    expect(code).to.equal(0)
    const shown = JSON.parse(stdout) as Record<string, unknown>
    expect(shown.classifier).to.equal('LinearSVC')
    expect(shown).to.not.have.property('wrapped_by')
    expect(shown).to.not.have.property('best_params')
  })
})
