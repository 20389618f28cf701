// Serves a Web `(Request) => Promise<Response>` handler on `node:http`, to try it locally; on
// Hono, Next.js, Workers, Deno or Bun the platform does this part.
import { createServer } from 'node:http';
import { Readable } from 'node:stream';

/**
 * @param {(request: Request) => Promise<Response>} handler
 * @returns {import('node:http').Server}
 */
export function serveOnNode(handler) {
  return createServer(async (incoming, outgoing) => {
    try {
      const url = new URL(incoming.url ?? '/', `http://${incoming.headers.host ?? 'localhost'}`);
      const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
      const request = new Request(url, {
        method: incoming.method,
        headers: Object.entries(incoming.headers).flatMap(([name, value]) =>
          Array.isArray(value) ? value.map((item) => [name, item]) : [[name, value ?? '']],
        ),
        ...(hasBody ? { body: Readable.toWeb(incoming), duplex: 'half' } : {}),
      });
      const response = await handler(request);
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    } catch {
      if (!outgoing.headersSent) outgoing.writeHead(400);
      outgoing.end();
    }
  });
}
