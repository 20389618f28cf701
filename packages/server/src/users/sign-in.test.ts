import { describe, expect, it, vi } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import * as passwords from './passwords.js';
import { createSessionStore } from './sessions.js';
import { setPasswordWithLink } from './sign-in.js';
import { createSignInThrottle } from './sign-in-throttle.js';

describe('setPasswordWithLink', () => {
  const database = useTestDatabase();

  it('spends no password hash on a link that cannot be used', async () => {
    const clock = manualClock();
    const newId = createIdGenerator({ now: () => clock.now() });
    const hash = vi.spyOn(passwords, 'hashPassword');
    const result = await setPasswordWithLink(
      {
        database: database(),
        clock,
        newId,
        sessions: createSessionStore({ database: database(), clock, newId }),
        throttle: createSignInThrottle({ clock }),
      },
      {
        token: 'A'.repeat(43),
        password: 'a long enough password',
        confirmation: 'a long enough password',
        address: '192.0.2.1',
      },
    );
    expect(result).toEqual({ ok: false, reason: 'link_unusable' });
    expect(hash).not.toHaveBeenCalled();
    hash.mockRestore();
  });
});
