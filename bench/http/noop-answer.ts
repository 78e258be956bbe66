/** The fixed answer of the no-op servers, the same shape and size as tfidf-serve's. */
export function noopAnswer (body: unknown): unknown {
  const b = body as { text?: string, texts?: string[], batch_size?: number }
  if (typeof b.text === 'string') return { sentiment: 'positive', confidence: 0.9, model_used: 'LogisticRegression', processing_time: 0.0001, request_id: 'req-1' }
  const texts = b.texts ?? []
  return {
    predictions: texts.map(text => ({ text, prediction: 'positive', confidence: 0.9, processing_time: 0.0001 })),
    batch_info: { total_texts: texts.length, batch_size: b.batch_size ?? 10, processing_time: 0.001 }
  }
}
