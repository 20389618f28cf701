import { verifySignature } from '@followup/webhooks';
import { describe, expect, it } from 'vitest';
import { buildDeliveryRequest } from './delivery-request.js';

const message = {
  id: 'dlv_01J9Z3',
  event: 'contact.created',
  createdAt: '2026-03-01T09:00:00.000Z',
  data: { id: 'con_01J9Z3', firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD' },
};
const T = 1_772_355_600;

describe('buildDeliveryRequest', () => {
  it('sends {id, event, createdAt, data} with the delivery id and event in the headers', () => {
    const request = buildDeliveryRequest(message, { secrets: ['whsec_a'], timestamp: T });
    expect(JSON.parse(request.body)).toEqual(message);
    expect(Object.keys(JSON.parse(request.body))).toEqual(['id', 'event', 'createdAt', 'data']);
    expect(request.headers['X-Service-Delivery']).toBe(message.id);
    expect(request.headers['X-Service-Event']).toBe('contact.created');
  });

  it('signs the exact body so that a subscriber verifies it', () => {
    const request = buildDeliveryRequest(message, { secrets: ['whsec_a'], timestamp: T });
    expect(verifySignature(request.body, request.headers, { secret: 'whsec_a', now: T })).toEqual({
      timestamp: T,
      secretIndex: 0,
    });
    expect(() =>
      verifySignature(request.body, request.headers, { secret: 'whsec_other', now: T }),
    ).toThrow(/does not match/);
  });

  it('keeps the body byte for byte across attempts, and re-signs each attempt', () => {
    const first = buildDeliveryRequest(message, { secrets: ['whsec_a'], timestamp: T });
    const retry = buildDeliveryRequest(message, { secrets: ['whsec_a'], timestamp: T + 600 });
    expect(retry.body).toBe(first.body);
    expect(retry.headers['X-Service-Delivery']).toBe(first.headers['X-Service-Delivery']);
    expect(retry.headers['X-Service-Signature']).not.toBe(first.headers['X-Service-Signature']);
  });

  it('signs with both secrets during a rotation, so either one verifies', () => {
    const request = buildDeliveryRequest(message, {
      secrets: ['whsec_new', 'whsec_old'],
      timestamp: T,
    });
    expect(request.headers['X-Service-Signature']?.match(/v1=/g)).toHaveLength(2);
    for (const secret of ['whsec_new', 'whsec_old']) {
      expect(verifySignature(request.body, request.headers, { secret, now: T }).timestamp).toBe(T);
    }
  });
});
