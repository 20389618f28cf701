import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '@followup/sdk';
import { usageError } from './cli-error.js';
import { echoable } from './command.js';

/** @internal Where `listen` starts: the end of the feed, its beginning, or after an event. */
export type ListenStart = { from: 'now' } | { from: 'start' } | { from: 'after'; eventId: string };

const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,251}$/;

/**
 * @internal `--from`: `now` (the default: only events committed from now on), `start` (every
 * event the feed holds) or an event id (`evt_…`, as `listen` prints when it stops): the events
 * after it.
 */
export function parseListenStart(text: string | undefined): ListenStart {
  if (text === undefined || text === 'now') return { from: 'now' };
  if (text === 'start') return { from: 'start' };
  if (EVENT_ID.test(text)) return { from: 'after', eventId: text };
  throw usageError(
    '--from is now, start, or the event id (evt_…) that a stopped listen printed to resume from.',
  );
}

/**
 * @internal `--events a,b`: the kinds to forward, each one of the wire contract's
 * `WEBHOOK_EVENT_KINDS` (the feed refuses any other), spaces around commas allowed, duplicates
 * dropped; `undefined` (every kind) without the option.
 */
export function parseEventKinds(text: string | undefined): WebhookEventKind[] | undefined {
  if (text === undefined) return undefined;
  const kinds: WebhookEventKind[] = [];
  for (const part of text.split(',')) {
    const kind = part.trim();
    if (!(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw usageError(
        `--events: ${kind === '' ? 'an empty kind' : `${echoable(kind)} is not an event kind`}; the kinds are ${WEBHOOK_EVENT_KINDS.join(', ')}.`,
      );
    }
    if (!kinds.includes(kind as WebhookEventKind)) kinds.push(kind as WebhookEventKind);
  }
  return kinds;
}

/** @internal `--forward-to`: an `http:` or `https:` URL. */
export function parseForwardUrl(text: string | undefined): URL {
  if (text === undefined) {
    throw usageError('Where to? Pass --forward-to http://localhost:3000/webhooks.');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError('--forward-to is not a URL; write it whole: http://localhost:3000/webhooks.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError('--forward-to must be an http: or https: URL.');
  }
  return url;
}
