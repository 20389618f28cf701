import { thinWebhookEventSchema, WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryBody } from './delivery-request.js';
import { TEST_EVENT_KIND } from './test-event.js';
import { thinEventData } from './thin-event-data.js';

const createdAt = '2026-03-01T09:00:00.000Z';

describe('thinEventData', () => {
  it('names the record of every kind the server sends by its id and object type', () => {
    const objects = Object.fromEntries(
      [...WEBHOOK_EVENT_KINDS, TEST_EVENT_KIND].map((kind) => [
        kind,
        thinEventData(kind, { id: 'rec_1', endpointId: 'we_1', name: 'x' }),
      ]),
    );
    expect(objects).toEqual({
      'contact.created': { id: 'rec_1', object: 'contact' },
      'contact.updated': { id: 'rec_1', object: 'contact' },
      'contact.deleted': { id: 'rec_1', object: 'contact' },
      'contact.erased': { id: 'rec_1', object: 'contact' },
      'deal.created': { id: 'rec_1', object: 'deal' },
      'deal.updated': { id: 'rec_1', object: 'deal' },
      'deal.deleted': { id: 'rec_1', object: 'deal' },
      'message.received': { id: 'rec_1', object: 'message' },
      'ehr.receipt.recorded': { id: 'rec_1', object: 'ehr_receipt' },
      'endpoint.failing': { id: 'rec_1', object: 'webhook_endpoint' },
      'endpoint.disabled': { id: 'rec_1', object: 'webhook_endpoint' },
      'endpoint.enabled': { id: 'rec_1', object: 'webhook_endpoint' },
      'endpoint.recovered': { id: 'rec_1', object: 'webhook_endpoint' },
      'webhook.test': { id: 'we_1', object: 'webhook_endpoint' },
    });
  });

  it('names a kind added later by the kind less its last segment', () => {
    expect(thinEventData('invoice.voided', { endpointId: 'we_2', reason: 'x' })).toEqual({
      id: 'we_2',
      object: 'invoice',
    });
    expect(thinEventData('invoice.line.paid', { id: 'inv_1' })).toEqual({
      id: 'inv_1',
      object: 'invoice_line',
    });
  });
});

describe('deliveryBody, thin', () => {
  it('carries exactly the thin fields and no value of the data, whatever the data', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...WEBHOOK_EVENT_KINDS),
        fc.string({ minLength: 1 }),
        fc.dictionary(
          fc.string().filter((key) => key !== 'id'),
          fc.string({ minLength: 8 }).map((value) => `secret:${value}`),
        ),
        fc.option(fc.dictionary(fc.string(), fc.string()), { nil: null }),
        (kind, recordId, values, previousAttributes) => {
          const body = deliveryBody({
            id: 'dlv_1',
            event: kind,
            eventId: 'evt_1',
            createdAt,
            data: { ...values, id: recordId },
            previousAttributes,
            payload: 'thin',
          });
          const parsed = JSON.parse(body);
          expect(Object.keys(parsed)).toEqual(['id', 'event', 'createdAt', 'eventId', 'data']);
          expect(Object.keys(parsed.data)).toEqual(['id', 'object']);
          expect(parsed.data.id).toBe(recordId);
          expect(thinWebhookEventSchema.safeParse(parsed).success).toBe(true);
          expect(body).not.toContain('secret:');
        },
      ),
    );
  });

  it('is the full event for a full delivery, as before', () => {
    const body = deliveryBody({
      id: 'dlv_1',
      event: 'contact.updated',
      eventId: 'evt_1',
      createdAt,
      data: { id: 'con_1', firstName: 'Ada' },
      previousAttributes: { firstName: 'Ad' },
      payload: 'full',
    });
    expect(JSON.parse(body)).toEqual({
      id: 'dlv_1',
      event: 'contact.updated',
      eventId: 'evt_1',
      createdAt,
      data: { id: 'con_1', firstName: 'Ada' },
      previousAttributes: { firstName: 'Ad' },
    });
  });
});
