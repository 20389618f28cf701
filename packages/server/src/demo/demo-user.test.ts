import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { DEMO_USER_EMAIL, demoUserSignInLink } from './demo-user.js';

describe('demoUserSignInLink', () => {
  const database = useTestDatabase();

  it('makes the user who has the demo address in another case the demo admin, never a second user', async () => {
    const clock = manualClock();
    const options = {
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
      publicUrl: 'http://127.0.0.1:3000',
    };
    await database().query(
      `INSERT INTO users (id, email, name, role, created_at, disabled_at)
       VALUES ('usr_1', $1, 'Someone', 'AGENT', $2, $2)`,
      [DEMO_USER_EMAIL.toUpperCase(), new Date(clock.now())],
    );
    const first = await demoUserSignInLink(database(), options);
    const again = await demoUserSignInLink(database(), options);
    expect([first.userId, again.userId]).toEqual(['usr_1', 'usr_1']);
    const { rows } = await database().query('SELECT id, email, role, disabled_at FROM users');
    expect(rows).toEqual([
      { id: 'usr_1', email: 'DEMO@EXAMPLE.COM', role: 'ADMIN', disabled_at: null },
    ]);
  });
});
