import { verificationError } from './errors.js';

/**
 * The raw request body, exactly as it arrived: a string, or its bytes.
 *
 * Bytes are hashed as they are, never decoded and re-encoded. A string is hashed as its UTF-8
 * encoding, so pass bytes whenever the framework gives them to you.
 */
export type WebhookPayload = string | Uint8Array | ArrayBuffer;

const objectToString = Object.prototype.toString;

/**
 * Returns the payload as a well-formed string or a byte view, without copying bytes.
 * Anything else (a parsed object, `null`, a number) is `payload_not_raw`.
 */
export function rawPayload(payload: unknown): string | Uint8Array {
  if (typeof payload === 'string') {
    // A lone surrogate would be encoded as U+FFFD, so two different strings would sign alike.
    if (!payload.isWellFormed()) {
      throw verificationError(
        'payload_not_raw',
        'The payload string is not well-formed Unicode (it has a lone surrogate); pass the raw body bytes instead.',
      );
    }
    return payload;
  }
  if (payload instanceof Uint8Array) return payload;
  if (ArrayBuffer.isView(payload)) {
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  }
  if (payload instanceof ArrayBuffer || objectToString.call(payload) === '[object ArrayBuffer]') {
    return new Uint8Array(payload as ArrayBuffer);
  }
  const kind = payload === null ? 'null' : typeof payload;
  throw verificationError(
    'payload_not_raw',
    `The payload must be the raw request body (a string, Uint8Array or ArrayBuffer), not ${kind === 'object' ? 'a parsed object' : kind}; read the body as text or bytes before any JSON parsing.`,
  );
}
