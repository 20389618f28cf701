import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS } from '@followup/webhooks/web';
import type { WebhookEvent } from '../schemas/webhook-event.js';
import { WEBHOOK_EVENT_KINDS, type WebhookEventKind } from '../wire/event-kinds.js';
import { answered, corrupted, expectRefused, expectTaken, without } from './check-verdicts.js';
import { type DeliveryOutcome, delivered } from './post-delivery.js';
import type { ReceiverCheck } from './receiver-report.js';
import { type SignedDelivery, signDelivery } from './signed-delivery.js';
import { newSigningSecret } from './signing-secret.js';

/** @internal What a check works with. */
export interface CheckContext {
  /** The receiver's secret. */
  secret: string;
  /** Now, in Unix seconds. */
  nowSeconds(): number;
  /** A sample event of `kind`, with a new event id. */
  sample(kind: WebhookEventKind): WebhookEvent;
  /** The largest event the server sends, with a new event id. */
  largest(): WebhookEvent;
  /** Posts a delivery to the receiver. */
  send(delivery: SignedDelivery): Promise<DeliveryOutcome>;
}

/** @internal One check: its id, what it sends, what it expects, and how it runs. */
export interface CheckDefinition {
  id: string;
  name: string;
  expected: '2xx' | '4xx';
  run(context: CheckContext): Promise<Omit<ReceiverCheck, 'id' | 'name' | 'expected'>>;
}

/** Five minutes and a half: past the 300 s tolerance of every FollowUp verifier. */
const SKEW_SECONDS = 330;

function newDeliveryId(): string {
  return `dlv_check_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** A delivery of `event` signed with `secrets` at `timestamp`, under a new delivery id. */
function signed(
  event: WebhookEvent,
  secrets: readonly string[],
  timestamp: number,
): Promise<SignedDelivery> {
  return signDelivery(event, { secrets, timestamp, deliveryId: newDeliveryId() });
}

const WEBHOOK_HEADER_NAMES = Object.values(STANDARD_WEBHOOK_HEADERS);

/** @internal One check per event kind: a valid delivery of it, taken. */
export function eventKindCheck(kind: string): CheckDefinition {
  const known = (WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind);
  return {
    id: `event:${kind}`,
    name: `${kind} delivered`,
    expected: '2xx',
    async run(context) {
      if (!known) {
        return {
          status: 'skip',
          httpStatus: null,
          durationMs: null,
          detail: `This version of followup has no sample body of ${kind}.`,
        };
      }
      const delivery = await signed(
        context.sample(kind as WebhookEventKind),
        [context.secret],
        context.nowSeconds(),
      );
      return expectTaken(await context.send(delivery), 'A valid delivery');
    },
  };
}

/** @internal The checks of the signature and the delivery's form, after the kinds'. */
export const CONTRACT_CHECKS: readonly CheckDefinition[] = [
  {
    id: 'duplicate',
    name: 'the same delivery twice',
    expected: '2xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds(),
      );
      const first = await context.send(delivery);
      if (!delivered(first)) return expectTaken(first, 'The first copy');
      const second = await context.send(delivery);
      const base = { httpStatus: second.status ?? null, durationMs: second.durationMs };
      return delivered(second)
        ? {
            ...base,
            status: 'pass',
            detail: `Both copies answered 2xx (${first.status}, ${second.status}).`,
          }
        : {
            ...base,
            status: 'warn',
            detail: `The second copy answered ${answered(second)}: a retry of a delivery already handled should be answered 2xx (deduplicate on the delivery id), or the server retries it.`,
          };
    },
  },
  {
    id: 'bad-signature',
    name: 'a bad signature',
    expected: '4xx',
    async run(context) {
      const delivery = corrupted(
        await signed(context.sample('contact.created'), [context.secret], context.nowSeconds()),
      );
      return expectRefused(await context.send(delivery), 'Signatures changed by one character');
    },
  },
  {
    id: 'wrong-secret',
    name: 'a signature with the wrong secret',
    expected: '4xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [newSigningSecret()],
        context.nowSeconds(),
      );
      return expectRefused(await context.send(delivery), 'Signed with another secret');
    },
  },
  {
    id: 'stale-timestamp',
    name: 'a stale timestamp (5.5 minutes old)',
    expected: '4xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds() - SKEW_SECONDS,
      );
      return expectRefused(await context.send(delivery), `Signed ${SKEW_SECONDS} s ago`);
    },
  },
  {
    id: 'future-timestamp',
    name: 'a timestamp in the future (5.5 minutes ahead)',
    expected: '4xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds() + SKEW_SECONDS,
      );
      return expectRefused(await context.send(delivery), `Signed ${SKEW_SECONDS} s ahead`);
    },
  },
  {
    id: 'missing-signature',
    name: 'no signature header',
    expected: '4xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds(),
      );
      const bare = without(delivery, SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS.signature);
      return expectRefused(
        await context.send(bare),
        'Without X-Service-Signature and webhook-signature',
      );
    },
  },
  {
    id: 'changed-body',
    name: 'a body changed by one byte',
    expected: '4xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds(),
      );
      const body = delivery.body.replace('"Ada"', '"Adb"');
      return expectRefused(
        await context.send({ ...delivery, body }),
        'One byte of the signed body changed',
      );
    },
  },
  {
    id: 'rotation',
    name: 'two signatures during a secret rotation',
    expected: '2xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [newSigningSecret(), context.secret],
        context.nowSeconds(),
      );
      return expectTaken(
        await context.send(delivery),
        'Signed with a new secret and with this one',
      );
    },
  },
  {
    id: 'scheme:x-service-signature',
    name: 'X-Service-Signature alone',
    expected: '2xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds(),
      );
      return expectTaken(
        await context.send(without(delivery, ...WEBHOOK_HEADER_NAMES)),
        'Signed t=,v1= only',
      );
    },
  },
  {
    id: 'scheme:standard-webhooks',
    name: 'Standard Webhooks headers alone',
    expected: '2xx',
    async run(context) {
      const delivery = await signed(
        context.sample('contact.created'),
        [context.secret],
        context.nowSeconds(),
      );
      return expectTaken(
        await context.send(without(delivery, SIGNATURE_HEADER)),
        'Signed webhook-signature only',
      );
    },
  },
  {
    id: 'largest-event',
    name: "a body of the server's largest event",
    expected: '2xx',
    async run(context) {
      const delivery = await signed(context.largest(), [context.secret], context.nowSeconds());
      const kib = Math.round(new TextEncoder().encode(delivery.body).byteLength / 1024);
      return expectTaken(await context.send(delivery), `A ${kib} KiB message.received`);
    },
  },
];
