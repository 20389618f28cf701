import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ReceiverReport,
  type VerifyReceiverOptions,
  verifyReceiver,
} from '@followup/sdk/receiver-checks';

/**
 * A webhook receiver to check in-process: a Web handler (`{ fetch }`: the SDK's
 * `client.webhooks.handler(…)` itself, a Hono app, a Next.js route wrapped as
 * `{ fetch: POST }`), called without a socket, or a Node request listener (`{ node }`: an
 * Express app, a `node:http` handler, `handler.node` of the SDK, or a Fastify app as
 * `{ node: (request, response) => app.routing(request, response) }` once it is ready), served on
 * a loopback port for the checks and closed after them.
 *
 * @example
 * ```ts
 * const receiver: WebhookReceiverUnderTest = { node: expressApp };
 * ```
 */
export type WebhookReceiverUnderTest =
  | {
      /** Answers one request, as a Web `fetch` handler does. */
      fetch(request: Request): Response | Promise<Response>;
    }
  | {
      /** Handles one request, as a `node:http` request listener does. */
      node(request: IncomingMessage, response: ServerResponse): unknown;
    };

/**
 * Options of {@link checkWebhookReceiver}: those of `verifyReceiver` of
 * `@followup/sdk/receiver-checks` but the URL and the `fetch`, which the receiver stands for,
 * and the path its requests are sent to.
 *
 * @example
 * ```ts
 * const options: CheckWebhookReceiverOptions = { secret: endpoint.secret, path: '/hooks/followup' };
 * ```
 */
export interface CheckWebhookReceiverOptions extends Omit<VerifyReceiverOptions, 'url' | 'fetch'> {
  /** The path of the requests, for a handler that routes on it; `/webhooks` by default. */
  path?: string;
}

/**
 * Runs the checks of `followup verify-receiver` (those of `verifyReceiver` of
 * `@followup/sdk/receiver-checks`) against your webhook receiver, in this process: one valid
 * delivery of each event kind, the same delivery twice, a bad signature, a wrong secret, a stale
 * and a future timestamp, no signature, a body changed by one byte, two signatures during a
 * rotation, each signature scheme alone, the server's largest event, and the answer times. Each
 * delivery is signed with `secret` as the server signs them.
 *
 * @param receiver - `{ fetch }` (a Web handler, called without a socket) or `{ node }` (a Node
 *   request listener, served on a loopback port for the checks).
 * @param options - The secret your receiver verifies with (`whsec_…`: a test endpoint's
 *   `secret`, or `newSigningSecret()` of `@followup/sdk/receiver-checks`), and optionally the
 *   kinds, the clock, the server's timeout and the path.
 * @returns The report: `ok` is `false` when a check failed; each check has an `id`, a `status`
 *   and a `detail` that says what the receiver did.
 * @throws `ConfigurationError` of `@followup/sdk` for a secret of the wrong form.
 * @example
 * ```ts
 * import { checkWebhookReceiver } from '@followup/server/testing';
 *
 * const report = await checkWebhookReceiver({ node: app }, { secret: process.env.WEBHOOK_SECRET! });
 * expect(report.checks.filter((check) => check.status === 'fail')).toEqual([]);
 * ```
 */
export async function checkWebhookReceiver(
  receiver: WebhookReceiverUnderTest,
  options: CheckWebhookReceiverOptions,
): Promise<ReceiverReport> {
  const { path = '/webhooks', ...checks } = options;
  if ('fetch' in receiver && typeof receiver.fetch === 'function') {
    return verifyReceiver({
      ...checks,
      url: new URL(path, 'http://receiver.test'),
      fetch: async (input, init) => receiver.fetch(new Request(input, init)),
    });
  }
  if (!('node' in receiver) || typeof receiver.node !== 'function') {
    throw new TypeError(
      'checkWebhookReceiver takes { fetch } (a Web handler) or { node } (a Node request listener).',
    );
  }
  const server = createServer((request, response) => {
    // A listener that throws or rejects answers 500, as a framework would: a failed check, not
    // an unhandled rejection in the test process.
    Promise.resolve()
      .then(() => receiver.node(request, response))
      .catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    return await verifyReceiver({ ...checks, url: new URL(path, `http://127.0.0.1:${port}`) });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
