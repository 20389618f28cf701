import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { ProblemError } from '../problem-error.js';
import type { Database, Queryable } from '../storage/database.js';
import { inviteUser } from './user-actions.js';

/**
 * The database, where another invitation's row for `email` lands between an invitation's lookup
 * and its insert: as when two people invite one address, in two cases, at the same moment.
 */
function withInviteRacing(database: Database, email: string): Database {
  return {
    ...database,
    query: (sql, params) => database.query(sql, params),
    transaction: (callback) =>
      database.transaction((transaction) =>
        callback({
          query: async (sql, params) => {
            if (/^\s*INSERT INTO users\b/.test(sql)) {
              await transaction.query(
                `INSERT INTO users (id, email, name, role, created_at)
                 VALUES ('usr_first', $1, 'First', 'AGENT', now())`,
                [email],
              );
            }
            return transaction.query(sql, params);
          },
        } as Queryable),
      ),
  };
}

describe('inviteUser', () => {
  const database = useTestDatabase();

  it('answers 409 conflict, never a second user, when another case of the address got in first', async () => {
    const clock = manualClock();
    const context = {
      database: withInviteRacing(database(), 'ADA@example.com'),
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
      actor: { type: 'operator' } as const,
    };
    const error = await inviteUser(context, {
      email: 'ada@example.com',
      role: 'AGENT',
      publicUrl: 'http://127.0.0.1:3000',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 409, code: 'conflict' });
    // Nothing of the invitation is kept (here the racing row shared its transaction).
    const { rows } = await database().query('SELECT id FROM users');
    expect(rows).toEqual([]);
  });
});
