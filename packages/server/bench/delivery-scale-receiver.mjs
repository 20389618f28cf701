#!/usr/bin/env node
// The webhook receiver of delivery-scale.bench.mjs, in a process of its own: one node:http
// server for every endpoint (each endpoint is a path, /hooks/<n>), answering 204 at once. It
// notes the first arrival of each (endpoint, contact) on the machine's wall clock, in
// milliseconds with fractions (performance.timeOrigin + performance.now(), which the benchmark
// reads the same way), and answers its parent over IPC:
//   { type: 'down' }      stops listening (every endpoint refuses connections: an outage)
//   { type: 'up' }        listens again on the same port
//   { type: 'count' }     → { type: 'count', arrived, duplicates }
//   { type: 'arrivals' }  → { type: 'arrivals', arrivals: [[endpoint, contactId, at], …] }
//   { type: 'reset' }     forgets every arrival
// and sends { type: 'ready', port } once it listens.
import { createServer } from 'node:http';

const wallClock = () => performance.timeOrigin + performance.now();
let arrivals = new Map();
let duplicates = 0;
let port = 0;
let server;
const sockets = new Set();

function make() {
  const created = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const at = wallClock();
      response.writeHead(204).end();
      try {
        const { data } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const key = `${request.url}\u0000${data.id}`;
        if (arrivals.has(key)) duplicates++;
        else arrivals.set(key, at);
      } catch {
        // Not a contact event: not counted.
      }
    });
  });
  created.keepAliveTimeout = 30_000;
  created.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return created;
}

function listen() {
  server = make();
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => {
      port = server.address().port;
      resolve();
    }),
  );
}

async function stop() {
  const stopping = server;
  server = undefined;
  if (!stopping) return;
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => stopping.close(resolve));
}

process.on('message', async (message) => {
  if (message.type === 'down') {
    await stop();
    process.send({ type: 'down' });
  } else if (message.type === 'up') {
    await listen();
    process.send({ type: 'up' });
  } else if (message.type === 'count') {
    process.send({ type: 'count', arrived: arrivals.size, duplicates });
  } else if (message.type === 'arrivals') {
    const list = [];
    for (const [key, at] of arrivals) {
      const [path, contactId] = key.split('\u0000');
      list.push([path, contactId, at]);
    }
    process.send({ type: 'arrivals', arrivals: list });
  } else if (message.type === 'reset') {
    arrivals = new Map();
    duplicates = 0;
    process.send({ type: 'reset' });
  }
});
process.on('disconnect', async () => {
  await stop();
  process.exit(0);
});

await listen();
process.send({ type: 'ready', port });
