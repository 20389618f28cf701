import {
  ENDPOINT_EVENT_KINDS,
  thinWebhookEventSchema,
  WEBHOOK_EVENT_KINDS,
  type WebhookEventKind,
  webhookEventSchemas,
} from '@followup/sdk';
import { z } from 'zod';

/** What each kind announces, for the catalogue and the OpenAPI document. */
export const eventKindDescriptions: Readonly<Record<WebhookEventKind, string>> = {
  'contact.created': 'A contact was created; data is the contact.',
  'contact.updated':
    'A contact changed; data is the contact now, previousAttributes the former values of the fields that changed.',
  'contact.deleted':
    'A contact was deleted (its deals too, each with a deal.deleted event); data is the contact as it was.',
  'contact.erased':
    'A contact\'s stored values were erased (POST /api/contacts/{id}/erase): every earlier event about it now carries "[erased]" in place of its values; data is the contact\'s id only.',
  'deal.created': 'A deal was created; data is the deal.',
  'deal.updated':
    'A deal changed; data is the deal now, previousAttributes the former values of the fields that changed (stage among them when it moved).',
  'deal.deleted': 'A deal was deleted; data is the deal as it was.',
  'message.received': 'The inbox webhook stored a message; data is the message.',
  'ehr.receipt.recorded':
    "An EHR vendor's webhook whose signature verified was received and its receipt recorded; data is the receipt's id, vendor, verdict and time, never the body.",
  'endpoint.failing':
    "A webhook endpoint's attempt failed after a success (or as its first), starting a failing streak; once per streak. data is the endpoint's id, url, subscriber, state (failing) and failingSince, never its secret or headers.",
  'endpoint.disabled':
    "A webhook endpoint was disabled: reason gone (it answered 410), failing (every attempt failed for the auto-disable period) or manual (a person, through the API, the console or the CLI); data is the endpoint's id, url, subscriber, state, reason and failingSince.",
  'endpoint.enabled':
    "A disabled webhook endpoint was enabled again; data is the endpoint's id, url, subscriber and state.",
  'endpoint.recovered':
    "A failing webhook endpoint's attempt succeeded; data is the endpoint's id, url, subscriber, state (active) and failingSince, the start of the streak it ended.",
};

/**
 * @internal What the catalogue and the OpenAPI document add to the operational kinds: who
 * receives them, which is not who receives the others.
 */
export const endpointEventDelivery =
  "Delivered only to the endpoints that list this kind (* does not include it), never to the endpoint it is about, and to an endpoint with a subscriber only about that subscriber's endpoints; in GET /api/events with webhooks.manage.";

/**
 * @internal Each kind with its description and the JSON Schema (draft 2020-12, the dialect of
 * OpenAPI 3.1) of its body, generated from the SDK's zod schemas. Generated once per process
 * (three parts of a server read it as it starts, and generating it is most of what zod does
 * then); each call answers a copy of its own, for its caller to keep or change.
 */
export function eventTypeCatalogue(): EventTypeEntry[] {
  catalogue ??= buildCatalogue();
  return structuredClone(catalogue);
}

/** @internal One kind of {@link eventTypeCatalogue}. */
export interface EventTypeEntry {
  kind: (typeof WEBHOOK_EVENT_KINDS)[number];
  description: string;
  schema: Record<string, unknown>;
  thinSchema: Record<string, unknown>;
}

let catalogue: EventTypeEntry[] | undefined;

function buildCatalogue(): EventTypeEntry[] {
  return WEBHOOK_EVENT_KINDS.map((kind) => ({
    kind,
    description: (ENDPOINT_EVENT_KINDS as readonly string[]).includes(kind)
      ? `${eventKindDescriptions[kind]} ${endpointEventDelivery}`
      : eventKindDescriptions[kind],
    schema: jsonSchemaOf(webhookEventSchemas[kind]),
    thinSchema: jsonSchemaOf(thinWebhookEventSchema.extend({ event: z.literal(kind) })),
  }));
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
}

/** What an endpoint whose `payload` is `thin` receives, for the catalogue and OpenAPI. */
export const THIN_PAYLOAD_DESCRIPTION =
  'An endpoint whose payload is thin receives {id, event, createdAt, eventId, data: {id, object}} instead, with no field values; GET /api/events/{eventId} answers the full event.';

/**
 * @internal The OpenAPI 3.1 `webhooks` section: one `POST` per event kind, the body its schema.
 */
export function openApiWebhooks(): Record<string, Record<string, unknown>> {
  const webhooks: Record<string, Record<string, unknown>> = {};
  for (const { kind, description, schema, thinSchema } of eventTypeCatalogue()) {
    webhooks[kind] = {
      post: {
        summary: kind,
        description: `${description} Signed with X-Service-Signature (t=,v1=) and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). ${THIN_PAYLOAD_DESCRIPTION}`,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { anyOf: [schema, thinSchema] } } },
        },
        responses: {
          '2XX': { description: 'Received; answer within the delivery timeout.' },
          '410': { description: 'Gone: the endpoint is disabled at once.' },
          default: { description: 'Any other answer is a failure, retried on the schedule.' },
        },
      },
    };
  }
  return webhooks;
}
