import { describe, expect, it } from 'vitest';
import { webhookEventSchemas } from '../schemas/webhook-event-schemas.js';
import { WEBHOOK_EVENT_KINDS } from '../wire/event-kinds.js';
import { largestSampleEvent, sampleEvent } from './sample-events.js';

const stamp = { eventId: 'evt_sample', createdAt: '2026-01-15T09:30:00.000Z' };

describe('sample events', () => {
  it.each(WEBHOOK_EVENT_KINDS)('%s is valid against its SDK schema', (kind) => {
    const event = sampleEvent(kind, stamp);
    expect(webhookEventSchemas[kind].safeParse(event).success).toBe(true);
  });

  it('the largest is a valid message.received of the inbox limit', () => {
    const event = largestSampleEvent(stamp);
    expect(webhookEventSchemas['message.received'].safeParse(event).success).toBe(true);
    expect(JSON.stringify(event).length).toBeGreaterThan(256 * 1024);
  });
});
