import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Contact, ResponseValidationError } from '../src/index.js';
import { type Fixture, makeContact, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 2 });
});
afterAll(() => fixture.close());
afterEach(() => {
  expect(fixture.pendingScripts()).toBe(0);
});

const PATH = '/api/contacts/con_00000000';

describe('forward-compatible parsing', () => {
  it('keeps unknown fields and accepts unknown enum values', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', PATH, {
      body: {
        ...makeContact(0),
        lifecycle: 'ALUMNI',
        loyaltyTier: 'gold',
        tags: ['vip'],
      },
    });
    const contact: Contact = await client.contacts.get('con_00000000');
    expect(contact.lifecycle).toBe('ALUMNI');
    expect(contact).toMatchObject({ loyaltyTier: 'gold', tags: ['vip'] });
  });

  it('accepts an unknown top-level key in a list body and unknown audit actions', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', '/api/audit', {
      body: {
        entries: [
          {
            id: 'aud_1',
            occurredAt: '2026-01-01T00:00:00Z',
            action: 'deal.archived',
            actor: { type: 'robot', id: 'r2d2' },
            target: { type: 'deal', id: 'deal_1' },
            metadata: { reason: 'stale' },
          },
        ],
        nextCursor: null,
        generatedAt: '2026-01-01T00:00:00Z',
      },
    });
    const page = await client.audit.list();
    expect(page.items[0]?.action).toBe('deal.archived');
    expect(page.items[0]?.actor.type).toBe('robot');
    expect(page.hasNextPage()).toBe(false);
  });

  it('refuses a response that breaks the schema, naming the path but not the value', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', PATH, {
      body: { ...makeContact(0), firstName: 12345, createdAt: 'yesterday' },
    });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
    const validation = error as ResponseValidationError;
    expect(validation.issues.map((issue) => issue.path)).toEqual([['firstName'], ['createdAt']]);
    expect(validation.status).toBe(200);
    expect(validation.requestId).toMatch(/^req_/);
    expect(validation.message).toContain('firstName');
    expect(validation.message).not.toContain('12345');
    expect(validation.message).not.toContain('yesterday');
  });

  it('refuses a body that is not JSON', async () => {
    const { client } = clientFor(fixture);
    fixture.script('GET', PATH, {
      body: 'not json',
      headers: { 'content-type': 'application/json' },
    });
    const error = await client.contacts.get('con_00000000').catch((caught: unknown) => caught);
    expect(ResponseValidationError.isInstance(error)).toBe(true);
  });

  it("logs and returns the body as it came with validation: 'warn'", async () => {
    const warnings: string[] = [];
    const { client } = clientFor(fixture, {
      validation: 'warn',
      logger: { warn: (message) => warnings.push(message) },
    });
    fixture.script('GET', PATH, { body: { ...makeContact(0), lastName: null } });
    const contact = await client.contacts.get('con_00000000');
    expect(contact.lastName).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('lastName');
  });

  it("does not validate with validation: 'off'", async () => {
    const { client } = clientFor(fixture, { validation: 'off' });
    fixture.script('GET', PATH, { body: { id: 'con_00000000', surprise: true } });
    expect(await client.contacts.get('con_00000000')).toEqual({
      id: 'con_00000000',
      surprise: true,
    });
    fixture.script('GET', '/api/contacts', { body: { people: [] } });
    const page = await client.contacts.list();
    expect(page.items).toEqual([]);
    expect(page.hasNextPage()).toBe(false);
  });
});
