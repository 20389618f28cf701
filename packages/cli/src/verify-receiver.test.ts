import { newSigningSecret } from '@followup/sdk/receiver-checks';
import {
  SIGNATURE_HEADER,
  STANDARD_WEBHOOK_HEADERS,
  safeVerifySignature,
  verifyStandardWebhook,
} from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ReceivedRequest,
  startTestReceiver,
  type TestReceiver,
} from '../test/support/test-receiver.js';
import { verifyReceiver } from './verify-receiver.js';

const secret = newSigningSecret();
const receivers: TestReceiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) await receiver.close();
});

/** How a receiver under test departs from the contract. */
interface Flaws {
  takesAnything?: boolean;
  ignoresTimestamp?: boolean;
  firstSignatureOnly?: boolean;
  serviceSchemeOnly?: boolean;
  standardSchemeOnly?: boolean;
  refusesDuplicates?: boolean;
  maxBodyBytes?: number;
  refusesKind?: string;
  refusalStatus?: number;
  onRequest?: () => void;
  /** The receiver's clock, in milliseconds. */
  now?: () => number;
}

/** Verifies with @followup/webhooks as a receiver should, except for its `flaws`. */
function verified(request: ReceivedRequest, flaws: Flaws): boolean {
  if (flaws.takesAnything) return true;
  const headers = { ...request.headers };
  if (flaws.firstSignatureOnly) {
    const service = headers[SIGNATURE_HEADER.toLowerCase()];
    if (service)
      headers[SIGNATURE_HEADER.toLowerCase()] = service
        .split(/,(?=v1=)/)
        .slice(0, 2)
        .join(',');
    const standard = headers[STANDARD_WEBHOOK_HEADERS.signature];
    if (standard) headers[STANDARD_WEBHOOK_HEADERS.signature] = standard.split(' ')[0] as string;
  }
  const timestamp = flaws.ignoresTimestamp
    ? { ignoreTimestamp: true }
    : flaws.now
      ? { now: Math.floor(flaws.now() / 1000) }
      : {};
  const byService =
    !flaws.standardSchemeOnly &&
    safeVerifySignature(request.body, headers, { secret, ...timestamp }).ok;
  let byStandard = false;
  if (!flaws.serviceSchemeOnly) {
    try {
      verifyStandardWebhook(request.body, headers, { secret, ...timestamp });
      byStandard = true;
    } catch {}
  }
  return byService || byStandard;
}

async function receiver(flaws: Flaws = {}): Promise<TestReceiver> {
  const seen = new Set<string>();
  const started = await startTestReceiver((request, response) => {
    flaws.onRequest?.();
    if (request.body.byteLength > (flaws.maxBodyBytes ?? 1024 * 1024)) {
      return void response.writeHead(413).end();
    }
    if (!verified(request, flaws)) return void response.writeHead(flaws.refusalStatus ?? 400).end();
    const event = JSON.parse(request.body.toString('utf8'));
    if (event.event === flaws.refusesKind) return void response.writeHead(400).end();
    if (seen.has(event.id))
      return void response.writeHead(flaws.refusesDuplicates ? 409 : 200).end();
    seen.add(event.id);
    response.writeHead(204).end();
  });
  receivers.push(started);
  return started;
}

const outcome = (report: Awaited<ReturnType<typeof verifyReceiver>>, status: string) =>
  report.checks.filter((check) => check.status === status).map((check) => check.id);

describe('verifyReceiver', () => {
  it('passes a receiver that verifies with @followup/webhooks and deduplicates', async () => {
    const target = await receiver();
    const report = await verifyReceiver({ url: target.url, secret });
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary).toEqual({
      passed: report.checks.length,
      failed: 0,
      warnings: 0,
      skipped: 0,
    });
    expect(report.checks.map((check) => check.id)).toEqual([
      'event:contact.created',
      'event:contact.updated',
      'event:contact.deleted',
      'event:contact.erased',
      'event:deal.created',
      'event:deal.updated',
      'event:deal.deleted',
      'event:message.received',
      'event:ehr.receipt.recorded',
      'duplicate',
      'bad-signature',
      'wrong-secret',
      'stale-timestamp',
      'future-timestamp',
      'missing-signature',
      'changed-body',
      'rotation',
      'scheme:x-service-signature',
      'scheme:standard-webhooks',
      'largest-event',
      'response-time',
    ]);
  });

  it.each([
    {
      flaw: 'takes anything',
      flaws: { takesAnything: true },
      failed: [
        'bad-signature',
        'wrong-secret',
        'stale-timestamp',
        'future-timestamp',
        'missing-signature',
        'changed-body',
      ],
    },
    {
      flaw: 'ignores the timestamp',
      flaws: { ignoresTimestamp: true },
      failed: ['stale-timestamp', 'future-timestamp'],
    },
    {
      flaw: 'tries only the first signature',
      flaws: { firstSignatureOnly: true },
      failed: ['rotation'],
    },
    {
      flaw: 'knows only X-Service-Signature',
      flaws: { serviceSchemeOnly: true },
      failed: ['scheme:standard-webhooks'],
    },
    {
      flaw: 'knows only Standard Webhooks',
      flaws: { standardSchemeOnly: true },
      failed: ['scheme:x-service-signature'],
    },
    {
      flaw: 'refuses bodies over 64 KiB',
      flaws: { maxBodyBytes: 64 * 1024 },
      failed: ['largest-event'],
    },
    {
      flaw: 'refuses a kind',
      flaws: { refusesKind: 'deal.deleted' },
      failed: ['event:deal.deleted'],
    },
  ])('fails a receiver that $flaw, on exactly the checks it breaks', async ({ flaws, failed }) => {
    const target = await receiver(flaws);
    const report = await verifyReceiver({ url: target.url, secret });
    expect(outcome(report, 'fail')).toEqual(failed);
    expect(outcome(report, 'warn')).toEqual([]);
    expect(report.ok).toBe(false);
  });

  it('warns of a duplicate answered 409, and of refusals answered 5xx, without failing', async () => {
    const duplicates = await verifyReceiver({
      url: (await receiver({ refusesDuplicates: true })).url,
      secret,
    });
    expect(outcome(duplicates, 'warn')).toEqual(['duplicate']);
    expect(duplicates.ok).toBe(true);
    const fivexx = await verifyReceiver({
      url: (await receiver({ refusalStatus: 500 })).url,
      secret,
    });
    expect(outcome(fivexx, 'warn')).toEqual([
      'bad-signature',
      'wrong-secret',
      'stale-timestamp',
      'future-timestamp',
      'missing-signature',
      'changed-body',
    ]);
    expect(fivexx.ok).toBe(true);
  });

  it("fails a receiver slower than the server's timeout, on the injected clock", async () => {
    let now = Date.now();
    // Each answer takes 20 s on the clock the checks measure with; none waits for real.
    const target = await receiver({
      onRequest: () => {
        now += 20_000;
      },
      now: () => now,
    });
    const report = await verifyReceiver({ url: target.url, secret, now: () => now });
    expect(outcome(report, 'fail')).toEqual(['response-time']);
    expect(report.timing).toEqual({ p50Ms: 20_000, maxMs: 20_000, timeoutMs: 15_000 });
  });

  it('fails every check of an unreachable receiver, and skips a kind it has no sample of', async () => {
    const target = await receiver();
    await target.close();
    const report = await verifyReceiver({
      url: target.url,
      secret,
      eventKinds: ['contact.created', 'contact.merged'],
    });
    expect(report.ok).toBe(false);
    expect(outcome(report, 'skip')).toEqual(['event:contact.merged', 'response-time']);
    expect(report.checks[0]?.detail).toMatch(/no answer \(ECONNREFUSED\)/);
  });

  it('refuses a secret or a URL of the wrong form before sending anything', async () => {
    await expect(
      verifyReceiver({ url: 'http://127.0.0.1:1/', secret: 'hunter2' }),
    ).rejects.toMatchObject({
      code: 'invalid_options',
    });
    await expect(verifyReceiver({ url: 'ftp://x/', secret })).rejects.toMatchObject({
      code: 'invalid_options',
    });
  });
});
