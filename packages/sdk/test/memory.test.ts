import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, startFixture } from './fixture-server.js';
import { clientFor } from './helpers.js';

let fixture: Fixture;
beforeAll(async () => {
  fixture = await startFixture({ contacts: 2_000, auditEntries: 2_000 });
});
afterAll(() => fixture.close());

const gc = (globalThis as { gc?: () => void }).gc;

async function collectGarbage(): Promise<void> {
  if (gc === undefined) throw new Error('run the tests with --expose-gc (vitest.config.ts does)');
  // A WeakRef target stays alive until the job that touched it ends: let it end first.
  await new Promise((resolve) => setTimeout(resolve, 0));
  gc();
}

describe('a walk holds one page at a time', () => {
  it.each(['offset', 'cursor'] as const)('lets go of earlier pages (%s)', async (kind) => {
    const { client } = clientFor(fixture);
    // A weak reference to the first item of every page.
    const firstItems: WeakRef<object>[] = [];
    let index = 0;
    let stillAlive: number | undefined;
    // The list is not kept in a variable: a PagePromise that is still referenced keeps its first
    // page (awaiting it again gives that page), as any resolved promise keeps its value.
    for await (const item of kind === 'offset'
      ? client.contacts.list({ limit: 50 })
      : client.audit.list({ limit: 50 })) {
      if (index % 50 === 0) firstItems.push(new WeakRef(item));
      index++;
      if (index === 1_001) {
        // The walk is on its 21st page: the 20 pages before it must be collectable.
        await collectGarbage();
        stillAlive = firstItems.slice(0, 20).filter((ref) => ref.deref() !== undefined).length;
        // The current page is alive, which shows the check can see a live page.
        expect(firstItems[20]?.deref()).toBeDefined();
      }
    }
    expect(index).toBe(2_000);
    expect(stillAlive).toBe(0);
  });
});
