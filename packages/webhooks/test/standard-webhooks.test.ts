import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import * as node from '../src/index.js';
import * as web from '../src/web.js';

// Both entries behind one asynchronous face.
const entries = [
  {
    name: 'node',
    verify: async (...args: Parameters<typeof node.verifyStandardWebhook>) =>
      node.verifyStandardWebhook(...args),
  },
  { name: 'web', verify: web.verifyStandardWebhook },
] as const;

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  throw new Error('verified');
}

// The Standard Webhooks specification's published example (also checked, with Python's hmac,
// by scripts/make-vectors.py).
const published = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  payload: '{"test": 2432232314}',
  headers: {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  },
};

describe.each(entries)('verifyStandardWebhook, $name entry', (entry) => {
  it('verifies the specification’s published example', async () => {
    await expect(
      entry.verify(published.payload, published.headers, {
        secret: published.secret,
        now: 1614265330,
      }),
    ).resolves.toEqual({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      secretIndex: 0,
    });
  });

  it('verifies what the standardwebhooks package signs, keyed with the decoded bytes', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const body = '{"id":"dlv_1","event":"contact.created"}';
    const timestamp = new Date(1_700_000_000_000);
    const signature = new Webhook(secret).sign('dlv_1', timestamp, body);
    const headers = new Headers({
      'webhook-id': 'dlv_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1a,ignored ${signature}`,
    });
    const bytes = new TextEncoder().encode(body);
    await expect(entry.verify(bytes, headers, { secret, now: 1_700_000_100 })).resolves.toEqual({
      id: 'dlv_1',
      timestamp: 1_700_000_000,
      secretIndex: 0,
    });
    // Rotation: the second secret matches.
    await expect(
      entry.verify(body, headers, {
        secret: [`whsec_${randomBytes(32).toString('base64')}`, secret],
        now: 1_700_000_000,
      }),
    ).resolves.toMatchObject({ secretIndex: 1 });
    // The raw key bytes work too, and a base64url spelling of the same secret.
    const raw = Buffer.from(secret.slice(6), 'base64');
    await expect(
      entry.verify(body, headers, { secret: new Uint8Array(raw), now: 1_700_000_000 }),
    ).resolves.toMatchObject({ secretIndex: 0 });
    await expect(
      entry.verify(body, headers, {
        secret: `whsec_${raw.toString('base64url')}`,
        now: 1_700_000_000,
      }),
    ).resolves.toMatchObject({ secretIndex: 0 });
  });

  it('refuses a changed body, another secret, an old timestamp and malformed headers', async () => {
    const { secret, payload, headers } = published;
    const at = { now: 1614265330 };
    expect(await codeOf(entry.verify(`${payload} `, headers, { secret, ...at }))).toBe(
      'no_matching_signature',
    );
    expect(
      await codeOf(
        entry.verify(payload, headers, {
          secret: `whsec_${randomBytes(24).toString('base64')}`,
          ...at,
        }),
      ),
    ).toBe('no_matching_signature');
    expect(await codeOf(entry.verify(payload, headers, { secret, now: 1614265330 + 301 }))).toBe(
      'timestamp_too_old',
    );
    expect(await codeOf(entry.verify(payload, headers, { secret, now: 1614265330 - 301 }))).toBe(
      'timestamp_in_future',
    );
    const without = { ...headers } as Record<string, string>;
    delete without['webhook-id'];
    expect(await codeOf(entry.verify(payload, without, { secret, ...at }))).toBe('missing_header');
    for (const change of [
      { 'webhook-timestamp': '1614265330.5' },
      { 'webhook-signature': 'v1' },
      { 'webhook-signature': 'v1,not base64!' },
      { 'webhook-signature': 'v1,AAAA' },
      { 'webhook-signature': Array.from({ length: 33 }, () => 'v1,AAAA').join(' ') },
      { 'webhook-id': '' },
    ]) {
      expect(
        await codeOf(entry.verify(payload, { ...headers, ...change }, { secret, ...at })),
      ).toBe('malformed_header');
    }
    expect(await codeOf(entry.verify(payload, headers, { secret: 'whsec_%%%', ...at }))).toBe(
      'invalid_secret',
    );
    expect(await codeOf(entry.verify({} as never, headers, { secret, ...at }))).toBe(
      'payload_not_raw',
    );
  });
});

const signers = [
  {
    name: 'node',
    sign: async (...args: Parameters<typeof node.signStandardWebhook>) =>
      node.signStandardWebhook(...args),
  },
  { name: 'web', sign: web.signStandardWebhook },
] as const;

describe.each(signers)('signStandardWebhook, $name entry', (signer) => {
  it('signs the specification’s published example as published', async () => {
    await expect(
      signer.sign(published.payload, {
        id: published.headers['webhook-id'],
        secret: published.secret,
        timestamp: 1614265330,
      }),
    ).resolves.toBe(published.headers['webhook-signature']);
  });

  it('signs as the standardwebhooks package does, for any body, id and time', async () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const reference = new Webhook(secret);
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        async (body, id, seconds) => {
          fc.pre(body.isWellFormed());
          const signature = await signer.sign(body, { id, secret, timestamp: seconds });
          expect(signature).toBe(reference.sign(id, new Date(seconds * 1000), body));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('lists one entry per secret during a rotation, each verifying with its own secret', async () => {
    const old = `whsec_${randomBytes(32).toString('base64')}`;
    const next = `whsec_${randomBytes(32).toString('base64')}`;
    const body = '{"id":"dlv_2"}';
    const signature = await signer.sign(body, { id: 'dlv_2', secret: [next, old], timestamp: 1 });
    expect(signature.split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': 'dlv_2',
      'webhook-timestamp': '1',
      'webhook-signature': signature,
    };
    for (const secret of [old, next]) {
      expect(node.verifyStandardWebhook(body, headers, { secret, now: 1 })).toMatchObject({
        id: 'dlv_2',
      });
    }
  });

  it('keys each string secret with its own decoded bytes, however many were used before', async () => {
    // The node entry keeps a key object per string secret: the same text used as a `t=,v1=`
    // secret (keyed with its UTF-8) must not lend it its key, nor one secret another's.
    const secrets = Array.from({ length: 70 }, () => `whsec_${randomBytes(32).toString('base64')}`);
    const body = '{"id":"dlv_4"}';
    for (const secret of [...secrets, ...secrets.slice(0, 3)]) {
      node.signPayload(body, { secret });
      const expected = new Webhook(secret).sign('dlv_4', new Date(1_000), body);
      expect(await signer.sign(body, { id: 'dlv_4', secret, timestamp: 1 })).toBe(expected);
      const headers = {
        'webhook-id': 'dlv_4',
        'webhook-timestamp': '1',
        'webhook-signature': expected,
      };
      expect(node.verifyStandardWebhook(body, headers, { secret, now: 1 }).id).toBe('dlv_4');
    }
  });

  it('refuses a secret that is not base64 after whsec_, and an id the header cannot carry', async () => {
    expect(await codeOf(signer.sign('{}', { id: 'dlv_3', secret: 'whsec_!!' }))).toBe(
      'invalid_secret',
    );
    await expect(signer.sign('{}', { id: 'dlv 3', secret: published.secret })).rejects.toThrow(
      RangeError,
    );
  });
});
