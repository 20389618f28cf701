#!/usr/bin/env node
// The framework's own floor: Fastify alone (no logger, no hooks, no plugins) answering, from
// memory, the bytes the real server answered (the JSON file named by the argument, as for
// bare-process.mjs); prints its URL. The distance from bare node:http to this is what Fastify
// costs before any of our code runs.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const answers = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const app = Fastify({ logger: false });
for (const answer of answers) {
  const body = Buffer.from(answer.body);
  app.route({
    method: answer.method,
    url: answer.path,
    handler: (_request, reply) => {
      reply.code(answer.status).header('content-type', answer.type).send(body);
    },
  });
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
