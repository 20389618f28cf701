// Quick start: run the reference server on an embedded database in a temporary folder, then use
// the SDK against it. `npm start -w @followup/example-sdk-quickstart`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@followup/example-support';
import { FollowUp } from '@followup/sdk';

const dataDir = mkdtempSync(join(tmpdir(), 'followup-quickstart-'));
const server = await startServer({ dataDir }, { INBOX_WEBHOOK_SECRET: 'quickstart-inbox-secret' });
try {
  console.log(`server on ${server.url} (${server.driver})`);
  const client = new FollowUp({ token: server.token, baseUrl: server.url });

  const ada = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
  await client.contacts.update(ada.id, { lifecycle: 'PATIENT' });
  console.log(`created contact ${ada.id}; ${await client.contacts.count()} contacts in all`);
  const firstPage = await client.contacts.list({ limit: 5 });
  for (const contact of firstPage.items) {
    console.log(
      `contact ${contact.id}: ${contact.firstName} ${contact.lastName} (${contact.lifecycle})`,
    );
  }
  let walked = 0;
  for await (const _contact of client.contacts.list({ limit: 200 })) walked++;
  console.log(`walked ${walked} contacts, page after page`);

  const { id } = await client.inbox.send(
    { from: 'ada@example.com', subject: 'Follow-up', text: 'Call me on Tuesday.' },
    { secret: 'quickstart-inbox-secret' },
  );
  console.log(`stored inbox message ${id}`);

  for await (const message of client.messages.list()) {
    console.log(`message ${message.id} from ${message.from}: ${message.subject}`);
  }
  for await (const entry of client.audit.list({ limit: 200 })) {
    console.log(
      `audit ${entry.occurredAt} ${entry.action} ${entry.target.type} ${entry.target.id}`,
    );
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
