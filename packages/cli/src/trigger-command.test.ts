import { startTestServer, type TestServer } from '@followup/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCli, testCli } from '../test/support/test-io.js';
import { TRIGGER_KINDS } from './trigger-kinds.js';

const INBOX_SECRET = 'inbox-secret-for-tests';
const EHR_SECRET = 'athenahealth-secret-for-tests';
let server: TestServer;
let cli: TestCli;
beforeAll(async () => {
  server = await startTestServer({
    inboxWebhookSecret: INBOX_SECRET,
    ehrWebhookSecrets: { athenahealth: EHR_SECRET },
  });
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
      const run = await cli.run([
        'trigger',
        kind,
        '--json',
        '--inbox-secret',
        INBOX_SECRET,
        '--ehr-secret',
        EHR_SECRET,
      ]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const printed = JSON.parse(run.stdout);
      const event = (await feed()).find((candidate) => candidate.id === printed.eventId);
      expect(event?.event).toBe(kind);
      const subject = kind.startsWith('deal.')
        ? printed.ids.deal
        : (printed.ids.contact ?? printed.ids.message ?? printed.ids.receipt);
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
      'ehr.receipt.recorded',
    ]);
    const listed = (await cli.run(['trigger', '--list'])).stdout;
    expect(listed).toContain(
      'contact.updated       creates a contact, then changes its lifecycle to PROSPECT\n',
    );
    expect(listed).toContain(
      'ehr.receipt.recorded  posts a webhook signed as an EHR vendor (needs --ehr-secret)\n',
    );
  });

  it('is a usage error, exit 2, for an unknown kind or vendor, or a secret the server needs', async () => {
    const unknown = await cli.run(['trigger', 'contact.merged']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /Unknown event kind "contact\.merged"\. It can trigger: contact\.created/,
    );
    const ehr = await cli.run(['trigger', 'ehr.receipt.recorded']);
    expect(ehr.code).toBe(2);
    expect(ehr.stderr).toMatch(/pass --ehr-secret .* EHR_WEBHOOK_SECRET_ATHENAHEALTH/);
    const vendor = await cli.run([
      'trigger',
      'ehr.receipt.recorded',
      '--ehr-vendor',
      'epic',
      '--ehr-secret',
      EHR_SECRET,
    ]);
    expect(vendor.code).toBe(2);
    expect(vendor.stderr).toMatch(/"epic" is not a vendor .*: athenahealth, akute, metriport/);
    // This server's inbox has a secret: without one, the cli says which to pass.
    const inbox = await cli.run(['trigger', 'message.received']);
    expect(inbox.code).toBe(2);
    expect(inbox.stderr).toMatch(/pass --inbox-secret/);
    expect((await cli.run(['trigger'])).code).toBe(2);
  });

  it('ehr.receipt.recorded signs as the vendor the server verifies, and says so when refused', async () => {
    const wrong = await cli.run([
      'trigger',
      'ehr.receipt.recorded',
      '--ehr-secret',
      'not-the-secret',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /answered 401 signature_invalid: .*--ehr-secret is not its EHR_WEBHOOK_SECRET_ATHENAHEALTH/,
    );
    expect(wrong.stderr).not.toContain('not-the-secret');
    // The secret from the environment, and a vendor the server has no secret for.
    const akute = await cli.run(['trigger', 'ehr.receipt.recorded', '--ehr-vendor', 'akute'], {
      env: { FOLLOWUP_EHR_SECRET: EHR_SECRET },
    });
    expect(akute.code).toBe(1);
    expect(akute.stderr).toMatch(/answered 501 vendor_not_supported: .*EHR_WEBHOOK_SECRET_AKUTE/);
    const run = await cli.run(['trigger', 'ehr.receipt.recorded', '--json'], {
      env: { FOLLOWUP_EHR_SECRET: EHR_SECRET },
    });
    expect(run.code).toBe(0);
    const { ids, eventId } = JSON.parse(run.stdout);
    const event = (await feed()).find((candidate) => candidate.id === eventId);
    expect(event).toMatchObject({
      event: 'ehr.receipt.recorded',
      data: { id: ids.receipt, vendor: 'athenahealth', verdict: 'valid' },
    });
  });
});

describe('followup trigger message.received, on a server whose inbox is open', () => {
  it('sends the message without an inbox secret', async () => {
    const open = await startTestServer();
    const openCli = testCli({
      FOLLOWUP_BASE_URL: open.baseUrl,
      FOLLOWUP_TOKEN: await open.issueToken('ADMIN'),
    });
    try {
      const run = await openCli.run(['trigger', 'message.received', '--json']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const { ids } = JSON.parse(run.stdout);
      const messages = await open.client.messages.list({ limit: 10 });
      expect(messages.items.map((message) => message.id)).toEqual([ids.message]);
    } finally {
      openCli.remove();
      await open.close();
    }
  });
});
