import { describe, expectTypeOf, it } from 'vitest';
import type {
  APIPromise,
  AuditEntry,
  Contact,
  CreatedWebhookEndpoint,
  CreateWebhookEndpointInput,
  CursorPage,
  Delivery,
  DeliveryDetail,
  FollowUp,
  InboxSendResult,
  KeysetPage,
  PagePromise,
  PortalLink,
  QueuedReplay,
  QueuedTestDelivery,
  Replay,
  RotatedWebhookSecret,
  UpdateWebhookEndpointInput,
  WebhookEndpoint,
  WebhookEvent,
  WithResponse,
} from './index.js';

declare const client: FollowUp;

describe('the client surface', () => {
  it('types calls and their pages', () => {
    expectTypeOf(client.contacts.get('con_1')).toEqualTypeOf<APIPromise<Contact>>();
    expectTypeOf(client.contacts.list()).toEqualTypeOf<PagePromise<KeysetPage<Contact>, Contact>>();
    expectTypeOf(client.audit.list()).toEqualTypeOf<
      PagePromise<CursorPage<AuditEntry>, AuditEntry>
    >();
    expectTypeOf(client.contacts.count()).toEqualTypeOf<APIPromise<number>>();
    expectTypeOf(client.contacts.delete('con_1')).toEqualTypeOf<APIPromise<void>>();
    expectTypeOf(client.inbox.send).returns.toEqualTypeOf<APIPromise<InboxSendResult>>();
    expectTypeOf(client.webhooks.unwrap).returns.toEqualTypeOf<Promise<WebhookEvent>>();
  });

  it('types the webhook endpoints and deliveries', () => {
    expectTypeOf(client.webhookEndpoints.create({ url: 'https://x.example/' })).toEqualTypeOf<
      APIPromise<CreatedWebhookEndpoint>
    >();
    expectTypeOf(client.webhookEndpoints.list()).toEqualTypeOf<
      PagePromise<CursorPage<WebhookEndpoint>, WebhookEndpoint>
    >();
    expectTypeOf(client.webhookEndpoints.get('we_1')).toEqualTypeOf<APIPromise<WebhookEndpoint>>();
    expectTypeOf(client.webhookEndpoints.update('we_1', { state: 'disabled' })).toEqualTypeOf<
      APIPromise<WebhookEndpoint>
    >();
    expectTypeOf(client.webhookEndpoints.delete('we_1')).toEqualTypeOf<APIPromise<void>>();
    expectTypeOf(client.webhookEndpoints.rotateSecret('we_1')).toEqualTypeOf<
      APIPromise<RotatedWebhookSecret>
    >();
    expectTypeOf(client.webhookEndpoints.test('we_1')).toEqualTypeOf<
      APIPromise<QueuedTestDelivery>
    >();
    expectTypeOf(
      client.webhookEndpoints.replay('we_1', { since: '2026-03-01T09:00:00Z' }),
    ).toEqualTypeOf<APIPromise<QueuedReplay>>();
    expectTypeOf(client.replays.get('rpl_1')).toEqualTypeOf<APIPromise<Replay>>();
    expectTypeOf(client.webhookPortal.createLink({ subscriber: 'acme' })).toEqualTypeOf<
      APIPromise<PortalLink>
    >();
    expectTypeOf<PortalLink['url']>().toEqualTypeOf<string>();
    // @ts-expect-error: the subscriber is required.
    client.webhookPortal.createLink({ expiresInMinutes: 30 });
    expectTypeOf<Replay['sent']>().toEqualTypeOf<number>();
    // @ts-expect-error: a replay's states are delivered, failed, dead and missing.
    client.webhookEndpoints.replay('we_1', { since: '2026-03-01T09:00:00Z', states: ['pending'] });
    // @ts-expect-error: since is required.
    client.webhookEndpoints.replay('we_1', {});
    expectTypeOf(client.deliveries.list({ state: 'dead' })).toEqualTypeOf<
      PagePromise<CursorPage<Delivery>, Delivery>
    >();
    expectTypeOf(client.deliveries.get('dlv_1')).toEqualTypeOf<APIPromise<DeliveryDetail>>();
    expectTypeOf(client.deliveries.retry('dlv_1', { force: true })).toEqualTypeOf<
      APIPromise<Delivery>
    >();
    expectTypeOf<CreatedWebhookEndpoint['secret']>().toEqualTypeOf<string>();
    expectTypeOf<WebhookEndpoint['rateLimit']>().toEqualTypeOf<number | null>();
    expectTypeOf<CreateWebhookEndpointInput['payload']>().toEqualTypeOf<
      'full' | 'thin' | undefined
    >();
    expectTypeOf<UpdateWebhookEndpointInput['state']>().toEqualTypeOf<
      'active' | 'disabled' | undefined
    >();
    // @ts-expect-error: a rate limit is a number of deliveries per second.
    client.webhookEndpoints.create({ url: 'https://x.example/', rateLimit: '10' });
    // @ts-expect-error: the kinds come from the wire contract.
    client.webhookEndpoints.create({ url: 'https://x.example/', events: ['contact.exploded'] });
  });

  it('awaits to the data and withResponse() to { data, response }', async () => {
    expectTypeOf(await client.contacts.get('con_1')).toEqualTypeOf<Contact>();
    expectTypeOf(await client.contacts.get('con_1').withResponse()).toEqualTypeOf<
      WithResponse<Contact>
    >();
    expectTypeOf(await client.contacts.list()).toEqualTypeOf<KeysetPage<Contact>>();
    expectTypeOf((await client.contacts.list()).nextCursor).toEqualTypeOf<string | null>();
    for await (const contact of client.contacts.list()) {
      expectTypeOf(contact).toEqualTypeOf<Contact>();
    }
    for await (const page of client.audit.list().pages()) {
      expectTypeOf(page.items).toEqualTypeOf<readonly AuditEntry[]>();
      expectTypeOf(page.nextCursor).toEqualTypeOf<string | null>();
    }
  });

  it('types the list parameters of contacts and deals', () => {
    client.contacts.list({ lifecycle: ['LEAD', 'SOMETHING_NEW'], q: 'ada', sort: '-updatedAt' });
    client.contacts.list({ email: 'a@example.com', updatedSince: new Date(), cursor: 'c' });
    client.deals.list({ stage: 'WON', updatedSince: '2026-03-01T00:00:00Z' });
    client.deals.list({ q: 'annual', stage: ['OPEN', 'WON'], sort: '-createdAt' });
    expectTypeOf(client.deals.count({ q: 'ann', stage: 'OPEN' })).resolves.toEqualTypeOf<number>();
    expectTypeOf(client.deals.count({ timeout: 1000 })).resolves.toEqualTypeOf<number>();
    client.deals.count({ q: 'ann' }, { timeout: 1000 });
    // @ts-expect-error: q is text
    client.deals.list({ q: 42 });
    // @ts-expect-error: deals have no e-mail
    client.deals.count({ email: 'a@example.com' });
    // @ts-expect-error: not an order the service knows
    client.contacts.list({ sort: 'name' });
    // @ts-expect-error: deals have no lifecycle
    client.deals.list({ lifecycle: 'LEAD' });
    // @ts-expect-error: other lists take no filters
    client.sequences.list({ q: 'x' });
  });

  it('refuses wrong inputs at compile time', () => {
    // @ts-expect-error lastName is required
    client.contacts.create({ firstName: 'Ada' });
    // @ts-expect-error amountCents is a number
    client.deals.update('deal_1', { amountCents: '12' });
    // @ts-expect-error the inbox secret is a string
    client.inbox.send({ from: 'a', subject: 'b' }, { secret: 42 });
  });
});
