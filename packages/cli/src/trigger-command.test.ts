import { startTestServer, type TestServer } from '@followup/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCli, testCli } from '../test/support/test-io.js';
import { TRIGGER_KINDS } from './trigger-kinds.js';

const INBOX_SECRET = 'inbox-secret-for-tests';
let server: TestServer;
let cli: TestCli;
beforeAll(async () => {
  server = await startTestServer({ inboxWebhookSecret: INBOX_SECRET });
  cli = testCli({
    FOLLOWUP_BASE_URL: server.baseUrl,
    FOLLOWUP_TOKEN: await server.issueToken('ADMIN'),
  });
});
afterAll(async () => {
  cli?.remove();
  await server?.close();
});

/** The feed's events, oldest first. */
async function feed() {
  const events = [];
  for await (const event of server.client.events.list({ limit: 200 })) events.push(event);
  return events;
}

describe('followup trigger', () => {
  it.each(TRIGGER_KINDS.map((entry) => entry.kind))(
    '%s makes the real change and prints the event of the feed that tells it',
    async (kind) => {
      const run = await cli.run(['trigger', kind, '--json', '--inbox-secret', INBOX_SECRET]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const printed = JSON.parse(run.stdout);
      const event = (await feed()).find((candidate) => candidate.id === printed.eventId);
      expect(event?.event).toBe(kind);
      const subject = kind.startsWith('deal.')
        ? printed.ids.deal
        : (printed.ids.contact ?? printed.ids.message);
      expect((event?.data as { id?: string } | undefined)?.id).toBe(subject);
    },
  );

  it('prints the ids and the event id for a person', async () => {
    const run = await cli.run(['trigger', 'deal.updated']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^deal\.updated\n {2}contact {2}con_\S+\n {2}deal {5}deal_\S+\n {2}event {4}evt_\S+\n$/,
    );
    const dealId = /deal {5}(\S+)/.exec(run.stdout)?.[1] as string;
    expect((await server.client.deals.get(dealId)).stage).toBe('WON');
  });

  it('--cleanup deletes what it made', async () => {
    const run = await cli.run(['trigger', 'deal.created', '--cleanup', '--json']);
    expect(run.code).toBe(0);
    const { ids, cleanedUp } = JSON.parse(run.stdout);
    expect(cleanedUp).toEqual([`deleted contact ${ids.contact} (and its deals)`]);
    await expect(server.client.contacts.get(ids.contact)).rejects.toMatchObject({ status: 404 });
    await expect(server.client.deals.get(ids.deal)).rejects.toMatchObject({ status: 404 });
  });

  it('--list lists every kind it can trigger, and what it does', async () => {
    const run = await cli.run(['trigger', '--list', '--json']);
    expect(JSON.parse(run.stdout).kinds.map((entry: { kind: string }) => entry.kind)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.deleted',
      'contact.erased',
      'deal.created',
      'deal.updated',
      'deal.deleted',
      'message.received',
    ]);
    expect((await cli.run(['trigger', '--list'])).stdout).toContain(
      'contact.updated   creates a contact, then changes its lifecycle to PROSPECT\n',
    );
  });

  it('is a usage error, exit 2, for a kind it cannot trigger or a missing inbox secret', async () => {
    const unknown = await cli.run(['trigger', 'contact.merged']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /Unknown event kind "contact\.merged"\. It can trigger: contact\.created/,
    );
    const ehr = await cli.run(['trigger', 'ehr.receipt.recorded']);
    expect(ehr.code).toBe(2);
    expect(ehr.stderr).toMatch(/EHR vendor's secret/);
    const inbox = await cli.run(['trigger', 'message.received']);
    expect(inbox.code).toBe(2);
    expect(inbox.stderr).toMatch(/pass --inbox-secret/);
    expect((await cli.run(['trigger'])).code).toBe(2);
  });
});
