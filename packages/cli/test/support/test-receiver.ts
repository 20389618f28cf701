import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link TestReceiver} received. */
export interface ReceivedRequest {
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A webhook receiver on a loopback port, answering what `answer` says, recording every request. */
export interface TestReceiver {
  url: string;
  readonly requests: readonly ReceivedRequest[];
  /** Resolves with the `count`-th request (1-based), at once when it has arrived. */
  request(count: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/** What the receiver answers a request: a status, or a function writing the response. */
export type Answer = (
  request: ReceivedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

/** Starts a {@link TestReceiver}; `answer` defaults to 204 for everything. */
export async function startTestReceiver(
  answer: Answer = (_request, response) => void response.writeHead(204).end(),
): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: (request: ReceivedRequest) => void }[] = [];
  const server = createServer(async (incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string') headers[name] = value;
    }
    const request = { method: incoming.method ?? '', headers, body: Buffer.concat(chunks) };
    requests.push(request);
    try {
      await answer(request, response, requests.length - 1);
    } catch {
      if (!response.headersSent) response.writeHead(500);
    }
    if (!response.writableEnded) response.end();
    for (const waiter of [...waiters]) {
      if (waiter.count <= requests.length) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(requests[waiter.count - 1] as ReceivedRequest);
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    requests,
    request(count) {
      const arrived = requests[count - 1];
      if (arrived) return Promise.resolve(arrived);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
