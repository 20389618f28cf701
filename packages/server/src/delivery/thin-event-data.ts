import { TEST_EVENT_KIND } from './test-event.js';

/** The `data` of a thin body: the id and the object type of the record an event is about. */
export interface ThinEventData {
  /** The record's id (`con_…`, `deal_…`, `msg_…`, `rcpt_…`, or `we_…` for `webhook.test` and `endpoint.*`). */
  readonly id: string;
  /** The record's object type: `contact`, `deal`, `message`, `ehr_receipt`, `webhook_endpoint`. */
  readonly object: string;
}

// The record each kind is about, by the kind's first segment, and the field of its data that
// holds the record's id. A test event is about the endpoint it is sent to.
const subjects: Readonly<Record<string, { object: string; idField: string }>> = {
  contact: { object: 'contact', idField: 'id' },
  deal: { object: 'deal', idField: 'id' },
  message: { object: 'message', idField: 'id' },
  ehr: { object: 'ehr_receipt', idField: 'id' },
  // The operational events (endpoint.failing, …) are about an endpoint, whose id is data.id.
  endpoint: { object: 'webhook_endpoint', idField: 'id' },
  [TEST_EVENT_KIND]: { object: 'webhook_endpoint', idField: 'endpointId' },
};

/**
 * @internal The `data` of a thin body of an event (`payload: "thin"`): the record's id and
 * object type, never one of its values, so that no patient data leaves in the body; the
 * subscriber fetches the event with `GET /api/events/{eventId}`. A kind not in the table above
 * (one added later) names its object by the kind without its last segment, and its id by
 * `data.id` (or `data.endpointId` when it has no `id`).
 */
export function thinEventData(
  kind: string,
  data: Readonly<Record<string, unknown>>,
): ThinEventData {
  const subject = subjects[kind] ??
    subjects[kind.slice(0, kind.indexOf('.'))] ?? {
      object: kind.slice(0, Math.max(0, kind.lastIndexOf('.'))).replaceAll('.', '_') || kind,
      idField: typeof data.id === 'string' ? 'id' : 'endpointId',
    };
  const id = data[subject.idField];
  return { id: typeof id === 'string' ? id : '', object: subject.object };
}
