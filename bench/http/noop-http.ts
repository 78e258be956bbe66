/** The floor under Express: node:http alone, reading and parsing the same bodies. PORT from the environment. */
import http from 'node:http'
import { noopAnswer } from './noop-answer.js'

http.createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"healthy"}')
    return
  }
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const answer = JSON.stringify(noopAnswer(JSON.parse(Buffer.concat(chunks).toString('utf8'))))
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(answer) }).end(answer)
  })
}).listen(Number(process.env.PORT), '127.0.0.1')
