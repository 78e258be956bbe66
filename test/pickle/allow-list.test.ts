import { expect } from 'chai'
import { isAppModule } from '../../src/pickle/globals.js'
import { ServiceError } from '../../src/errors.js'
import { resolveGlobal } from '../../src/pickle/globals.js'
import { unpickle } from '../../src/pickle/unpickler.js'

/** A protocol-2 pickle calling module.name(arg) through GLOBAL + REDUCE. */
function callPickle (module: string, name: string): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from([0x80, 0x02]), Buffer.from(`c${module}\n${name}\n`), Buffer.from([0x58, 1, 0, 0, 0, 0x78, 0x85, 0x52, 0x2e])]))
}

describe('the allow-list of globals', () => {
  const refused = [
    'os.system', 'posix.system', 'subprocess.Popen', 'builtins.eval', 'builtins.exec', 'builtins.getattr',
    'builtins.__import__', '__builtin__.eval', 'numpy.load', 'numpy.testing._private.utils.runstring',
    'sklearn.utils.validation.check_array', '__main__.TextPreprocessor', 'xgboost.sklearn.XGBRegressor', 'xgboost.core.DMatrix',
    'lightgbm.sklearn.LGBMRegressor', 'lightgbm.basic.Dataset', 'lightgbm.engine.train',
    '_loss.loss', '_loss.__pyx_unpickle_Enum', '_loss.CyHalfMultinomialLossX', 'numpy.random.bit_generator.BitGenerator',
    'numpy.random.bit_generator.__pyx_unpickle_Other', 'joblib.load', 'pickle.loads',
    'copyreg._reconstructor_evil', 'scipy.sparse.save_npz', 'sklearn.Foo.__reduce__',
    // Names of Object.prototype members must not resolve through a plain-object table.
    'catboost.core.CatBoostClassifier',
    'constructor.p3', '__proto__.x', 'toString.valueOf', 'builtins.constructor', 'builtins.__proto__', 'hasOwnProperty.call'
  ]
  for (const qualified of refused) {
    it(`refuses ${qualified}, naming it, before anything is built`, () => {
      const dot = qualified.lastIndexOf('.')
      const [module, name] = [qualified.slice(0, dot), qualified.slice(dot + 1)]
      let caught: unknown
      try {
        unpickle(callPickle(module, name))
      } catch (err) {
        caught = err
      }
      expect(caught).to.be.instanceOf(ServiceError)
      expect((caught as ServiceError).code).to.equal('ERR_PICKLE_GLOBAL_NOT_ALLOWED')
      // A module no library has is the app's own code: the message says how to serve it.
      const hint = module.startsWith('catboost') ? ' (CatBoost models are not served: CatBoost cannot be run here to check answers against, so none could be promised exact; to serve the app here, fit a served classifier on the same features instead (a scikit-learn one, XGBClassifier or LGBMClassifier) and save that; CatBoost exports (save_model as json, onnx or cpp) are not read either)' : isAppModule(module) ? " (the app's own code: port it to JavaScript in a functions module named in model-settings.json)" : ''
      expect((caught as ServiceError).message).to.equal(`unsupported object '${qualified}'${hint} (byte 2)`)
    })
  }

  const allowed = [
    'sklearn.feature_extraction.text.TfidfVectorizer', 'sklearn.linear_model._logistic.LogisticRegression',
    'sklearn.tree._tree.Tree', 'sklearn.metrics._scorer._PassthroughScorer', 'numpy.core.multiarray._reconstruct',
    'numpy._core.multiarray._reconstruct', 'numpy._core.numeric._frombuffer', 'numpy.dtype', 'numpy.float64',
    'scipy.sparse._csr.csr_matrix', 'scipy.sparse.csr.csr_matrix', 'scipy.sparse._arrays.csr_array',
    'joblib.numpy_pickle.NumpyArrayWrapper', 'builtins.set', '__builtin__.frozenset', 'copyreg._reconstructor',
    'copy_reg._reconstructor', 'collections.OrderedDict', 'collections.defaultdict', '_codecs.encode',
    // GradientBoosting's loss objects (scikit-learn 1.4+) and numpy 2's RandomState seed, as data.
    '_loss.CyHalfMultinomialLoss', '_loss.__pyx_unpickle_CyHalfMultinomialLoss', 'sklearn._loss._loss.CyHalfBinomialLoss',
    'sklearn._loss._loss.__pyx_unpickle_CyExponentialLoss', 'numpy.random.bit_generator.SeedSequence',
    'numpy.random.bit_generator.__pyx_unpickle_SeedSequence',
    // Score functions a selector keeps as a parameter (referred to, not callable: see below).
    'sklearn.feature_selection._univariate_selection.chi2', 'sklearn.feature_selection._mutual_info.mutual_info_classif',
    // xgboost's classifier and the Booster it holds (records; the model is bytes in the Booster's state).
    'xgboost.sklearn.XGBClassifier', 'xgboost.core.Booster',
    // LightGBM's classifier and its Booster (records; the model is text in the Booster's state).
    'lightgbm.sklearn.LGBMClassifier', 'lightgbm.basic.Booster'
  ]
  for (const qualified of allowed) {
    it(`allows ${qualified}`, () => {
      const dot = qualified.lastIndexOf('.')
      const g = resolveGlobal(qualified.slice(0, dot), qualified.slice(dot + 1))
      expect(g.name).to.equal(qualified.slice(dot + 1))
    })
  }

  // Their arrays are read from the files beside the pickle they name (old-joblib.ts; test/sklearn/search-and-imblearn.test.ts).
  for (const module of ['joblib.numpy_pickle', 'sklearn.externals.joblib.numpy_pickle']) {
    for (const name of ['NDArrayWrapper', 'ZNDArrayWrapper']) {
      it(`allows old joblib (< 0.10) array wrappers as records: ${module}.${name}`, () => {
        const g = resolveGlobal(module, name)
        expect(g.spec.kind).to.equal('class')
      })
    }
  }

  for (const [module, name] of [['numpy', 'float64'], ['sklearn.feature_selection._univariate_selection', 'chi2']]) {
    it(`refuses to call an allowed value that is not callable (${module}.${name}(...))`, () => {
      let caught: unknown
      try {
        unpickle(callPickle(module!, name!))
      } catch (err) {
        caught = err
      }
      expect((caught as ServiceError).code).to.equal('ERR_PICKLE_INVALID')
      expect((caught as ServiceError).message).to.contain(`'${module}.${name}', which cannot be called`)
    })
  }
})
