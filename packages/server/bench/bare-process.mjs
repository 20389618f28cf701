#!/usr/bin/env node
// The baseline: a bare node:http server answering, from memory, the bytes the real server
// answered (status, content type and body given in the JSON file named by the argument); prints
// its URL.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byRoute = new Map(
  answers.map((answer) => [
    `${answer.method} ${answer.path}`,
    { ...answer, body: Buffer.from(answer.body) },
  ]),
);
const server = createServer((request, response) => {
  const path = request.url.split('?')[0];
  const answer = byRoute.get(`${request.method} ${path}`);
  request.resume();
  request.on('end', () => {
    if (!answer) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, {
      'content-type': answer.type,
      'content-length': answer.body.length,
    });
    response.end(answer.body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
