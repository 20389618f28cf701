import { ConfigurationError, type Contact, type ContactChange } from '@followup/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDriver } from '../../test/support/database.js';
import { startTestServer, type TestServer } from '../testing.js';

// The SDK against the real routes, end to end. startTestServer runs on in-memory PGlite: once.
describe.skipIf(testDriver !== 'pglite')('the SDK on contacts lists, sync and batches', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('walks a filtered, sorted list by cursor', async () => {
    const { client } = server;
    const made: Contact[] = [];
    for (let n = 0; n < 7; n++) {
      made.push(
        await client.contacts.create({
          firstName: `Walker${n}`,
          lastName: 'Sdk',
          lifecycle: n % 2 === 0 ? 'PATIENT' : 'LEAD',
          email: `walker${n}@example.com`,
        }),
      );
    }
    const seen: string[] = [];
    for await (const contact of client.contacts.list({
      limit: 2,
      lifecycle: ['PATIENT'],
      q: 'walker',
      sort: '-createdAt',
    })) {
      seen.push(contact.id);
    }
    expect(seen).toEqual([made[6], made[4], made[2], made[0]].map((contact) => contact?.id));
    const page = await client.contacts.list({ limit: 3, q: 'WALKER' });
    expect(page.nextCursor).toEqual(expect.any(String));
    const next = await client.contacts.list({
      limit: 3,
      q: 'WALKER',
      cursor: page.nextCursor as string,
    });
    expect(next.items.map((contact) => contact.id)).toEqual(made.slice(3, 6).map((c) => c.id));
    const byEmail = await client.contacts.list({ email: 'WALKER3@example.com' });
    expect(byEmail.items.map((contact) => contact.id)).toEqual([made[3]?.id]);
  });

  it('syncs changes, deletions included, and resumes from the position it hands back', async () => {
    const { client } = server;
    const first = client.contacts.sync({ limit: 3 });
    const replica = new Map<string, string>();
    const apply = (change: ContactChange) => {
      if (change.type === 'changed') replica.set(change.contact.id, change.contact.firstName);
      else replica.delete(change.id);
    };
    for await (const change of first) apply(change);
    expect(first.position).toEqual(expect.any(String));
    const created = await client.contacts.create({ firstName: 'Synced', lastName: 'Sdk' });
    const doomed = [...replica.keys()][0] as string;
    await client.contacts.delete(doomed);
    await client.contacts.update(created.id, { firstName: 'Synced2' });
    const second = client.contacts.sync({ cursor: first.position as string, limit: 1 });
    const kinds: string[] = [];
    for await (const change of second) {
      kinds.push(change.type);
      apply(change);
    }
    expect(kinds).toEqual(['deleted', 'changed']);
    const all = new Map<string, string>();
    for await (const contact of client.contacts.list({ limit: 200 })) {
      all.set(contact.id, contact.firstName);
    }
    expect(replica).toEqual(all);
    // Caught up: a third sync from the second's position finds nothing and keeps the position.
    const third = client.contacts.sync({ cursor: second.position as string });
    for await (const _change of third) throw new Error('no change expected');
    expect(third.position).toBe(second.position);
    expect(() => client.contacts.sync({ cursor: 'x', updatedSince: new Date() })).toThrow(
      ConfigurationError,
    );
  });

  it('upserts any number of contacts in batches of 200, with progress and one result per item', async () => {
    const { client } = server;
    const items = Array.from({ length: 450 }, (_, n) => ({
      firstName: `Bulk${n}`,
      lastName: 'Sdk',
      email: n === 7 ? 'not-an-address' : `bulk${n}@example.com`,
    }));
    const progress: Array<{ done: number; total: number }> = [];
    const results = await client.contacts.upsertMany(items, {
      onProgress: (step) => progress.push(step),
    });
    expect(progress).toEqual([
      { done: 200, total: 450 },
      { done: 400, total: 450 },
      { done: 450, total: 450 },
    ]);
    expect(results.map((result) => result.index)).toEqual(items.map((_, n) => n));
    expect(results.filter((result) => result.result === 'invalid').map((r) => r.index)).toEqual([
      7,
    ]);
    expect(results.filter((result) => result.result === 'created')).toHaveLength(449);
    // Again, with one change and an explicit key (one derived key per request): updates only.
    const again = await client.contacts.upsertMany(
      items.map((item, n) => (n === 300 ? { ...item, lastName: 'Changed' } : item)),
      { batchSize: 150 },
      { idempotencyKey: 'bulk-import-2026-03-01' },
    );
    expect(new Set(again.map((result) => result.result))).toEqual(new Set(['updated', 'invalid']));
    const changed = again[300];
    expect(changed?.result === 'updated' && changed.contact.lastName).toBe('Changed');
    const found = await client.contacts.list({ q: 'bulk', limit: 200 });
    const total = (await client.contacts.list({ email: 'bulk449@example.com' })).items.length;
    expect(found.items).toHaveLength(200);
    expect(total).toBe(1);
    await expect(client.contacts.upsertMany(items, { batchSize: 201 })).rejects.toSatisfy((error) =>
      ConfigurationError.isInstance(error),
    );
  });
});
