import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { ehrSecretsFromEnvironment, ehrSecretVariable } from './ehr-webhook-secrets.js';
import { type EhrWebhookEvent, MAX_REJECTED_BODY_BYTES } from './ehr-webhooks.js';

const secrets = {
  athenahealth: 'athena-secret-1',
  akute: 'akute-secret-2',
  metriport: 'metriport-secret-3',
  epic: 'epic-secret-4',
};

// Odd whitespace, escaped unicode, unusual key order and a trailing newline: a body that any
// parse-and-reserialize step would change. The signature covers exactly these bytes.
const awkwardBody =
  '{ "z":1,\t"a" : "caf\\u00e9 \u00e9",\r\n  "nested":{"b":[1 , 2.50,{"\\"q\\"":null}]} }\n';

function hex(secret: string, data: string | Buffer): string {
  return createHmac('sha256', secret).update(data).digest('hex');
}

let handled: EhrWebhookEvent[] = [];
let handlerBehaviour: (event: EhrWebhookEvent) => Promise<void> = async () => {};

const server = useTestServer({
  ehrWebhookSecrets: secrets,
  ehrHandlers: {
    athenahealth: async (event) => {
      handled.push(event);
      await handlerBehaviour(event);
    },
    akute: async (event) => {
      handled.push(event);
    },
  },
});

function post(vendor: string, body: string | Buffer, headers: Record<string, string>) {
  return server().app.inject({
    method: 'POST',
    url: `/api/ehr/webhooks/${vendor}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  });
}

// The handler runs after the response: wait until the receipt says it ran (a condition, not a
// duration).
async function receiptsOnceHandled() {
  for (;;) {
    const rows = await receipts();
    if (rows.every((row) => row.verdict !== 'valid' || row.handled_at || row.handler_error)) {
      return rows;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function receipts() {
  const { rows } = await server().database.query<{
    id: string;
    vendor: string;
    verdict: string;
    raw_body: Buffer;
    body_size: number;
    body_sha256: Buffer;
    replay_of: string | null;
    headers: Record<string, string>;
    received_at: string;
    handled_at: string | null;
    handler_error: string | null;
  }>('SELECT * FROM ehr_receipts ORDER BY received_at, id');
  return rows;
}

describe('POST /api/ehr/webhooks/:ehr', () => {
  it('verifies athenahealth over the raw bytes as sent, answers 202, then runs the handler', async () => {
    handled = [];
    handlerBehaviour = async () => {};
    const response = await post('athenahealth', awkwardBody, {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, awkwardBody)}`,
    });
    expect(response.statusCode).toBe(202);
    const { receiptId } = response.json();
    expect(receiptId).toMatch(/^rcpt_[0-9A-Z]{26}$/);
    const [receipt] = await receiptsOnceHandled();
    expect(receipt).toMatchObject({ id: receiptId, vendor: 'athenahealth', verdict: 'valid' });
    expect(receipt?.raw_body.equals(Buffer.from(awkwardBody, 'utf8'))).toBe(true);
    expect(receipt?.received_at).toBe('2026-03-01T09:00:00.000Z');
    // That a signature was present is kept, never its value.
    expect(receipt?.headers['x-hub-signature']).toBe('[redacted]');
    expect(handled).toHaveLength(1);
    expect(handled[0]?.receiptId).toBe(receiptId);
    expect(handled[0]?.rawBody.equals(Buffer.from(awkwardBody, 'utf8'))).toBe(true);
    expect(receipt?.handled_at).toBe('2026-03-01T09:00:00.000Z');
  });

  it('fails a signature computed over the re-serialized body', async () => {
    const reserialized = JSON.stringify(JSON.parse(awkwardBody));
    const response = await post('athenahealth', awkwardBody, {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, reserialized)}`,
    });
    expect(response.statusCode).toBe(401);
  });

  it('verifies whatever the content type, and bytes that are not UTF-8', async () => {
    const types = ['application/octet-stream', 'text/plain', 'application/x-www-form-urlencoded'];
    for (const [index, contentType] of types.entries()) {
      // A body of its own each time: the same signed bytes twice would be a replay.
      const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, index]);
      const response = await post('metriport', bytes, {
        'content-type': contentType,
        'x-metriport-signature': hex(secrets.metriport, bytes),
      });
      expect(response.statusCode).toBe(202);
    }
    const stored = await receipts();
    expect(stored.map((receipt) => receipt.verdict)).toEqual(['valid', 'valid', 'valid']);
    expect(
      stored.every((receipt, index) =>
        receipt.raw_body.equals(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80, index])),
      ),
    ).toBe(true);
  });

  it('verifies akute t=,v1= signatures against the injected clock', async () => {
    const t = Math.floor(server().clock.now() / 1000);
    const header = `t=${t},v1=${hex(secrets.akute, `${t}.${awkwardBody}`)}`;
    expect((await post('akute', awkwardBody, { 'x-akute-signature': header })).statusCode).toBe(
      202,
    );
    server().clock.advance(301_000);
    const late = await post('akute', awkwardBody, { 'x-akute-signature': header });
    expect(late.statusCode).toBe(401);
    expect(late.json().detail).toContain('timestamp_too_old');
  });

  it('answers 401 signature_invalid for a bad or missing signature, and still records a receipt', async () => {
    handled = [];
    const bad = await post('athenahealth', awkwardBody, {
      'x-hub-signature': `sha256=${hex('wrong-secret', awkwardBody)}`,
    });
    const missing = await post('athenahealth', awkwardBody, {});
    for (const response of [bad, missing]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.json()).toMatchObject({ status: 401, code: 'signature_invalid' });
    }
    const stored = await receipts();
    expect(stored.map((receipt) => receipt.verdict)).toEqual([
      'invalid_signature',
      'invalid_signature',
    ]);
    expect(stored.every((receipt) => receipt.raw_body.toString('utf8') === awkwardBody)).toBe(true);
    expect(handled).toEqual([]);
  });

  it('answers 404 unknown_vendor, with a receipt', async () => {
    for (const vendor of ['nobody', 'toString', '__proto__', 'constructor']) {
      const response = await post(vendor, '{}', {});
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'unknown_vendor' });
    }
    expect((await receipts()).map((receipt) => receipt.verdict)).toEqual(
      Array(4).fill('unknown_vendor'),
    );
  });

  it('answers 501 vendor_not_supported for a vendor without inbound scheme, or without a secret', async () => {
    for (const vendor of ['epic', 'oracle-health', 'canvas']) {
      const response = await post(vendor, '{}', {});
      expect(response.statusCode).toBe(501);
      expect(response.json()).toMatchObject({ code: 'vendor_not_supported' });
    }
    const { buildServer } = await import('../build-server.js');
    const app = buildServer({ database: server().database, logger: false });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/api/ehr/webhooks/athenahealth',
        headers: { 'x-hub-signature': `sha256=${hex(secrets.athenahealth, '{}')}` },
        payload: '{}',
      });
      expect(response.statusCode).toBe(501);
      expect(response.json().detail).toContain('EHR_WEBHOOK_SECRET_ATHENAHEALTH');
    } finally {
      await app.close();
    }
    expect((await receipts()).map((receipt) => receipt.verdict)).toEqual(
      Array(4).fill('vendor_not_supported'),
    );
  });

  it('keeps the 202 when the handler fails, and records the failure on the receipt', async () => {
    handled = [];
    handlerBehaviour = async () => {
      throw new Error('downstream EHR unavailable');
    };
    const response = await post('athenahealth', awkwardBody, {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, awkwardBody)}`,
    });
    expect(response.statusCode).toBe(202);
    const [receipt] = await receiptsOnceHandled();
    expect(receipt).toMatchObject({
      verdict: 'valid',
      handled_at: null,
      handler_error: 'downstream EHR unavailable',
    });
    const logs = server().logs.join('');
    expect(logs).toContain('EHR webhook handler failed');
    expect(logs).not.toContain('caf');
    expect(logs).not.toContain(hex(secrets.athenahealth, awkwardBody));
  });

  it('stores a handler error message on one line, bounded, whatever was thrown', async () => {
    const thrown: unknown[] = [
      new Error(`bad\u0000byte\r\nnext line \uD800${'x'.repeat(5000)}`),
      Object.create(null),
    ];
    handlerBehaviour = async () => {
      throw thrown.shift();
    };
    for (const body of ['{"n":1}', '{"n":2}']) {
      const response = await post('athenahealth', body, {
        'x-hub-signature': `sha256=${hex(secrets.athenahealth, body)}`,
      });
      expect(response.statusCode).toBe(202);
    }
    const stored = await receiptsOnceHandled();
    expect(stored.map((receipt) => receipt.handler_error?.slice(0, 40))).toEqual([
      'bad byte  next line \uFFFDxxxxxxxxxxxxxxxxxxx',
      'The handler failed without a readable me',
    ]);
    expect(stored[0]?.handler_error).toHaveLength(1000);
  });

  it('announces ehr.receipt.recorded only for a new delivery whose signature verified', async () => {
    handlerBehaviour = async () => {};
    const signed = { 'x-hub-signature': `sha256=${hex(secrets.athenahealth, awkwardBody)}` };
    const refused = [
      await post('athenahealth', awkwardBody, {
        'x-hub-signature': `sha256=${hex('wrong-secret', awkwardBody)}`,
      }),
      await post('athenahealth', awkwardBody, {}),
      await post('epic', '{}', {}),
      await post('nobody', '{}', {}),
    ];
    expect(refused.map((response) => response.statusCode)).toEqual([401, 401, 501, 404]);
    const valid = await post('athenahealth', awkwardBody, signed);
    const replay = await post('athenahealth', awkwardBody, signed);
    expect([valid.statusCode, replay.statusCode]).toEqual([202, 202]);
    await receiptsOnceHandled();
    const { rows } = await server().database.query<{ event: string; data: { id: string } }>(
      'SELECT event, data FROM outbox_events ORDER BY created_at, id',
    );
    expect(rows).toEqual([
      {
        event: 'ehr.receipt.recorded',
        data: expect.objectContaining({ id: valid.json().receiptId, verdict: 'valid' }),
      },
    ]);
    expect((await receipts()).map((receipt) => receipt.verdict)).toEqual([
      'invalid_signature',
      'invalid_signature',
      'vendor_not_supported',
      'unknown_vendor',
      'valid',
      'replayed',
    ]);
  });

  it('answers before the handler finishes', async () => {
    handled = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started: () => void = () => {};
    const handlerStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    handlerBehaviour = () => {
      started();
      return gate;
    };
    const response = await post('athenahealth', awkwardBody, {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, awkwardBody)}`,
    });
    // The 202 is here while the handler is still held at the gate.
    expect(response.statusCode).toBe(202);
    await handlerStarted;
    const [pending] = await receipts();
    expect(pending?.handled_at).toBeNull();
    release();
    const [done] = await receiptsOnceHandled();
    expect(done?.handled_at).not.toBeNull();
    handlerBehaviour = async () => {};
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    const response = await post('metriport', big, {
      'x-metriport-signature': hex(secrets.metriport, big),
    });
    expect(response.statusCode).toBe(413);
  });

  it('does not store credentials that are not the signature on the receipt', async () => {
    await post('athenahealth', '{}', {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, '{}')}`,
      authorization: 'Bearer hns_sa_x.secret',
      cookie: 'session=abc',
    });
    const [receipt] = await receipts();
    expect(receipt?.headers.authorization).toBe('[redacted]');
    expect(receipt?.headers.cookie).toBe('[redacted]');
    expect(JSON.stringify(receipt?.headers)).not.toContain('secret');
    expect(JSON.stringify(receipt?.headers)).not.toContain('abc');
  });

  it('stores no body and no headers for an unknown or unsupported vendor, only its size and SHA-256', async () => {
    const body = Buffer.alloc(512 * 1024, 'x');
    for (const vendor of ['nobody', 'epic']) {
      const response = await post(vendor, body, { 'x-anything': 'y'.repeat(1000) });
      expect([404, 501]).toContain(response.statusCode);
    }
    const stored = await receipts();
    expect(stored).toHaveLength(2);
    for (const receipt of stored) {
      expect(receipt.raw_body.length).toBe(0);
      expect(receipt.headers).toEqual({});
      expect(receipt.body_size).toBe(body.length);
      expect(receipt.body_sha256.equals(createHash('sha256').update(body).digest())).toBe(true);
    }
  });

  it('keeps at most 64 KiB of a body whose signature fails, with its full size and SHA-256', async () => {
    const body = Buffer.alloc(MAX_REJECTED_BODY_BYTES * 8 + 3, 'z');
    const response = await post('athenahealth', body, {
      'x-hub-signature': `sha256=${hex('wrong-secret', body)}`,
    });
    expect(response.statusCode).toBe(401);
    const [receipt] = await receipts();
    expect(receipt?.raw_body.length).toBe(MAX_REJECTED_BODY_BYTES);
    expect(receipt?.raw_body.equals(body.subarray(0, MAX_REJECTED_BODY_BYTES))).toBe(true);
    expect(receipt?.body_size).toBe(body.length);
    expect(receipt?.body_sha256.equals(createHash('sha256').update(body).digest())).toBe(true);
    expect(receipt?.headers['x-hub-signature']).toBe('[redacted]');
  });

  it('answers a replayed delivery 202 without dispatching it again, and records the replay', async () => {
    handled = [];
    handlerBehaviour = async () => {};
    const headers = { 'x-hub-signature': `sha256=${hex(secrets.athenahealth, awkwardBody)}` };
    const first = await post('athenahealth', awkwardBody, headers);
    expect(first.statusCode).toBe(202);
    await receiptsOnceHandled();
    // A day later (less a minute), the same signed bytes again, with the digest's case changed.
    server().clock.advance(24 * 60 * 60 * 1000 - 60_000);
    const replay = await post('athenahealth', awkwardBody, {
      'x-hub-signature': headers['x-hub-signature'].toUpperCase().replace('SHA256=', 'sha256='),
    });
    const again = await post('athenahealth', awkwardBody, headers);
    for (const response of [replay, again]) {
      expect(response.statusCode).toBe(202);
      expect(response.json().receiptId).not.toBe(first.json().receiptId);
    }
    const stored = await receiptsOnceHandled();
    expect(stored.map((receipt) => receipt.verdict)).toEqual(['valid', 'replayed', 'replayed']);
    expect(stored[1]?.replay_of).toBe(first.json().receiptId);
    expect(stored[1]?.raw_body.length).toBe(0);
    expect(handled).toHaveLength(1);
    // Another body is another delivery.
    const other = '{"event":"other"}';
    const next = await post('athenahealth', other, {
      'x-hub-signature': `sha256=${hex(secrets.athenahealth, other)}`,
    });
    expect(next.statusCode).toBe(202);
    await receiptsOnceHandled();
    expect(handled).toHaveLength(2);
  });

  it('treats a timestamped vendor’s same body under a new timestamp as a new delivery, the same one as a replay, and enforces the tolerance both ways', async () => {
    handled = [];
    const sign = (t: number) => `t=${t},v1=${hex(secrets.akute, `${t}.${awkwardBody}`)}`;
    const t = Math.floor(server().clock.now() / 1000);
    expect((await post('akute', awkwardBody, { 'x-akute-signature': sign(t) })).statusCode).toBe(
      202,
    );
    expect((await post('akute', awkwardBody, { 'x-akute-signature': sign(t) })).statusCode).toBe(
      202,
    );
    expect(
      (await post('akute', awkwardBody, { 'x-akute-signature': sign(t + 1) })).statusCode,
    ).toBe(202);
    const future = await post('akute', awkwardBody, { 'x-akute-signature': sign(t + 301) });
    expect(future.statusCode).toBe(401);
    expect(future.json().detail).toContain('timestamp_in_future');
    const stored = await receiptsOnceHandled();
    expect(stored.map((receipt) => receipt.verdict)).toEqual([
      'valid',
      'replayed',
      'valid',
      'invalid_signature',
    ]);
    expect(handled).toHaveLength(2);
  });
});

describe('EHR secrets from the environment', () => {
  it('reads EHR_WEBHOOK_SECRET_<KEY>, upper-cased with - as _', () => {
    expect(ehrSecretVariable('oracle-health')).toBe('EHR_WEBHOOK_SECRET_ORACLE_HEALTH');
    expect(
      ehrSecretsFromEnvironment({
        EHR_WEBHOOK_SECRET_ATHENAHEALTH: 'a',
        EHR_WEBHOOK_SECRET_ORACLE_HEALTH: 'o',
        EHR_WEBHOOK_SECRET_METRIPORT: '',
        EHR_WEBHOOK_SECRET_NOBODY: 'n',
      }),
    ).toEqual({ athenahealth: 'a', 'oracle-health': 'o' });
  });
});
