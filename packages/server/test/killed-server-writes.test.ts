import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { useKillableServer } from './support/killable-server.js';
import { startSubscriber } from './support/subscriber.js';

// Crash consistency: the built server, a process of its own, is killed with SIGKILL while
// clients write contacts, inbox messages and EHR webhooks (and its worker delivers the contacts'
// events); started again on the same storage, every write a client saw acknowledged (201, 202)
// is there, every acknowledged contact's event is delivered, and the database takes new writes.
const EHR_SECRET = 'crash-test-ehr-secret';
const INBOX_SECRET = 'crash-test-inbox-secret';
const WRITERS = 6;
const ACKNOWLEDGED_BEFORE_KILL = 60;

describe('a server killed while it writes', () => {
  const { operator, startServer } = useKillableServer('followup-crash-', {
    // A cluster that exists (the run's template): this test is about the kill, not the creation.
    migrated: true,
    startArguments: ['--rate-limit', '1000000', '--address-rate-limit', '1000000'],
    env: { INBOX_WEBHOOK_SECRET: INBOX_SECRET, EHR_WEBHOOK_SECRET_ATHENAHEALTH: EHR_SECRET },
  });

  it('keeps every acknowledged contact, message and receipt, and delivers every acknowledged contact', async () => {
    const hook = await startSubscriber([{ status: 200 }]);
    try {
      await operator('endpoints', 'add', '--url', hook.url);
      const account = await operator('accounts', 'create', '--name', 'crm', '--role', 'AGENT');
      const { token } = await operator('tokens', 'issue', '--account', account.id);

      const first = await startServer();
      const acknowledged = {
        contacts: [] as string[],
        messages: [] as string[],
        receipts: [] as string[],
      };
      const total = () =>
        acknowledged.contacts.length + acknowledged.messages.length + acknowledged.receipts.length;
      let killed = false;
      let sequence = 0;

      async function writeOne(url: string): Promise<void> {
        const index = sequence++;
        const kind = index % 3;
        try {
          if (kind === 0) {
            const response = await fetch(`${url}/api/contacts`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ firstName: `Crash ${index}`, lastName: 'Test' }),
            });
            if (response.status === 201) {
              acknowledged.contacts.push(((await response.json()) as { id: string }).id);
            }
          } else if (kind === 1) {
            const response = await fetch(`${url}/api/inbox/webhook`, {
              method: 'POST',
              headers: {
                'x-service-webhook-secret': INBOX_SECRET,
                'content-type': 'application/json',
              },
              body: JSON.stringify({
                from: `sender${index}@example.com`,
                subject: `Crash ${index}`,
              }),
            });
            if (response.status === 201) {
              acknowledged.messages.push(((await response.json()) as { id: string }).id);
            }
          } else {
            const body = JSON.stringify({ event: 'patient.updated', sequence: index });
            const signature = createHmac('sha256', EHR_SECRET).update(body).digest('hex');
            const response = await fetch(`${url}/api/ehr/webhooks/athenahealth`, {
              method: 'POST',
              headers: {
                'x-hub-signature': `sha256=${signature}`,
                'content-type': 'application/json',
              },
              body,
            });
            if (response.status === 202) {
              acknowledged.receipts.push(
                ((await response.json()) as { receiptId: string }).receiptId,
              );
            }
          }
        } catch {
          // The server died under this request: not acknowledged, so nothing is promised.
        }
      }

      // Writers keep writing until the server is gone; the kill comes in the middle of them.
      const writers = Array.from({ length: WRITERS }, async () => {
        while (!killed) await writeOne(first.url);
      });
      while (total() < ACKNOWLEDGED_BEFORE_KILL)
        await new Promise((resolve) => setTimeout(resolve, 5));
      first.child.kill('SIGKILL');
      killed = true;
      await once(first.child, 'exit');
      await Promise.all(writers);
      expect(acknowledged.contacts.length).toBeGreaterThan(0);
      expect(acknowledged.messages.length).toBeGreaterThan(0);
      expect(acknowledged.receipts.length).toBeGreaterThan(0);

      const second = await startServer();
      const headers = { authorization: `Bearer ${token}` };
      for (const id of acknowledged.contacts) {
        const response = await fetch(`${second.url}/api/contacts/${id}`, { headers });
        expect(response.status, id).toBe(200);
      }
      const messages = new Set<string>();
      for (let offset = 0; ; offset += 200) {
        const response = await fetch(`${second.url}/api/messages?limit=200&offset=${offset}`, {
          headers,
        });
        const page = ((await response.json()) as { messages: { id: string }[] }).messages;
        for (const message of page) messages.add(message.id);
        if (page.length < 200) break;
      }
      for (const id of acknowledged.messages) expect(messages.has(id), id).toBe(true);
      const receipts = new Set(
        ((await operator('receipts', 'list', '--limit', '1000')) as { id: string }[]).map(
          (receipt) => receipt.id,
        ),
      );
      for (const id of acknowledged.receipts) expect(receipts.has(id), id).toBe(true);

      // Every acknowledged contact's contact.created event reaches the subscriber (at least once).
      const delivered = () =>
        new Set(
          hook.received
            .map((request) => JSON.parse(request.body) as { event: string; data: { id: string } })
            .filter((event) => event.event === 'contact.created')
            .map((event) => event.data.id),
        );
      while (!acknowledged.contacts.every((id) => delivered().has(id))) {
        await hook.waitFor(hook.received.length + 1);
      }

      // The database takes new writes.
      const after = await fetch(`${second.url}/api/contacts`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ firstName: 'After', lastName: 'Restart' }),
      });
      expect(after.status).toBe(201);
      second.child.kill('SIGTERM');
      const [code] = (await once(second.child, 'exit')) as [number];
      expect(code).toBe(0);
      console.info(
        `crash test: killed after ${acknowledged.contacts.length} contacts, ${acknowledged.messages.length} messages and ${acknowledged.receipts.length} receipts acknowledged; all kept`,
      );
    } finally {
      await hook.close();
    }
  }, 180_000);
});
