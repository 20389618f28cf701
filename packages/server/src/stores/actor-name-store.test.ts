import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { findActorNames } from './actor-name-store.js';

describe('findActorNames', () => {
  const database = useTestDatabase();

  it('names users (their email when nameless) and accounts in one read; unknown ids left out', async () => {
    await database().query(
      `INSERT INTO users (id, email, name, role, created_at) VALUES
         ('usr_ada', 'ada@example.com', 'Ada Lovelace', 'ADMIN', now()),
         ('usr_anon', 'anon@example.com', '', 'AGENT', now());
       INSERT INTO service_accounts (id, name, role, created_at) VALUES
         ('sa_crm', 'crm sync', 'AGENT', now())`,
    );
    const names = await findActorNames(database(), {
      userIds: ['usr_ada', 'usr_anon', 'usr_gone', 'sa_crm'],
      accountIds: ['sa_crm', 'sa_gone'],
    });
    expect(names.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { kind: 'service_account', id: 'sa_crm', name: 'crm sync' },
      { kind: 'user', id: 'usr_ada', name: 'Ada Lovelace' },
      { kind: 'user', id: 'usr_anon', name: 'anon@example.com' },
    ]);
  });

  it('asks nothing of the database for no ids', async () => {
    expect(await findActorNames(database(), { userIds: [], accountIds: [] })).toEqual([]);
  });
});
