import { expect } from 'chai'
import path from 'node:path'
import { DType, NdArray } from '../../src/pickle/numpy.js'
import { PyObject } from '../../src/pickle/values.js'
import { createPredictor, loadModel } from '../../src/sklearn/load-model.js'
import { buildEstimator } from '../../src/sklearn/registry.js'
import { serviceErrorOf } from '../helpers/errors.js'
import { buildError, fixtureRecord, stateOf } from '../helpers/records.js'
import { FIXTURES } from '../helpers/paths.js'

const CASES = path.join(FIXTURES, 'estimators')

const record = fixtureRecord

/** The last step of a Pipeline record, or the record itself. */
function lastStep (pipeline: PyObject, index = -1): PyObject {
  const steps = pipeline.get('steps') as Array<{ items: unknown[] }>
  return steps.at(index)!.items[1] as PyObject
}

/** A tree's node column (left_child, feature, ...) to edit in place. */
function nodeColumn (tree: PyObject, name: string): BigInt64Array | Float64Array {
  return ((tree.get('nodes') as NdArray).data as Map<string, BigInt64Array | Float64Array>).get(name)!
}

describe('model files whose arrays do not fit are refused at load, naming the attribute', () => {
  const TREE = '1.9.1/tree-gini/final_best_model.pkl'

  it('builds the untouched fixture record', async () => {
    expect(buildEstimator('classifier', await record(TREE)).type).to.equal('decision-tree')
  })

  it('a child index outside the node array', async () => {
    const tree = await record(TREE)
    nodeColumn(tree.get('tree_') as PyObject, 'left_child')[0] = 100000n
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.match(/DecisionTreeClassifier\.tree_\.nodes: node 0 has child 100000, outside 1\.\.\d+/)
  })

  it('a child pointing back up the tree (a cycle a walk would never leave)', async () => {
    const tree = await record(TREE)
    const left = nodeColumn(tree.get('tree_') as PyObject, 'left_child')
    const right = nodeColumn(tree.get('tree_') as PyObject, 'right_child')
    const inner = Array.from(left.keys()).find(i => i > 0 && left[i] !== -1n)!
    right[inner] = 0n
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain(`node ${inner} has child 0`)
  })

  it('a tree deeper than its own max_depth', async () => {
    const tree = await record(TREE)
    stateOf(tree.get('tree_') as PyObject).set('max_depth', 3)
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.match(/a path of depth 12 in a tree whose max_depth is 3/)
  })

  it('a split on a feature the model does not have', async () => {
    const tree = await record(TREE)
    nodeColumn(tree.get('tree_') as PyObject, 'feature')[0] = 400n
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('node 0 splits on feature 400, outside 0..399')
  })

  it('a values array of the wrong shape', async () => {
    const tree = await record(TREE)
    const treeRecord = tree.get('tree_') as PyObject
    const values = treeRecord.get('values') as NdArray
    stateOf(treeRecord).set('values', new NdArray(values.dtype, [values.shape[0]! - 1, 1, 4], (values.data as Float64Array).subarray(4)))
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('DecisionTreeClassifier.tree_.values')
  })

  it('a multi-output tree, refused as unsupported', async () => {
    const tree = await record(TREE)
    stateOf(tree).set('n_outputs_', 2)
    const err = buildError(tree)
    expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
    expect(err.message).to.contain('multi-output')
  })

  it('a forest member whose tree is broken names its place', async () => {
    const forest = await record('1.6.1/forest/final_best_model.pkl')
    const third = (forest.get('estimators_') as PyObject[])[2]!
    nodeColumn(third.get('tree_') as PyObject, 'right_child')[0] = -7n
    const err = buildError(forest)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('RandomForestClassifier.estimators_[2].tree_.nodes: node 0')
  })

  it('gradient boosting with a stage of the wrong width', async () => {
    const gb = await record('1.6.1/gb-multi/final_best_model.pkl')
    const stages = gb.get('estimators_') as NdArray
    stateOf(gb).set('estimators_', new NdArray(stages.dtype, [stages.shape[0]! * 3, 1], stages.data))
    const err = buildError(gb)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('GradientBoostingClassifier.estimators_ has 1 trees per stage for 3 classes')
  })

  it('AdaBoost with fewer weights than estimators', async () => {
    const ada = await record('1.2.1/adaboost-samme/final_best_model.pkl')
    stateOf(ada).set('estimator_weights_', new NdArray(new DType('<f8'), [3], Float64Array.of(1, 1, 1)))
    const err = buildError(ada)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('estimator_weights_ has 3 weights for 20 estimators')
  })

  it('bagging with a feature subset outside the input', async () => {
    const bag = await record('1.9.1/bagging-tree/final_best_model.pkl')
    const features = bag.get('estimators_features_') as NdArray[]
    ;(features[1]!.data as BigInt64Array)[0] = 5000n
    const err = buildError(bag)
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.contain('BaggingClassifier.estimators_features_[1][0] is 5000, outside 0..399')
  })

  it('a TruncatedSVD whose components do not match the vectorizer before it', async () => {
    const pipeline = await record('1.6.1/svd-logreg/pipeline.pkl')
    const svd = lastStep(pipeline, -2)
    const components = svd.get('components_') as NdArray
    stateOf(svd).set('components_', new NdArray(components.dtype, [40, 399], (components.data as Float64Array).subarray(0, 40 * 399)))
    const state = {
      vectorizer: buildEstimator('vectorizer', lastStep(pipeline, 0)),
      steps: [buildEstimator('step', svd)],
      classifier: buildEstimator('classifier', lastStep(pipeline)),
      sklearnVersions: {},
      textSteps: []
    }
    const err = await serviceErrorOf(async () => createPredictor(state))
    expect(err.code).to.equal('ERR_MODEL_SHAPE')
    expect(err.message).to.equal('the vectorizer (TfidfVectorizer) has 400 features but TruncatedSVD expects 399')
  })
})

describe('estimators still unsupported fail at load with one line naming the class and the file', () => {
  it('a RadiusNeighborsClassifier pipeline written by scikit-learn 1.9.1, with the reason', async () => {
    const file = path.join(CASES, 'refused', 'radius-pipeline.pkl')
    const err = await serviceErrorOf(async () => await loadModel({ model: file }))
    expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
    expect(err.message).to.equal(`RadiusNeighborsClassifier is not supported (KNeighborsClassifier on sparse rows is) in ${file}`)
  })

  it('an unsupported estimator inside an ensemble names its place and what is served', async () => {
    const voting = await record('1.9.1/voting-hard/final_best_model.pkl')
    ;(voting.get('estimators_') as unknown[])[1] = new PyObject('sklearn.discriminant_analysis', 'LinearDiscriminantAnalysis')
    const err = buildError(voting)
    expect(err.code).to.equal('ERR_MODEL_UNSUPPORTED')
    expect(err.message).to.match(/^VotingClassifier\.estimators_\[1\]: sklearn\.discriminant_analysis\.LinearDiscriminantAnalysis is not a supported classifier \(LogisticRegression, .*SVC, .*GradientBoostingClassifier, .*\)$/)
  })
})
