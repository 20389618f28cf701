import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a subscriber received. */
export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The raw body, as sent. */
  body: string;
}

/** What the subscriber does with the request it receives, in order. */
export type SubscriberBehaviour =
  | { status: number }
  /** Never answers (the sender's timeout ends it). */
  | 'hang'
  /** Drops the connection without an answer. */
  | 'close';

/**
 * A webhook subscriber on loopback: it records every request and answers each one with the next
 * behaviour of its script (the last one repeats). `waitFor(n)` resolves once n requests came.
 */
export interface Subscriber {
  url: string;
  received: ReceivedDelivery[];
  waitFor(count: number): Promise<void>;
  /** Stops listening (a later attempt finds nobody); `listen()` comes back on the same port. */
  stop(): Promise<void>;
  listen(): Promise<void>;
  close(): Promise<void>;
}

export async function startSubscriber(
  script: SubscriberBehaviour[] = [{ status: 200 }],
  port = 0,
): Promise<Subscriber> {
  const received: ReceivedDelivery[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let boundPort = port;

  const make = () => {
    const created = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const behaviour = script[Math.min(received.length, script.length - 1)] ?? { status: 200 };
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        for (const waiter of waiters.filter((entry) => received.length >= entry.count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        if (behaviour === 'hang') return;
        if (behaviour === 'close') {
          request.socket.destroy();
          return;
        }
        response.writeHead(behaviour.status, { 'content-type': 'text/plain' });
        response.end('ok');
      });
    });
    created.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return created;
  };

  const listen = async () => {
    server = make();
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(boundPort, '127.0.0.1', () => resolve());
    });
    boundPort = (listening.address() as AddressInfo).port;
  };
  const stop = async () => {
    const stopping = server;
    server = undefined;
    if (!stopping) return;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => stopping.close(() => resolve()));
  };
  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${boundPort}/hooks`;
    },
    received,
    waitFor(count) {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    stop,
    listen,
    close: stop,
  };
}
