import { expect } from 'chai'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import request from 'supertest'
import { readExposition, total, type Exposition } from '../helpers/exposition.js'
import { startService, type Service } from '../helpers/service.js'

const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

interface Family { name: string, type: string, metrics: Array<{ labels?: Record<string, string>, value?: string }> }

/** The text exposition, read strictly, and checked against parse-prometheus-text-format on every counter and gauge. */
function scrape (text: string): Exposition {
  const e = readExposition(text)
  const families = parsePrometheusTextFormat(text) as Family[]
  for (const f of families.filter(f => f.type === 'COUNTER' || f.type === 'GAUGE')) {
    for (const m of f.metrics) {
      const [ours, theirs] = [total(e, f.name, m.labels ?? {}), Number(m.value)]
      expect(Object.is(ours, theirs) || ours === theirs, `${f.name} ${JSON.stringify(m.labels)}: ${ours} against ${theirs}`).to.equal(true)
    }
  }
  expect(families.length).to.equal(e.types.size)
  return e
}

describe('GET /metrics for Prometheus', function () {
  this.timeout(60000)
  let service: Service
  before(async () => { service = await startService({ CACHE_SIZE: '100', MAX_QUEUE: '0', MAX_CONCURRENT_REQUESTS: '1' }) })
  after(async () => { await service.close() })

  it('counts the requests it answered, the texts by label, lengths, coverage, cache use and rejections', async () => {
    const app = service.app
    await request(app).post('/predict').send({ text: 'a wonderful, moving film' }).expect(200)
    await request(app).post('/predict').send({ text: 'a wonderful, moving film' }).expect(200)
    await request(app).post('/predict').send({ texts: ['dull and lifeless', 'a dull mess', 'a wonderful film'] }).expect(200)
    await request(app).post('/predict').send({ text: 'zzqx vvbn' }).expect(200)
    await request(app).post('/predict').send({ texts: [] }).expect(422)
    await request(app).get('/nowhere').expect(404)
    // Two at once past MAX_CONCURRENT_REQUESTS=1 and MAX_QUEUE=0: one is turned away.
    const batches = [0, 1].map(i => Array.from({ length: 50 }, (_, k) => `text ${i} ${k} ${'word '.repeat(500)}`))
    const both = await Promise.all(batches.map(async texts => await request(app).post('/predict').send({ texts })))
    const rejected = both.filter(r => r.status === 503).length
    const answeredLength = batches.filter((_, i) => both[i]!.status === 200).flat().reduce((n, t) => n + t.length, 0)
    const answered = 50 * (2 - rejected)

    const res = await request(app).get('/metrics?format=prometheus').expect(200)
    expect(res.headers['content-type']).to.equal('text/plain; version=0.0.4; charset=utf-8')
    const m = scrape(res.text)
    expect(m.types.get('tfidf_http_requests_total')).to.equal('counter')
    expect(m.types.get('tfidf_http_request_duration_seconds')).to.equal('histogram')
    expect(total(m, 'tfidf_http_requests_total', { route: '/predict', method: 'POST', status: '200' })).to.equal(4 + 2 - rejected)
    expect(total(m, 'tfidf_http_requests_total', { route: '/predict', status: '422' })).to.equal(1)
    expect(total(m, 'tfidf_http_requests_total', { route: 'unmatched', status: '404' })).to.equal(1)
    expect(total(m, 'tfidf_http_request_duration_seconds_count', { route: '/predict' })).to.equal(4 + 1 + 2)
    expect(total(m, 'tfidf_http_request_duration_seconds_bucket', { route: '/predict', le: '+Inf' })).to.equal(4 + 1 + 2)
    expect(total(m, 'tfidf_rejected_requests_total', { cause: 'queue_full' })).to.equal(rejected)
    expect(total(m, 'tfidf_predictions_total')).to.equal(6 + answered)
    expect(total(m, 'tfidf_predictions_total', { label: 'negative' })).to.be.at.least(2)
    expect(total(m, 'tfidf_texts_per_request_count')).to.equal(4 + 2 - rejected)
    expect(total(m, 'tfidf_text_length_characters_count')).to.equal(6 + answered)
    expect(total(m, 'tfidf_text_length_characters_sum')).to.equal(24 + 24 + 17 + 11 + 16 + 9 + answeredLength)
    // The repeated text came from the cache: coverage is known for the other texts only. A
    // request turned away had looked its texts up first.
    expect(total(m, 'tfidf_cache_hits_total')).to.equal(1)
    expect(total(m, 'tfidf_cache_misses_total')).to.equal(5 + 100)
    expect(total(m, 'tfidf_vocabulary_coverage_ratio_count')).to.equal(5 + answered)
    expect(total(m, 'tfidf_texts_without_known_feature_total')).to.equal(1)
    expect(total(m, 'tfidf_cache_entries')).to.equal(5 + answered)
    expect(total(m, 'tfidf_cache_bytes')).to.equal(256 * (5 + answered))
    expect(total(m, 'tfidf_workers_alive')).to.equal(2)
    expect(total(m, 'tfidf_queue_depth')).to.equal(0)
    expect(total(m, 'tfidf_requests_in_flight')).to.equal(0)
    expect(total(m, 'tfidf_worker_restarts_total')).to.equal(0)
    expect(total(m, 'tfidf_model_load_seconds')).to.be.above(0)
    expect(m.samples.find(s => s.name === 'tfidf_model_info')!.labels).to.deep.equal({ classifier: 'LogisticRegression', vectorizer: 'TfidfVectorizer', features: '29238', sklearn_version: '1.2.1' })
    // Node's process series (prom-client's defaults).
    expect(total(m, 'process_resident_memory_bytes')).to.be.above(10_000_000)
    expect(m.types.has('nodejs_eventloop_lag_seconds')).to.equal(true)
  })

  it('gives a text\'s vocabulary coverage: the share of its terms that are features', async () => {
    const bucket = (e: Exposition, le: string): number => total(e, 'tfidf_vocabulary_coverage_ratio_bucket', { le })
    const before = scrape((await request(service.app).get('/metrics?format=prometheus')).text)
    // Unigrams and bigrams: five terms, of which "wonderful" and "film" are features: 0.4.
    await request(service.app).post('/predict').send({ text: 'wonderful zzqx film' }).expect(200)
    const after = scrape((await request(service.app).get('/metrics?format=prometheus')).text)
    expect(bucket(after, '0.3') - bucket(before, '0.3')).to.equal(0)
    expect(bucket(after, '0.4') - bucket(before, '0.4')).to.equal(1)
    expect(total(after, 'tfidf_vocabulary_coverage_ratio_sum') - total(before, 'tfidf_vocabulary_coverage_ratio_sum')).to.be.closeTo(0.4, 1e-12)
  })

  it('answers OpenMetrics to Prometheus\'s Accept header, the text format to text/plain, JSON to everyone else', async () => {
    const open = await request(service.app).get('/metrics').set('Accept', PROMETHEUS_ACCEPT).expect(200)
    expect(open.headers['content-type']).to.equal('application/openmetrics-text; version=1.0.0; charset=utf-8')
    const om = readExposition(open.text, true)
    expect(om.types.get('tfidf_http_requests')).to.equal('counter')
    expect(total(om, 'tfidf_http_requests_total')).to.be.above(0)
    // A text scrape after an OpenMetrics one still names counters with _total.
    const text = await request(service.app).get('/metrics').set('Accept', 'text/plain;version=0.0.4').expect(200)
    expect(text.headers['content-type']).to.equal('text/plain; version=0.0.4; charset=utf-8')
    expect(scrape(text.text).types.get('tfidf_http_requests_total')).to.equal('counter')
    expect((await request(service.app).get('/metrics?format=openmetrics').expect(200)).headers['content-type']).to.match(/^application\/openmetrics-text/)
    for (const accept of ['*/*', 'application/json', 'text/html,application/xhtml+xml,*/*;q=0.8']) {
      const json = await request(service.app).get('/metrics').set('Accept', accept).expect(200)
      expect(Object.keys(json.body as object)).to.deep.equal(['predictions_total', 'predictions_per_second', 'average_response_time', 'memory_usage_mb', 'uptime_seconds', 'cache_hit_rate'])
    }
    expect((await request(service.app).get('/metrics?format=xml').expect(400)).body).to.deep.equal({ detail: 'format must be json, prometheus or openmetrics, not "xml"' })
  })

  it('is off in both forms with ENABLE_METRICS=false', async () => {
    const off = await startService({ ENABLE_METRICS: 'false' })
    try {
      await request(off.app).get('/metrics').set('Accept', PROMETHEUS_ACCEPT).expect(404)
      await request(off.app).get('/metrics?format=prometheus').expect(404)
      await request(off.app).get('/metrics').expect(404)
    } finally {
      await off.close()
    }
  })
})

