import { WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliverableEvents, parseEventList } from './event-list.js';

describe('parseEventList', () => {
  it('takes every kind the SDK lists, and only those', () => {
    expect(deliverableEvents).toEqual(WEBHOOK_EVENT_KINDS);
  });

  it('answers the kinds named, once each in the order first named, whatever the spacing', () => {
    const spacing = fc.stringMatching(/^[ \t]{0,3}$/);
    const named = fc.array(fc.tuple(spacing, fc.constantFrom(...deliverableEvents), spacing), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(named, fc.boolean(), (parts, emptyParts) => {
        const text = parts
          .map(([before, kind, after]) => `${before}${kind}${after}`)
          .join(emptyParts ? ', ,' : ',');
        expect(parseEventList(text)).toEqual([...new Set(parts.map(([, kind]) => kind))]);
      }),
    );
  });

  it('refuses a kind the server does not deliver, naming it', () => {
    const unknown = fc
      .stringMatching(/^[a-z.]{1,30}$/)
      .filter((kind) => !deliverableEvents.includes(kind) && kind !== '*');
    fc.assert(
      fc.property(unknown, fc.constantFrom(...deliverableEvents), (kind, known) => {
        expect(() => parseEventList(`${known},${kind}`)).toThrow(
          expect.objectContaining({
            code: 'invalid_events',
            message: expect.stringContaining(JSON.stringify(kind)),
          }),
        );
      }),
    );
  });

  it('answers every kind for no list or *, and refuses a list of nothing', () => {
    expect(parseEventList(undefined)).toEqual(['*']);
    expect(parseEventList(' * ')).toEqual(['*']);
    expect(() => parseEventList(' , ')).toThrow(
      expect.objectContaining({ code: 'invalid_events' }),
    );
  });
});
