import type { Capability } from '../../capabilities.js';
import { type ContactTimelineEntry, TIMELINE_KINDS } from '../../stores/contact-timeline-store.js';
import { dealAmount } from './deals-pages.js';

// A contact's timeline as its page shows it: each entry's kind and details in words, and the
// kinds a role may read.

/** @internal One line of the timeline as the page shows it. */
export interface TimelineLine {
  entry: ContactTimelineEntry;
  /** What happened, in words: `Event`, `Audit entry`, `Delivery`. */
  kind: string;
  /** The deal it is about, when it is one the contact still has (then linked). */
  dealLink: boolean;
  /** Its details as key/value pairs, values as text. */
  details: { key: string; value: string }[];
}

/** The fields of an event's data that the timeline leaves out: its ids and times. */
const QUIET_FIELDS = new Set(['id', 'contactId', 'createdAt', 'updatedAt']);

/** @internal A timeline entry's details as key/value text, ids and times left out. */
export function detailsOf(entry: ContactTimelineEntry): { key: string; value: string }[] {
  if (entry.delivery) {
    const { state, attempts, lastStatus } = entry.delivery;
    return [
      { key: 'state', value: state },
      { key: 'attempts', value: String(attempts) },
      ...(lastStatus === null ? [] : [{ key: 'last status', value: String(lastStatus) }]),
    ];
  }
  const details = { ...entry.details };
  if (entry.subject.type === 'deal' && 'amountCents' in details && 'currency' in details) {
    // A deal's amount as its pages show it, in place of the cents and the currency code.
    details.amount = dealAmount(details);
    delete details.amountCents;
    delete details.currency;
  }
  return Object.entries(details)
    .filter(([key]) => !QUIET_FIELDS.has(key))
    .slice(0, 8)
    .map(([key, value]) => ({
      key,
      value:
        typeof value === 'string'
          ? value
          : Array.isArray(value)
            ? value
                .map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
                .join(', ')
            : JSON.stringify(value),
    }));
}

/** @internal What each kind of timeline entry is called on the page. */
export const kindLabels: Record<ContactTimelineEntry['kind'], string> = {
  audit: 'Audit entry',
  event: 'Event',
  delivery: 'Delivery',
};

/** @internal The timeline kinds a role may read: events with the contacts, the rest with their pages. */
export function timelineKinds(capabilities: ReadonlySet<Capability>) {
  return TIMELINE_KINDS.filter(
    (kind) =>
      kind === 'event' ||
      (kind === 'audit' && capabilities.has('audit.read')) ||
      (kind === 'delivery' && capabilities.has('webhooks.manage')),
  );
}
