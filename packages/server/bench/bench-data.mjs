// What the server benchmarks load before they measure: contacts a millisecond apart and
// tokens of the roles they call with.
import { createAccountStore } from '../dist/index.js';

/**
 * Inserts `count` contacts a millisecond apart, in one statement (a bulk load: no events, no
 * audit entries).
 */
export async function seedContacts(database, count) {
  await database.query(
    `INSERT INTO contacts (id, first_name, last_name, lifecycle, email, created_at, updated_at)
     SELECT 'con_' || lpad(i::text, 26, '0'), 'First' || i, 'Last' || i, 'LEAD',
            'contact' || i || '@example.com',
            timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond',
            timestamptz '2026-01-01T00:00:00Z' + i * interval '1 millisecond'
       FROM generate_series(1, $1::integer) AS i`,
    [count],
  );
}

/**
 * Creates a READONLY and an AGENT account named `<prefix>-<role>` and issues `perRole` tokens
 * to each; resolves with the tokens by role.
 */
export async function issueRoleTokens(database, { prefix, perRole }) {
  const store = createAccountStore({ database });
  const tokens = {};
  for (const role of ['READONLY', 'AGENT']) {
    const account = await store.createAccount({ name: `${prefix}-${role}`, role });
    tokens[role] = [];
    for (let index = 0; index < perRole; index++) {
      tokens[role].push((await store.issueToken({ accountId: account.id })).token);
    }
  }
  return tokens;
}
