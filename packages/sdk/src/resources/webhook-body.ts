import { ConfigurationError } from '../follow-up-error.js';
import type { NodeRequestLike } from './webhook-handler-options.js';

/** A body read whole, or `'too_large'` once it passed the limit (nothing more is read). */
export type BodyRead = Uint8Array | 'too_large';

/** A `Content-Length` header as a byte count, or `undefined` when absent or not one. */
export function declaredLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d{1,16}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** Reads a Web body, at most `limit` bytes; past it, stops reading. */
export async function readWebBody(request: Request, limit: number): Promise<BodyRead> {
  if (request.bodyUsed) {
    throw new ConfigurationError({
      message:
        'The request body was read before the webhook handler, so its raw bytes are gone: give the handler the request as it arrived (with Hono, c.req.raw before any c.req.json()).',
    });
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      return 'too_large';
    }
    chunks.push(value);
  }
  return concat(chunks, length);
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const encoder = new TextEncoder();

/** Reads a Node body, at most `limit` bytes; past it, lets the rest flow away unread. */
export function readNodeBody(request: NodeRequestLike, limit: number): Promise<BodyRead> {
  const { body } = request;
  if (body instanceof Uint8Array)
    return Promise.resolve(body.byteLength > limit ? 'too_large' : body);
  if (typeof body === 'string') {
    const bytes = encoder.encode(body);
    return Promise.resolve(bytes.byteLength > limit ? 'too_large' : bytes);
  }
  if ((body !== undefined && body !== null) || request.readableEnded === true) {
    return Promise.reject(
      new ConfigurationError({
        message:
          'The request body was read and parsed before the webhook handler, so its raw bytes are gone: mount the handler before any JSON body parser, or give it the raw body (express.raw()).',
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let length = 0;
    const finish = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
    };
    const onData = (chunk: unknown) => {
      const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : (chunk as Uint8Array);
      length += bytes.byteLength;
      if (length > limit) {
        finish();
        request.resume();
        resolve('too_large');
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      finish();
      resolve(concat(chunks, length));
    };
    const onError = (error: unknown) => {
      finish();
      reject(error);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  });
}
