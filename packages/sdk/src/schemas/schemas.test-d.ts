import { describe, expectTypeOf, it } from 'vitest';
import type {
  AuditEntry,
  Campaign,
  Contact,
  ContactCreatedEvent,
  CreateContactInput,
  CreateDealInput,
  Deal,
  DealStage,
  DealUpdatedEvent,
  EndpointDisabledEvent,
  EndpointEventKind,
  EndpointRecoveredEvent,
  InboxMessage,
  InboxSendInput,
  Lifecycle,
  ProblemDetails,
  Sequence,
  UnknownEventKind,
  UnknownWebhookEvent,
  UpdateContactInput,
  User,
  WebhookEndpointStatus,
  WebhookEvent,
  WebhookEventKind,
} from '../index.js';
import { isKnownWebhookEvent } from '../index.js';

describe('inferred resource types', () => {
  it('pins Contact', () => {
    expectTypeOf<Contact['id']>().toEqualTypeOf<string>();
    expectTypeOf<Contact['firstName']>().toEqualTypeOf<string>();
    expectTypeOf<Contact['lifecycle']>().toEqualTypeOf<Lifecycle>();
    expectTypeOf<Contact['email']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Contact['createdAt']>().toEqualTypeOf<string>();
    // Unknown fields pass through.
    expectTypeOf<Contact>().toHaveProperty('somethingNew').toEqualTypeOf<unknown>();
  });

  it('keeps the known values of open enums next to any string', () => {
    expectTypeOf<'PATIENT'>().toExtend<Lifecycle>();
    expectTypeOf<'ALUMNI'>().toExtend<Lifecycle>();
    expectTypeOf<Lifecycle>().toExtend<string>();
    expectTypeOf<'WON'>().toExtend<DealStage>();
    // The literal members survive (they would collapse into `string` otherwise).
    expectTypeOf<Extract<Lifecycle, 'PATIENT'>>().toEqualTypeOf<'PATIENT'>();
    expectTypeOf<Extract<DealStage, 'OPEN'>>().toEqualTypeOf<'OPEN'>();
  });

  it('pins Deal, InboxMessage, AuditEntry, Sequence, Campaign, User', () => {
    expectTypeOf<Deal['amountCents']>().toEqualTypeOf<number>();
    expectTypeOf<Deal['stage']>().toEqualTypeOf<DealStage>();
    expectTypeOf<InboxMessage['text']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AuditEntry['actor']['id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AuditEntry['metadata']>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<Sequence['steps'][number]['delayHours']>().toEqualTypeOf<number>();
    expectTypeOf<Campaign['name']>().toEqualTypeOf<string>();
    expectTypeOf<User['email']>().toEqualTypeOf<string>();
    expectTypeOf<ProblemDetails['code']>().toEqualTypeOf<string | undefined>();
  });

  it('pins the input types', () => {
    expectTypeOf<{ firstName: string; lastName: string }>().toExtend<CreateContactInput>();
    expectTypeOf<{ firstName: string }>().not.toExtend<CreateContactInput>();
    expectTypeOf<{ email: null }>().toExtend<UpdateContactInput>();
    expectTypeOf<Record<never, never>>().toExtend<UpdateContactInput>();
    expectTypeOf<CreateDealInput['amountCents']>().toEqualTypeOf<number>();
    // Open enumerations when written too: the known values suggested, any string accepted,
    // nothing else (they were `unknown`).
    expectTypeOf<CreateContactInput['lifecycle']>().toEqualTypeOf<Lifecycle | undefined>();
    expectTypeOf<UpdateContactInput['lifecycle']>().toEqualTypeOf<Lifecycle | undefined>();
    expectTypeOf<CreateDealInput['stage']>().toEqualTypeOf<DealStage | undefined>();
    expectTypeOf<{
      firstName: string;
      lastName: string;
      lifecycle: 42;
    }>().not.toExtend<CreateContactInput>();
    expectTypeOf<{ lifecycle: 'ALUMNI' }>().toExtend<UpdateContactInput>();
    expectTypeOf<InboxSendInput>().toEqualTypeOf<{
      from: string;
      subject: string;
      text?: string | undefined;
    }>();
  });

  it('pins the webhook event', () => {
    expectTypeOf<ContactCreatedEvent>().toExtend<WebhookEvent>();
    expectTypeOf<DealUpdatedEvent>().toExtend<WebhookEvent>();
    expectTypeOf<UnknownWebhookEvent>().toExtend<WebhookEvent>();
    expectTypeOf<ContactCreatedEvent['event']>().toEqualTypeOf<'contact.created'>();
    expectTypeOf<ContactCreatedEvent['data']['firstName']>().toEqualTypeOf<string>();
    expectTypeOf<ContactCreatedEvent['data']['email']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<DealUpdatedEvent['previousAttributes']>().toEqualTypeOf<Record<string, unknown>>();
  });

  it('pins the operational endpoint.* events and the endpoint they carry', () => {
    expectTypeOf<EndpointEventKind>().toExtend<WebhookEventKind>();
    expectTypeOf<EndpointDisabledEvent['event']>().toEqualTypeOf<'endpoint.disabled'>();
    expectTypeOf<EndpointDisabledEvent['data']>().toEqualTypeOf<WebhookEndpointStatus>();
    expectTypeOf<WebhookEndpointStatus['subscriber']>().toEqualTypeOf<string | null>();
    expectTypeOf<WebhookEndpointStatus['failingSince']>().toEqualTypeOf<string | null>();
  });

  it('narrows WebhookEvent by its kind, unknown kinds falling to the default branch', () => {
    const handle = (event: WebhookEvent) => {
      switch (event.event) {
        case 'contact.created':
          expectTypeOf(event).toEqualTypeOf<ContactCreatedEvent>();
          return event.data.firstName;
        case 'deal.updated':
          expectTypeOf(event).toEqualTypeOf<DealUpdatedEvent>();
          return event.data.stage;
        case 'message.received':
          expectTypeOf(event.data.subject).toEqualTypeOf<string>();
          return event.data.subject;
        case 'endpoint.disabled':
          expectTypeOf(event).toEqualTypeOf<EndpointDisabledEvent>();
          return event.data.reason ?? event.data.url;
        case 'endpoint.recovered':
          expectTypeOf(event).toEqualTypeOf<EndpointRecoveredEvent>();
          return event.data.failingSince ?? event.data.id;
        default:
          return String(event.event);
      }
    };
    expectTypeOf(handle).returns.toExtend<string>();
    const onlyUnknown = (event: WebhookEvent) => {
      if (isKnownWebhookEvent(event)) return;
      expectTypeOf(event.event).toEqualTypeOf<UnknownEventKind>();
      expectTypeOf(event).toEqualTypeOf<UnknownWebhookEvent>();
    };
    expectTypeOf(onlyUnknown).toBeFunction();
  });
});
