import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { useKillableServer } from './support/killable-server.js';
import { startSubscriber } from './support/subscriber.js';

// The built command, killed with SIGKILL in the middle of its deliveries.
const CONTACTS = 10;
const HUNG = 5;

describe('a server killed in the middle of its deliveries', () => {
  const { operator, startServer } = useKillableServer('followup-killed-', {
    // A cluster that exists (the run's template): this test is about the kill, not the creation.
    migrated: true,
    // More than HUNG attempts at once to the one endpoint, so that all hang together; and
    // retries enough that a loaded machine, where an attempt may outlast the 1 s timeout a few
    // times, cannot spend them all (a dead delivery would never arrive).
    startArguments: [
      '--endpoint-concurrency',
      '16',
      '--delivery-retry-delays',
      Array.from({ length: 20 }, () => '0.05').join(','),
    ],
  });

  it('delivers every event once it is started again: none lost', async () => {
    // The first deliveries hang (they are in flight when the server dies); the rest succeed.
    const hook = await startSubscriber([
      ...Array.from({ length: HUNG }, () => 'hang' as const),
      { status: 200 },
    ]);
    try {
      await operator('endpoints', 'add', '--url', hook.url);
      const account = await operator('accounts', 'create', '--name', 'crm', '--role', 'AGENT');
      const { token } = await operator('tokens', 'issue', '--account', account.id);

      const first = await startServer();
      const contactIds: string[] = [];
      for (let index = 0; index < CONTACTS; index++) {
        const response = await fetch(`${first.url}/api/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ firstName: `Killed ${index}`, lastName: 'Mid-delivery' }),
        });
        expect(response.status).toBe(201);
        contactIds.push(((await response.json()) as { id: string }).id);
      }
      // Deliveries are claimed and in flight: kill the server without a word.
      await hook.waitFor(HUNG);
      first.child.kill('SIGKILL');
      await once(first.child, 'exit');

      const second = await startServer();
      const answered = () =>
        new Set(
          hook.received
            .slice(HUNG)
            .map((request) => (JSON.parse(request.body) as { data: { id: string } }).data.id),
        );
      // A delivery that died will never arrive: say so, rather than wait for the test's timeout.
      const noneDead = async () => {
        const listed: { id: string; state: string }[] = await operator('deliveries', 'list');
        expect(listed.filter((delivery) => delivery.state === 'dead')).toEqual([]);
        return listed;
      };
      // Every contact's event reaches the subscriber with a 2xx answer: the claimed ones once
      // their lease runs out, the others at once.
      while (answered().size < CONTACTS) {
        const arrived = hook.waitFor(hook.received.length + 1).then(() => true);
        const quiet = new Promise<false>((resolve) => setTimeout(resolve, 2_000, false));
        if (!(await Promise.race([arrived, quiet]))) await noneDead();
      }
      expect(answered()).toEqual(new Set(contactIds));
      const hungIds = new Set(
        hook.received.slice(0, HUNG).map((request) => request.headers['x-service-delivery']),
      );
      const retriedIds = new Set(
        hook.received.slice(HUNG).map((request) => request.headers['x-service-delivery']),
      );
      // A delivery in flight when the server died is sent again with the same id.
      for (const id of hungIds) expect(retriedIds.has(id)).toBe(true);

      // An answer the first server got but never recorded is sent again once its lease runs
      // out (at least once): wait until the running server has recorded every delivery.
      let deliveries: { id: string; state: string }[] = [];
      while (
        deliveries.length < CONTACTS ||
        deliveries.some((delivery) => delivery.state !== 'delivered')
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        deliveries = await noneDead();
      }
      expect(deliveries).toHaveLength(CONTACTS);
      second.child.kill('SIGTERM');
      const [code] = (await once(second.child, 'exit')) as [number];
      expect(code).toBe(0);
    } finally {
      await hook.close();
    }
    // A hang guard: two PGlite start-ups and a 6 s lease took 68 s on two cores at load 20.
  }, 240_000);
});
