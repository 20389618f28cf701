import { FollowUp } from '@followup/sdk';
import { newSigningSecret, type ReceiverReport } from '@followup/sdk/receiver-checks';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { checkWebhookReceiver } from './testing.js';

// No database here: the checks run against handlers in this process, on either driver's run.

const client = new FollowUp({ token: 'hns_sa_1.unused', baseUrl: 'http://127.0.0.1:1' });
const failed = (report: ReceiverReport) =>
  report.checks.filter((check) => check.status === 'fail').map((check) => check.id);

describe('checkWebhookReceiver', () => {
  it("passes the SDK's handler as a Web handler, called without a socket, on all 21 checks", async () => {
    const secret = newSigningSecret();
    const handler = client.webhooks.handler({ secret, on: {} });
    const report = await checkWebhookReceiver(handler, { secret });
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.checks).toHaveLength(21);
    expect(report.ok).toBe(true);
    expect(report.url).toBe('http://receiver.test/webhooks');
  });

  it("passes the SDK's handler as a Node request listener, on a loopback port", async () => {
    const secret = newSigningSecret();
    const { node } = client.webhooks.handler({ secret, on: {} });
    const report = await checkWebhookReceiver({ node }, { secret, path: '/hooks/followup' });
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/hooks\/followup$/);
  });

  it('fails a Fastify route that takes deliveries unverified, on exactly the signature checks', async () => {
    const app = Fastify();
    app.post('/webhooks', async (_request, reply) => reply.code(204).send());
    await app.ready();
    try {
      const report = await checkWebhookReceiver(
        { node: (request, response) => app.routing(request, response) },
        { secret: newSigningSecret() },
      );
      expect(failed(report)).toEqual([
        'bad-signature',
        'wrong-secret',
        'stale-timestamp',
        'future-timestamp',
        'missing-signature',
        'changed-body',
      ]);
      expect(report.ok).toBe(false);
    } finally {
      await app.close();
    }
  });

  it('fails every delivery of a listener that throws, answered 500, and of a wrong path', async () => {
    const secret = newSigningSecret();
    const throwing = await checkWebhookReceiver(
      {
        node: async () => {
          throw new Error('handler bug');
        },
      },
      { secret, eventKinds: ['contact.created'] },
    );
    expect(throwing.checks.find((check) => check.id === 'event:contact.created')).toMatchObject({
      status: 'fail',
      httpStatus: 500,
    });
    expect(throwing.ok).toBe(false);
    const { fetch } = client.webhooks.handler({ secret, on: {} });
    const routed = await checkWebhookReceiver(
      {
        fetch: (request) =>
          new URL(request.url).pathname === '/webhooks'
            ? fetch(request)
            : new Response(null, { status: 404 }),
      },
      { secret, path: '/elsewhere', eventKinds: ['contact.created'] },
    );
    expect(routed.checks[0]).toMatchObject({ id: 'event:contact.created', status: 'fail' });
  });

  it('refuses a secret of the wrong form, and a receiver that is neither kind', async () => {
    await expect(
      checkWebhookReceiver({ fetch: () => new Response() }, { secret: 'hunter2' }),
    ).rejects.toMatchObject({ name: 'ConfigurationError' });
    await expect(checkWebhookReceiver({} as never, { secret: newSigningSecret() })).rejects.toThrow(
      TypeError,
    );
  });
});
