/**
 * The JSON Schemas of the API: request bodies (which validate.ts compiles with ajv) and
 * responses, one source for both the validation and the OpenAPI document (openapi.ts).
 * A text's length is in code points, as Python's len() counts it (docs/http-api.md, "Requests").
 */
import { DEFAULT_TOP_K, MAX_TOP_K } from '../service/limits.js'

export interface Limits {
  readonly maxBatchSize: number
  readonly maxTextLength: number
}

/** Most features an explanation lists per text, and how many by default (shared with the CLI). */
export { DEFAULT_TOP_K, MAX_TOP_K }

type Schema = Record<string, unknown>

function textSchema (limits: Limits): Schema {
  return { type: 'string', minLength: 1, maxLength: limits.maxTextLength, description: `A text of 1 to ${limits.maxTextLength} code points, with no lone UTF-16 surrogate.` }
}

const topK: Schema = { type: 'integer', minimum: 1, maximum: MAX_TOP_K, description: `How many features to list per text (default ${DEFAULT_TOP_K}).` }

/** The request bodies, by name. */
export function requestSchemas (limits: Limits): { single: Schema, batch: Schema, explainSingle: Schema, explainBatch: Schema } {
  const text = textSchema(limits)
  const texts = { type: 'array', minItems: 1, maxItems: limits.maxBatchSize, items: text }
  const batchSize = { type: 'integer', minimum: 1, maximum: limits.maxBatchSize, description: 'Texts per chunk sent to a worker; chunks run in parallel (default 10).' }
  return {
    single: { type: 'object', required: ['text'], additionalProperties: false, properties: { text } },
    batch: { type: 'object', required: ['texts'], additionalProperties: false, properties: { texts, batch_size: batchSize } },
    explainSingle: { type: 'object', required: ['text'], additionalProperties: false, properties: { text, top_k: topK } },
    explainBatch: { type: 'object', required: ['texts'], additionalProperties: false, properties: { texts, batch_size: batchSize, top_k: topK } }
  }
}

const number = { type: 'number' }
const numbers = { type: 'array', items: number }

/** The response bodies, by name. */
export const RESPONSE_SCHEMAS: Readonly<Record<string, Schema>> = {
  SinglePrediction: {
    type: 'object',
    required: ['sentiment', 'confidence', 'model_used', 'processing_time', 'request_id'],
    properties: {
      sentiment: { type: 'string', description: 'The label (LABEL_NAMES, else the class as Python prints it, lowercased).' },
      confidence: { ...number, description: 'The probability of the label (or the pseudo-probability of its decision value), to 4 decimals.' },
      model_used: { type: 'string', description: 'The classifier\'s class name.' },
      processing_time: { ...number, description: 'Seconds the worker spent on the text (0 from the cache).' },
      request_id: { type: 'string', description: 'As the X-Request-Id header: req-<n>.' }
    }
  },
  BatchPrediction: {
    type: 'object',
    required: ['predictions', 'batch_info'],
    properties: {
      predictions: {
        type: 'array',
        items: {
          type: 'object',
          required: ['text', 'prediction', 'confidence', 'processing_time'],
          properties: { text: { type: 'string' }, prediction: { type: 'string' }, confidence: { ...number, description: 'To 2 decimals.' }, processing_time: number }
        }
      },
      batch_info: {
        type: 'object',
        required: ['total_texts', 'batch_size', 'processing_time'],
        properties: { total_texts: { type: 'integer' }, batch_size: { type: 'integer' }, processing_time: { ...number, description: 'The request\'s wall time, in seconds.' } }
      }
    }
  },
  Explanation: {
    type: 'object',
    required: ['text', 'prediction', 'score', 'score_classes', 'intercept', 'scores', 'features', 'other_features'],
    properties: {
      text: { type: 'string' },
      prediction: { type: 'string' },
      score: { type: 'string', enum: ['decision_function', 'joint_log_likelihood', 'predict_proba', 'margin'], description: 'What the scores are: decision_function for linear models, the joint log-likelihood for naive Bayes; for tree models, predict_proba (scikit-learn\'s trees and forests) or the margin (gradient boosting\'s decision_function, XGBoost\'s output_margin, LightGBM\'s raw_score).' },
      method: { type: 'string', enum: ['tree_shap'], description: 'Set for tree models: the contributions are Shapley values as shap\'s TreeExplainer computes them (path-dependent, no background data).' },
      space: { type: 'string', enum: ['probability', 'margin'], description: 'Set for tree models: the output space explained.' },
      score_classes: { type: 'array', items: { type: 'string' }, description: 'The class each score belongs to (one score, the second class\'s, for a two-class linear model).' },
      intercept: { ...numbers, description: 'The intercept per score; for a tree model, shap\'s expected value.' },
      scores: { ...numbers, description: 'intercept plus every feature\'s contribution: scikit-learn\'s decision_function (or joint log-likelihood); for a tree model its own output, which the parts add up to within rounding.' },
      features: {
        type: 'array',
        description: 'The features that moved the prediction most, most first.',
        items: {
          type: 'object',
          required: ['feature', 'term', 'value', 'contribution'],
          properties: {
            feature: { type: ['integer', 'null'], description: 'Column of the vectorizer\'s output (after a selection step, the column the selected one came from); null in an ensemble\'s mean over members whose vectorizers give the word different columns.' },
            term: { type: ['string', 'null'], description: 'The term or n-gram (null for a hashed feature).' },
            value: { ...number, description: 'Its TF-IDF value as the classifier sees it (0 when absent).' },
            weight: { ...numbers, description: 'Linear models and naive Bayes: its weight in each score.' },
            contribution: { ...numbers, description: 'Its share of each score: value times weight, or its Shapley value.' },
            absent: { type: 'boolean', const: true, description: 'Set when the word is not in the text: a tree model\'s answer depends on absent words too.' }
          }
        }
      },
      other_features: {
        type: 'object',
        required: ['count', 'contribution'],
        properties: { count: { type: 'integer' }, contribution: { ...numbers, description: 'The other features\' contributions, summed per score.' } }
      }
    }
  },
  BatchExplanation: {
    type: 'object',
    required: ['explanations'],
    properties: { explanations: { type: 'array', items: { $ref: '#/components/schemas/Explanation' } } }
  },
  Health: {
    type: 'object',
    required: ['status', 'timestamp', 'version', 'model_loaded', 'memory_usage', 'models_loaded', 'vectorizer_loaded', 'memory_usage_mb', 'uptime_seconds'],
    properties: {
      status: { type: 'string', enum: ['healthy', 'unhealthy'] },
      timestamp: { type: 'string', format: 'date-time' },
      version: { type: 'string' },
      model_loaded: { type: 'boolean' },
      memory_usage: { type: 'object', required: ['used', 'available', 'percentage'], properties: { used: { type: 'integer' }, available: { type: 'integer' }, percentage: number } },
      models_loaded: { type: 'boolean' },
      vectorizer_loaded: { type: 'boolean' },
      memory_usage_mb: number,
      uptime_seconds: number
    }
  },
  MetricsReport: {
    type: 'object',
    required: ['predictions_total', 'predictions_per_second', 'average_response_time', 'memory_usage_mb', 'uptime_seconds', 'cache_hit_rate'],
    properties: {
      predictions_total: { type: 'integer' },
      predictions_per_second: number,
      average_response_time: number,
      memory_usage_mb: { type: 'integer' },
      uptime_seconds: { type: 'integer' },
      cache_hit_rate: number
    }
  },
  ServiceInfo: {
    type: 'object',
    required: ['name', 'version', 'description', 'endpoints', 'model_info'],
    properties: {
      name: { type: 'string' },
      version: { type: 'string' },
      description: { type: 'string' },
      endpoints: { type: 'object', additionalProperties: { type: 'object', properties: { url: { type: 'string' }, method: { type: 'string' }, description: { type: 'string' } } } },
      model_info: { type: 'object', properties: { type: { type: 'string' }, classes: { type: 'array', items: { type: 'string' } }, vectorizer: { type: 'string' }, confidence: { type: 'string' } } }
    }
  },
  Error: {
    type: 'object',
    required: ['detail'],
    properties: { detail: { type: 'string' } }
  },
  InternalError: {
    type: 'object',
    required: ['detail', 'error_id'],
    properties: { detail: { type: 'string', const: 'Internal server error' }, error_id: { type: 'string', format: 'uuid', description: 'Logged with the stack.' } }
  },
  ValidationError: {
    type: 'object',
    required: ['detail'],
    properties: {
      detail: {
        type: 'array',
        items: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: { loc: { type: 'array', items: { type: ['string', 'integer'] } }, msg: { type: 'string' }, type: { type: 'string' } }
        }
      }
    }
  }
}
