/**
 * The ceiling of the design: an Express 5 server that parses the same bodies and answers a
 * fixed body of the same shape, without classifying anything. PORT from the environment.
 */
import express from 'express'
import { noopAnswer } from './noop-answer.js'

const app = express()
app.use(express.json({ limit: '1mb' }))
app.post('/predict', (req, res) => { res.json(noopAnswer(req.body)) })
app.get('/health', (_req, res) => { res.json({ status: 'healthy' }) })
app.listen(Number(process.env.PORT), '127.0.0.1')
