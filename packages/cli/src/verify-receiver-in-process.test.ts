import { FollowUp } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { newSigningSecret } from './local-secret.js';
import { verifyReceiver } from './verify-receiver.js';

describe('verifyReceiver in-process', () => {
  it("checks a Web handler without a socket, through the fetch option: the SDK's handler", async () => {
    const secret = newSigningSecret();
    const client = new FollowUp({ token: 'hns_sa_1.unused', baseUrl: 'http://127.0.0.1:1' });
    const handler = client.webhooks.handler({ secret, on: {} });
    const report = await verifyReceiver({
      url: 'http://receiver.test/webhooks',
      secret,
      fetch: async (input, init) => handler(new Request(input, init)),
    });
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
  });
});
