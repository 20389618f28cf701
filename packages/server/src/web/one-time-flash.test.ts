import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import { FLASH_LIFETIME_MS, putFlash, takeFlash } from './one-time-flash.js';

describe('one-time flash', () => {
  const database = useTestDatabase();
  const setup = () => {
    const clock = manualClock();
    return { clock, newId: createIdGenerator({ now: () => clock.now() }) };
  };

  it('gives the payload back once, to its own session, and keeps only ciphertext', async () => {
    const { clock, newId } = setup();
    const secret = 'hns_sa_X.s3cr3t-value-that-must-not-be-stored';
    const cookieValue = await putFlash(database(), {
      sessionId: 'ses_1',
      payload: { token: secret },
      clock,
      newId,
    });
    const { rows } = await database().query<{ row: string }>(
      'SELECT w::text AS row FROM web_flashes w',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.row).not.toContain('s3cr3t');
    expect(rows[0]?.row).not.toContain(Buffer.from(secret).toString('hex'));
    expect(
      await takeFlash(database(), { sessionId: 'ses_other', cookieValue, clock }),
    ).toBeUndefined();
    const again = await putFlash(database(), {
      sessionId: 'ses_1',
      payload: { token: secret },
      clock,
      newId,
    });
    expect(await takeFlash(database(), { sessionId: 'ses_1', cookieValue: again, clock })).toEqual({
      token: secret,
    });
    expect(
      await takeFlash(database(), { sessionId: 'ses_1', cookieValue: again, clock }),
    ).toBeUndefined();
  });

  it('refuses a tampered key, a malformed cookie and an expired flash', async () => {
    const { clock, newId } = setup();
    const put = () => putFlash(database(), { sessionId: 'ses_1', payload: 'x', clock, newId });
    const tampered = await put();
    const flipped = `${tampered.slice(0, -2)}${tampered.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(
      await takeFlash(database(), { sessionId: 'ses_1', cookieValue: flipped, clock }),
    ).toBeUndefined();
    for (const cookieValue of [undefined, '', 'flash_x.y', `${tampered}x`]) {
      expect(
        await takeFlash(database(), { sessionId: 'ses_1', cookieValue, clock }),
      ).toBeUndefined();
    }
    const expiring = await put();
    clock.advance(FLASH_LIFETIME_MS);
    expect(
      await takeFlash(database(), { sessionId: 'ses_1', cookieValue: expiring, clock }),
    ).toBeUndefined();
    // Expired rows go when the next flash is made.
    const left = await put();
    clock.advance(FLASH_LIFETIME_MS + 1);
    await put();
    const { rows } = await database().query('SELECT id FROM web_flashes');
    expect(rows).toHaveLength(1);
    expect(left).not.toBe('');
  });
});
