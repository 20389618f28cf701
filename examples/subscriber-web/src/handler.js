// A FollowUp webhook subscriber as a Web `(Request) => Promise<Response>` handler: the shape of
// Hono's `app.post(path, (c) => handler(c.req.raw))`, a Next.js route handler's `POST`, a
// Cloudflare Worker's `fetch`, `Deno.serve` and `Bun.serve`. Web Crypto only: no `node:` import.
import { safeVerifySignature } from '@followup/webhooks/web';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Creates the handler.
 *
 * @param {object} options
 * @param {() => string | string[]} options.secret The endpoint's signing secret (old and new ones
 *   during a rotation), read at each request.
 * @param {(event: { id: string, event: string, data: object }) => void | Promise<void>} options.onEvent
 *   Called once per delivery id. Its promise is handed to `waitUntil` (a Worker's
 *   `ctx.waitUntil`, Next.js's `after`), so the answer does not wait for the work.
 * @returns {(request: Request, waitUntil?: (work: Promise<unknown>) => void) => Promise<Response>}
 */
export function createHandler({ secret, onEvent }) {
  // Handled ids; a real subscriber keeps them in storage (KV, a database) with a time to live.
  const seen = new Set();
  return async (request, waitUntil = (work) => void work.catch(() => {})) => {
    if (request.method !== 'POST') return new Response(null, { status: 405 });
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > MAX_BODY_BYTES) return new Response(null, { status: 413 });
    // The bytes as they arrived: request.json() would parse them, and a parsed and re-serialised
    // body does not verify.
    const body = new Uint8Array(await request.arrayBuffer());
    if (body.length > MAX_BODY_BYTES) return new Response(null, { status: 413 });
    const verified = await safeVerifySignature(body, request.headers, { secret: secret() });
    if (!verified.ok) return Response.json({ error: verified.error.code }, { status: 400 });
    const event = JSON.parse(new TextDecoder().decode(body));
    if (seen.has(event.id)) return new Response(null, { status: 200 });
    seen.add(event.id);
    waitUntil(Promise.resolve().then(() => onEvent(event)));
    return new Response(null, { status: 204 });
  };
}
