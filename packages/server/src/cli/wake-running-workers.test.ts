import { describe, expect, it } from 'vitest';
import { runCliOn } from '../../test/support/cli-io.js';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createIdGenerator } from '../ids.js';
import { OUTBOX_CHANNEL, recordOutboxEvent } from '../stores/outbox-store.js';

// An operator's command that leaves the delivery workers work tells the running servers at once,
// as the API's routes do, rather than leaving it to their next poll. Only PostgreSQL can have a
// server running beside the command.
describe.runIf(testDriver === 'postgres')('operator commands wake running workers', () => {
  const database = useTestDatabase();
  // The commands' own clock is the system's: the event is written after the endpoint, by it.
  const clock = { now: () => Date.now() };

  /** Runs `argv` and resolves once a notification on the outbox channel has arrived. */
  async function heardAfter(...argv: string[]): Promise<string> {
    let heard: (payload: string) => void = () => {};
    const notified = new Promise<string>((resolve) => {
      heard = resolve;
    });
    const listen = database().listen;
    if (listen === undefined) throw new Error('PostgreSQL listens');
    const stop = await listen.call(database(), OUTBOX_CHANNEL, (payload) => heard(payload ?? ''));
    try {
      const { code, err } = await runCliOn(database(), argv);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      return await notified;
    } finally {
      await stop();
    }
  }

  it('tells them after endpoints disable and enable, deliveries retry and recover', async () => {
    const newId = createIdGenerator({ now: () => clock.now() });
    const added = await runCliOn(database(), [
      'endpoints',
      'add',
      '--url',
      'https://subscriber.example.com/hooks',
      '--json',
    ]);
    expect(added.err).toBe('');
    const endpoint = JSON.parse(added.out).id as string;
    await recordOutboxEvent(
      database(),
      { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
      { clock, newId },
    );
    await fanOutEvents(database(), { clock, newId });
    const { rows } = await database().query<{ id: string }>('SELECT id FROM deliveries');
    const delivery = rows[0]?.id;
    if (delivery === undefined) throw new Error('the event made no delivery');

    const schema = expect.stringMatching(/^test_[0-9a-f]+:$/);
    expect(await heardAfter('endpoints', 'disable', '--endpoint', endpoint)).toEqual(schema);
    expect(await heardAfter('endpoints', 'enable', '--endpoint', endpoint)).toEqual(schema);
    expect(await heardAfter('deliveries', 'retry', '--delivery', delivery)).toEqual(schema);
    await database().query(
      `UPDATE deliveries SET state = 'dead', attempts = 1, next_attempt_at = NULL,
              last_status = 500`,
    );
    expect(
      await heardAfter(
        'deliveries',
        'recover',
        '--endpoint',
        endpoint,
        '--since',
        '2026-01-01T00:00:00Z',
      ),
    ).toEqual(schema);
  });
});
