import { describe, expect, it } from 'vitest';
import { FollowUp } from '../client.js';
import { ConfigurationError } from '../follow-up-error.js';
import { isSigningSecret, newSigningSecret } from './signing-secret.js';
import { verifyReceiver } from './verify-receiver.js';

// The checks one by one, against receivers that each break one of them, are tested where they
// run against real sockets and a real server: packages/cli/src/verify-receiver.test.ts and
// packages/server/src/receiver-checks.test.ts.

const client = new FollowUp({ token: 'hns_sa_1.unused', baseUrl: 'http://127.0.0.1:1' });

describe('verifyReceiver in-process', () => {
  it("passes the SDK's own handler on every check, through the fetch option", async () => {
    const secret = newSigningSecret();
    const handler = client.webhooks.handler({ secret, on: {} });
    const report = await verifyReceiver({
      url: 'http://receiver.test/webhooks',
      secret,
      fetch: async (input, init) => handler(new Request(input, init)),
    });
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.checks).toHaveLength(21);
    expect(report.ok).toBe(true);
  });

  it('fails a handler that takes anything on the six checks of the signature', async () => {
    const report = await verifyReceiver({
      url: 'http://receiver.test/webhooks',
      secret: newSigningSecret(),
      fetch: async () => new Response(null, { status: 204 }),
    });
    expect(
      report.checks.filter((check) => check.status === 'fail').map((check) => check.id),
    ).toEqual([
      'bad-signature',
      'wrong-secret',
      'stale-timestamp',
      'future-timestamp',
      'missing-signature',
      'changed-body',
    ]);
    expect(report.ok).toBe(false);
  });

  it('refuses a secret or a URL of the wrong form with a ConfigurationError', async () => {
    const secret = newSigningSecret();
    for (const options of [
      { url: 'http://receiver.test/', secret: 'hunter2' },
      { url: 'ftp://receiver.test/', secret },
      { url: 'not a url', secret },
    ]) {
      const error = await verifyReceiver(options).catch((caught: unknown) => caught);
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect(String((error as Error).message)).not.toContain('hunter2');
    }
  });
});

describe('newSigningSecret', () => {
  it('makes secrets of the form the server makes, from the random bytes given', () => {
    expect(isSigningSecret(newSigningSecret())).toBe(true);
    expect(newSigningSecret((bytes) => bytes.fill(0xfb))).toBe(`whsec_${'+/v7'.repeat(10)}+/s=`);
    expect(isSigningSecret('whsec_short')).toBe(false);
  });
});
