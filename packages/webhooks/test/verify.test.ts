import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as node from '../src/index.js';
import * as web from '../src/web.js';
import { codeOf, entries } from './entries.js';

const { WebhookVerificationError } = node;
const T = 1_700_000_000;
const SECRET = 'whsec_test_0123456789abcdef';
const BODY = '{"id":"dlv_1","event":"contact.created","data":{"id":"con_1"}}';

const secretArbitrary = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 64 })
    .filter((secret) => secret.isWellFormed() && !secret.startsWith('whsec_signed_nothing')),
  fc.uint8Array({ minLength: 1, maxLength: 128 }),
);
const timestampArbitrary = fc.integer({ min: 0, max: 99_999_999_999 });

function flipByte(bytes: Uint8Array, index: number, xor: number): Uint8Array {
  const changed = new Uint8Array(bytes);
  const at = index % changed.length;
  changed[at] = (changed[at] as number) ^ xor;
  return changed;
}

describe.each(entries)('$name entry', (entry) => {
  it('round-trips arbitrary bytes, secrets and timestamps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.array(secretArbitrary, { minLength: 1, maxLength: 4 }),
        timestampArbitrary,
        async (payload, secrets, timestamp) => {
          const header = await entry.signPayload(payload, { secret: secrets, timestamp });
          expect(header.split(',v1=')).toHaveLength(secrets.length + 1);
          for (const secret of secrets) {
            const result = await entry.verifySignature(payload, header, {
              secret,
              now: timestamp,
            });
            expect(result).toEqual({ timestamp, secretIndex: 0 });
            // Offered after a secret that signed nothing, the secret that signed is reported.
            const rotated = await entry.verifySignature(payload, header, {
              secret: ['whsec_signed_nothing', secret],
              now: timestamp,
            });
            expect(rotated).toEqual({ timestamp, secretIndex: 1 });
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('fails when any single byte of the payload changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (payload, index, xor) => {
          const header = await entry.signPayload(payload, { secret: SECRET, timestamp: T });
          const code = await codeOf(
            entry.verifySignature(flipByte(payload, index, xor), header, {
              secret: SECRET,
              now: T,
            }),
          );
          expect(code).toBe('no_matching_signature');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('fails when any single character of the header changes', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: header.length - 1 }),
        fc.integer({ min: 0x20, max: 0x7e }),
        async (index, code) => {
          fc.pre(header.charCodeAt(index) !== code);
          const changed =
            header.slice(0, index) + String.fromCharCode(code) + header.slice(index + 1);
          // A changed letter case in the hex digest is the same digest; everything else fails.
          fc.pre(changed.toLowerCase() !== header.toLowerCase());
          const result = await entry.safeVerifySignature(BODY, changed, {
            secret: SECRET,
            now: T,
            tolerance: 10 ** 12,
          });
          expect(result.ok).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fails when any single byte of the secret changes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (secret, index, xor) => {
          const header = await entry.signPayload(BODY, { secret, timestamp: T });
          const code = await codeOf(
            entry.verifySignature(BODY, header, { secret: flipByte(secret, index, xor), now: T }),
          );
          expect(code).toBe('no_matching_signature');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('throws nothing but WebhookVerificationError for arbitrary header strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 })),
        async (header) => {
          const result = await entry.safeVerifySignature(BODY, header, { secret: SECRET, now: T });
          expect(result.ok).toBe(false);
          if (!result.ok) expect(WebhookVerificationError.isInstance(result.error)).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('hashes bytes as they are: bodies differing only in invalid UTF-8 do not cross-verify', async () => {
    const a = new Uint8Array([0x7b, 0xff, 0x7d]);
    const b = new Uint8Array([0x7b, 0xfe, 0x7d]);
    // Decoded as UTF-8 both would be "{\uFFFD}".
    expect(new TextDecoder().decode(a)).toBe(new TextDecoder().decode(b));
    const header = await entry.signPayload(a, { secret: SECRET, timestamp: T });
    expect(await codeOf(entry.verifySignature(b, header, { secret: SECRET, now: T }))).toBe(
      'no_matching_signature',
    );
  });

  it('checks the timestamp in both directions, with a default of 300 s', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    const at = (now: number, tolerance?: number) =>
      entry.verifySignature(BODY, header, {
        secret: SECRET,
        now,
        ...(tolerance === undefined ? {} : { tolerance }),
      });
    await expect(at(T + 300)).resolves.toMatchObject({ timestamp: T });
    await expect(at(T - 300)).resolves.toMatchObject({ timestamp: T });
    expect(await codeOf(at(T + 301))).toBe('timestamp_too_old');
    expect(await codeOf(at(T - 301))).toBe('timestamp_in_future');
    expect(await codeOf(at(T + 1, 0))).toBe('timestamp_too_old');
    await expect(at(T, 0)).resolves.toMatchObject({ timestamp: T });
    await expect(at(T + 3600, 7200)).resolves.toMatchObject({ timestamp: T });
    await expect(at(T + 1, 1.5)).resolves.toMatchObject({ timestamp: T });
  });

  it('skips the timestamp check only when told to explicitly', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    await expect(
      entry.verifySignature(BODY, header, {
        secret: SECRET,
        now: T + 10 ** 8,
        ignoreTimestamp: true,
      }),
    ).resolves.toEqual({ timestamp: T, secretIndex: 0 });
    // The signature is still checked.
    expect(
      await codeOf(
        entry.verifySignature(`${BODY} `, header, { secret: SECRET, ignoreTimestamp: true }),
      ),
    ).toBe('no_matching_signature');
  });

  it('uses the real clock when no now is given', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET });
    const { timestamp } = await entry.verifySignature(BODY, header, { secret: SECRET });
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(300);
    const stale = await entry.signPayload(BODY, {
      secret: SECRET,
      timestamp: new Date(2020, 0, 1),
    });
    expect(await codeOf(entry.verifySignature(BODY, stale, { secret: SECRET }))).toBe(
      'timestamp_too_old',
    );
  });

  it('refuses invalid tolerance and time options with a RangeError', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    for (const tolerance of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(
        entry.verifySignature(BODY, header, { secret: SECRET, now: T, tolerance }),
      ).rejects.toThrow(RangeError);
    }
    await expect(
      entry.verifySignature(BODY, header, { secret: SECRET, now: T * 1000 }),
    ).rejects.toThrow(/milliseconds/);
    await expect(
      entry.signPayload(BODY, { secret: SECRET, timestamp: Date.now() }),
    ).rejects.toThrow(/milliseconds/);
    await expect(
      entry.signPayload(BODY, { secret: SECRET, timestamp: new Date(Number.NaN) }),
    ).rejects.toThrow(RangeError);
  });

  it('refuses a parsed body or a string that is not well-formed Unicode', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    for (const payload of [JSON.parse(BODY), null, undefined, 42, ['x']]) {
      expect(
        await codeOf(entry.verifySignature(payload as never, header, { secret: SECRET, now: T })),
      ).toBe('payload_not_raw');
    }
    expect(await codeOf(entry.signPayload({ a: 1 } as never, { secret: SECRET }))).toBe(
      'payload_not_raw',
    );
    expect(await codeOf(entry.signPayload('a\uD800b', { secret: SECRET }))).toBe('payload_not_raw');
  });

  it('accepts a Node Buffer, any typed-array view and an ArrayBuffer as the same bytes', async () => {
    const buffer = Buffer.from(`xx${BODY}yy`).subarray(2, 2 + BODY.length);
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    const forms = [
      buffer,
      new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength),
      new TextEncoder().encode(BODY).buffer,
    ];
    for (const payload of forms) {
      await expect(
        entry.verifySignature(payload as never, header, { secret: SECRET, now: T }),
      ).resolves.toEqual({ timestamp: T, secretIndex: 0 });
    }
  });

  it('refuses missing or empty secrets as invalid_secret', async () => {
    const header = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    for (const secret of [undefined, '', [], [SECRET, ''], new Uint8Array(0), 42, null]) {
      expect(
        await codeOf(entry.verifySignature(BODY, header, { secret: secret as never, now: T })),
      ).toBe('invalid_secret');
      expect(await codeOf(entry.signPayload(BODY, { secret: secret as never }))).toBe(
        'invalid_secret',
      );
    }
    expect(await codeOf(entry.verifySignature(BODY, header, undefined as never))).toBe(
      'invalid_secret',
    );
  });

  it('reads the header from Headers, IncomingHttpHeaders and plain records', async () => {
    const signature = await entry.signPayload(BODY, { secret: SECRET, timestamp: T });
    const forms = [
      new Headers({ 'X-Service-Signature': signature, 'Content-Type': 'application/json' }),
      { 'x-service-signature': signature, host: 'example.test' },
      { 'X-Service-Signature': signature },
    ];
    for (const headers of forms) {
      await expect(
        entry.verifySignature(BODY, headers, { secret: SECRET, now: T }),
      ).resolves.toMatchObject({ timestamp: T });
    }
    expect(await codeOf(entry.verifySignature(BODY, {}, { secret: SECRET, now: T }))).toBe(
      'missing_header',
    );
    expect(
      await codeOf(
        entry.verifySignature(
          BODY,
          { 'X-Service-Signature': signature, 'x-service-signature': signature },
          { secret: SECRET, now: T },
        ),
      ),
    ).toBe('malformed_header');
    // fetch's Headers joins a repeated header with ", ", which repeats "t".
    const doubled = new Headers();
    doubled.append('X-Service-Signature', signature);
    doubled.append('X-Service-Signature', signature);
    expect(await codeOf(entry.verifySignature(BODY, doubled, { secret: SECRET, now: T }))).toBe(
      'malformed_header',
    );
  });

  it('never puts the payload, a secret or a signature in an error', async () => {
    const secret = 'whsec_VERY_SECRET_VALUE_4242';
    const body = '{"ssn":"PAYLOAD-MARKER-123-45-6789"}';
    const signed = await entry.signPayload(body, { secret, timestamp: T });
    const expected = signed.split('v1=')[1] as string;
    const attempts = [
      () => entry.verifySignature(body, signed, { secret: 'whsec_other', now: T }),
      () => entry.verifySignature(`${body} `, signed, { secret, now: T }),
      () => entry.verifySignature(body, signed, { secret, now: T + 10_000 }),
      () => entry.verifySignature(body, `${signed},junk`, { secret, now: T }),
      () => entry.verifySignature(JSON.parse(body), signed, { secret, now: T }),
      () => entry.verifySignature(body, signed, { secret: [secret, ''], now: T }),
      () =>
        entry.verifyVendorSignature(
          node.vendorProfiles.athenahealth,
          body,
          { 'x-hub-signature': `sha256=${'0'.repeat(64)}` },
          { secret },
        ),
    ];
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => {
          throw new Error('expected a failure');
        },
        (caught: unknown) => caught,
      );
      expect(WebhookVerificationError.isInstance(error)).toBe(true);
      const everything = JSON.stringify({
        ...(error as object),
        message: (error as Error).message,
        stack: (error as Error).stack,
      });
      for (const leak of [secret, 'PAYLOAD-MARKER', expected, 'VERY_SECRET']) {
        expect(everything).not.toContain(leak);
      }
    }
  });

  it('verifies every built-in signed vendor and refuses the ones without a scheme', async () => {
    const body = '{"event":"patient.updated"}';
    const athena = node.signPayload(body, { secret: 'athena', timestamp: T });
    await expect(
      entry.verifyVendorSignature(
        node.vendorProfiles.akute,
        body,
        { 'x-akute-signature': athena },
        {
          secret: 'athena',
          now: T,
        },
      ),
    ).resolves.toEqual({ timestamp: T, secretIndex: 0 });
    for (const key of ['epic', 'oracle-health', 'canvas'] as const) {
      await expect(
        entry.verifyVendorSignature(node.vendorProfiles[key] as never, body, {}, { secret: 'x' }),
      ).rejects.toThrow(TypeError);
    }
  });
});

describe('both entries', () => {
  it('agree on every signature, for arbitrary input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.uint8Array({ maxLength: 4096 }), fc.string({ maxLength: 1000 })),
        fc.array(secretArbitrary, { minLength: 1, maxLength: 3 }),
        timestampArbitrary,
        async (payload, secret, timestamp) => {
          fc.pre(typeof payload !== 'string' || payload.isWellFormed());
          expect(await web.signPayload(payload, { secret, timestamp })).toBe(
            node.signPayload(payload, { secret, timestamp }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('share one error brand: isInstance works across them, instanceof need not', async () => {
    const fromWeb = await web.safeVerifySignature(BODY, 'nonsense', { secret: SECRET });
    const fromNode = node.safeVerifySignature(BODY, 'nonsense', { secret: SECRET });
    if (fromWeb.ok || fromNode.ok) throw new Error('expected failures');
    expect(node.WebhookVerificationError.isInstance(fromWeb.error)).toBe(true);
    expect(web.WebhookVerificationError.isInstance(fromNode.error)).toBe(true);
    expect(node.WebhookVerificationError.isInstance(new Error('x'))).toBe(false);
    expect(node.WebhookVerificationError.isInstance({ code: 'malformed_header' })).toBe(false);
    expect(fromNode.error.name).toBe('WebhookVerificationError');
    expect(fromNode.error).toBeInstanceOf(Error);
  });

  it('expose the same names', () => {
    expect(Object.keys(web).sort()).toEqual(Object.keys(node).sort());
  });

  it('keep the built-in vendor profiles frozen and prototype-free', () => {
    const profiles = node.vendorProfiles as unknown as Record<string, unknown>;
    expect(Object.isFrozen(profiles)).toBe(true);
    expect(Object.isFrozen(profiles.athenahealth)).toBe(true);
    expect(profiles.toString).toBeUndefined();
    expect(Object.getPrototypeOf(profiles)).toBeNull();
    expect(profiles.constructor).toBeUndefined();
    expect(Object.keys(profiles).sort()).toEqual(
      ['akute', 'athenahealth', 'canvas', 'epic', 'metriport', 'oracle-health'].sort(),
    );
  });
});
