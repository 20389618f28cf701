import { beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { parseEventList } from './event-list.js';
import { signingSecrets } from './signing-secrets.js';
import { createEndpointStore } from './webhook-endpoints.js';

describe('the webhook endpoint store', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });
  const store = () => createEndpointStore({ database: database(), clock, newId });
  beforeEach(() => clock.set('2026-03-01T09:00:00.000Z'));

  it('adds an endpoint with a fresh whsec_ secret, returned once and never listed', async () => {
    const first = await store().add({ url: 'https://hooks.example.com/followup' });
    const second = await store().add({ url: 'https://hooks.example.com/other' });
    expect(first).toMatchObject({
      id: expect.stringMatching(/^we_[0-9A-Z]{26}$/),
      url: 'https://hooks.example.com/followup',
      events: ['*'],
      state: 'active',
      previousSecretUntil: null,
    });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(second.secret).not.toBe(first.secret);
    const listed = await store().list();
    expect(listed.map((endpoint) => endpoint.id)).toEqual([first.id, second.id]);
    expect(JSON.stringify(listed)).not.toContain(first.secret);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
  });

  it('refuses URLs that are not http(s), carry credentials, or name unknown events', async () => {
    for (const url of ['ftp://example.com/', 'not a url', 'https://user:pw@example.com/']) {
      await expect(store().add({ url })).rejects.toMatchObject({ code: 'invalid_endpoint_url' });
    }
    await expect(
      store().add({ url: 'https://example.com/', events: ['contact.merged'] }),
    ).rejects.toMatchObject({ code: 'invalid_events' });
    expect(() => parseEventList(' , ')).toThrow(/at least one/);
    expect(parseEventList('contact.created, contact.created')).toEqual(['contact.created']);
    expect(parseEventList('deal.updated,message.received')).toEqual([
      'deal.updated',
      'message.received',
    ]);
    expect(parseEventList(undefined)).toEqual(['*']);
    expect(parseEventList('*')).toEqual(['*']);
    expect(await store().list()).toEqual([]);
  });

  it('disables, enables and removes an endpoint; an unknown id is endpoint_not_found', async () => {
    const endpoint = await store().add({ url: 'https://example.com/hook' });
    clock.advance(1_000);
    expect(await store().disable(endpoint.id)).toMatchObject({
      state: 'disabled',
      updatedAt: '2026-03-01T09:00:01.000Z',
    });
    expect(await store().enable(endpoint.id)).toMatchObject({ state: 'active' });
    await store().remove(endpoint.id);
    expect(await store().list()).toEqual([]);
    for (const call of [
      () => store().disable('we_missing'),
      () => store().remove('we_missing'),
      () => store().rotateSecret('we_missing'),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'endpoint_not_found' });
    }
  });

  it('rotates the secret: both sign until the overlap ends, then only the new one', async () => {
    const endpoint = await store().add({ url: 'https://example.com/hook' });
    const rotated = await store().rotateSecret(endpoint.id, 3_600);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.previousSecretUntil).toBe('2026-03-01T10:00:00.000Z');
    const { rows } = await database().query<{
      secret: string;
      previous_secret: string | null;
      previous_secret_until: string | null;
    }>('SELECT secret, previous_secret, previous_secret_until FROM webhook_endpoints');
    const row = rows[0] as (typeof rows)[number];
    expect(signingSecrets(row, clock.now())).toEqual([rotated.secret, endpoint.secret]);
    clock.advance(3_600_000);
    expect(signingSecrets(row, clock.now())).toEqual([rotated.secret]);
    expect((await store().list())[0]?.previousSecretUntil).toBeNull();
    await expect(store().rotateSecret(endpoint.id, -1)).rejects.toMatchObject({
      code: 'invalid_overlap',
    });
  });
});
