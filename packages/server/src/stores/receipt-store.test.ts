import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { getReceipt, listReceipts, RECEIPT_BODY_PREVIEW_BYTES } from './receipt-store.js';

describe('EHR receipts', () => {
  const database = useTestDatabase();

  async function insert(id: string, vendor: string, verdict: string, at: string, body: Buffer) {
    await database().query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        id,
        vendor,
        verdict,
        body,
        JSON.stringify({
          'content-type': 'application/json',
          'x-hub-signature': 'sha256=abc',
          'x-custom-secret-key': 'k',
          'x-forwarded-for': ['1.2.3.4', '5.6.7.8'],
        }),
        at,
      ],
    );
  }

  it('lists newest first, filtered by vendor, outcome and time, in pages', async () => {
    await insert('rcpt_1', 'athenahealth', 'valid', '2026-03-01T09:00:00Z', Buffer.from('{}'));
    await insert('rcpt_2', 'akute', 'invalid_signature', '2026-03-01T10:00:00Z', Buffer.from('x'));
    await insert(
      'rcpt_3',
      'athenahealth',
      'invalid_signature',
      '2026-03-01T11:00:00Z',
      Buffer.from(''),
    );
    expect((await listReceipts(database())).map((receipt) => receipt.id)).toEqual([
      'rcpt_3',
      'rcpt_2',
      'rcpt_1',
    ]);
    expect((await listReceipts(database(), { vendor: 'athenahealth' })).map((r) => r.id)).toEqual([
      'rcpt_3',
      'rcpt_1',
    ]);
    expect(
      (await listReceipts(database(), { verdict: 'invalid_signature' })).map((r) => r.id),
    ).toEqual(['rcpt_3', 'rcpt_2']);
    expect(
      (
        await listReceipts(database(), {
          since: '2026-03-01T10:00:00Z',
          until: '2026-03-01T11:00:00Z',
        })
      ).map((r) => r.id),
    ).toEqual(['rcpt_2']);
    expect((await listReceipts(database(), { limit: 1, offset: 1 })).map((r) => r.id)).toEqual([
      'rcpt_2',
    ]);
    expect((await listReceipts(database()))[2]).toMatchObject({ bodyBytes: 2, verdict: 'valid' });
    for (const filter of [
      { verdict: 'bogus' },
      { since: 'yesterday' },
      { until: '2026-13-45' },
      { limit: 0 },
      { limit: 201 },
      { offset: -1 },
    ]) {
      await expect(listReceipts(database(), filter)).rejects.toMatchObject({
        code: 'invalid_filter',
      });
    }
  });

  it('shows one receipt with signatures and secrets redacted and the body capped', async () => {
    const body = Buffer.concat([
      Buffer.from('<script>alert(1)</script>'),
      Buffer.alloc(RECEIPT_BODY_PREVIEW_BYTES, 'a'),
    ]);
    await insert('rcpt_1', 'athenahealth', 'valid', '2026-03-01T09:00:00Z', body);
    const receipt = await getReceipt(database(), 'rcpt_1');
    expect(receipt).toMatchObject({
      id: 'rcpt_1',
      vendor: 'athenahealth',
      bodyBytes: body.length,
      bodyTruncated: true,
    });
    expect(receipt?.bodyPreview).toHaveLength(RECEIPT_BODY_PREVIEW_BYTES);
    expect(receipt?.bodyPreview.startsWith('<script>alert(1)</script>')).toBe(true);
    expect(Object.fromEntries(receipt?.headers ?? [])).toEqual({
      'content-type': 'application/json',
      'x-hub-signature': '[redacted]',
      'x-custom-secret-key': '[redacted]',
      'x-forwarded-for': '1.2.3.4, 5.6.7.8',
    });
    expect(await getReceipt(database(), 'rcpt_missing')).toBeUndefined();
  });

  it('reads any since, until and outcome as a filter or refuses it with invalid_filter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 40 }),
        fc.string({ maxLength: 30 }),
        async (time, verdict) => {
          for (const filter of [{ since: time }, { until: time }, { verdict }]) {
            try {
              expect(await listReceipts(database(), filter)).toEqual([]);
            } catch (error) {
              expect((error as { code?: string }).code).toBe('invalid_filter');
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
