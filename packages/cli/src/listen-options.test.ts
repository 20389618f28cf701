import { WEBHOOK_EVENT_KINDS } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FollowUpCliError } from './cli-error.js';
import { parseEventKinds, parseForwardUrl, parseListenStart } from './listen-options.js';

/** Runs `parse`, and says whether it threw a usage error (and nothing else). */
function outcome<T>(parse: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    expect(FollowUpCliError.isInstance(error) && error.code === 'usage').toBe(true);
    return { ok: false };
  }
}

describe('parseListenStart (--from)', () => {
  it('reads now, start and event ids', () => {
    expect(parseListenStart(undefined)).toEqual({ from: 'now' });
    expect(parseListenStart('now')).toEqual({ from: 'now' });
    expect(parseListenStart('start')).toEqual({ from: 'start' });
    expect(parseListenStart('evt_01JD3Q7Z6XK8M4N2P5R7T9V1W3')).toEqual({
      from: 'after',
      eventId: 'evt_01JD3Q7Z6XK8M4N2P5R7T9V1W3',
    });
  });

  it('refuses anything else with a usage error, never another error', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = outcome(() => parseListenStart(text));
        if (result.ok && result.value.from === 'after') {
          expect(result.value.eventId).toBe(text);
          expect(text).toMatch(/^evt_[\w-]+$/);
        }
        if (!result.ok) expect(['now', 'start']).not.toContain(text);
      }),
    );
  });
});

describe('parseEventKinds (--events)', () => {
  it('reads a comma-separated list of kinds, spaces allowed, duplicates once', () => {
    expect(parseEventKinds(undefined)).toBeUndefined();
    expect(parseEventKinds('contact.created, deal.updated,contact.created')).toEqual([
      'contact.created',
      'deal.updated',
    ]);
  });

  it('takes any list of known kinds, and refuses any unknown one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...WEBHOOK_EVENT_KINDS), { minLength: 1 }),
        fc.option(fc.string()),
        (kinds, intruder) => {
          const words = intruder === null ? kinds : [...kinds, intruder];
          const result = outcome(() => parseEventKinds(words.join(',')));
          const known = (WEBHOOK_EVENT_KINDS as readonly string[]).includes(
            (intruder ?? '').trim(),
          );
          const acceptable = intruder === null || (known && !intruder.includes(','));
          if (acceptable)
            expect(result).toEqual({ ok: true, value: [...new Set(words.map((w) => w.trim()))] });
          else if (!intruder?.includes(',')) expect(result.ok).toBe(false);
        },
      ),
    );
  });
});

describe('parseForwardUrl (--forward-to)', () => {
  it('takes http: and https: URLs only', () => {
    expect(parseForwardUrl('http://localhost:3000/webhooks').href).toBe(
      'http://localhost:3000/webhooks',
    );
    expect(outcome(() => parseForwardUrl('ftp://x/')).ok).toBe(false);
    expect(outcome(() => parseForwardUrl('localhost:3000')).ok).toBe(false);
    expect(outcome(() => parseForwardUrl(undefined)).ok).toBe(false);
  });

  it('never throws anything but a usage error', () => {
    fc.assert(fc.property(fc.string(), (text) => void outcome(() => parseForwardUrl(text))));
  });
});
