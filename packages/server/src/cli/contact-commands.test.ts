import { ERASED_VALUE } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { runCliOn } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { buildServer } from '../build-server.js';
import { createAccountStore } from '../tokens/account-store.js';

describe('followup-server contacts erase', () => {
  const database = useTestDatabase();

  /** Creates a contact through the API, and an inbox message from its address. */
  async function contactWithMessage(): Promise<string> {
    const accounts = createAccountStore({ database: database() });
    const account = await accounts.createAccount({ name: 'crm', role: 'ADMIN' });
    const { token } = await accounts.issueToken({ accountId: account.id });
    const app = buildServer({ database: database(), logger: false });
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      });
      await app.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        payload: { from: 'Ada <ada@example.com>', subject: 'Hello', text: 'From Ada' },
      });
      return created.json().id;
    } finally {
      await app.close();
    }
  }

  it('erases the person through the same action as the API, audited as the operator', async () => {
    const contactId = await contactWithMessage();
    const erased = await runCliOn(database(), [
      'contacts',
      'erase',
      '--contact',
      contactId,
      '--json',
    ]);
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.out)).toEqual({
      id: contactId,
      // contact.created, contact.deleted and message.received.
      erased: { events: 3, deliveries: 0, auditEntries: 0, messages: 1, storedResponses: 0 },
      kept: { ehrReceipts: [] },
    });
    const { rows: messages } = await database().query('SELECT sender, subject, text FROM messages');
    expect(messages).toEqual([{ sender: ERASED_VALUE, subject: ERASED_VALUE, text: ERASED_VALUE }]);
    const { rows: audit } = await database().query<{ action: string; actor_type: string }>(
      'SELECT action, actor_type FROM audit_entries WHERE target_id = $1 ORDER BY seq',
      [contactId],
    );
    expect(audit).toEqual([
      { action: 'contact.created', actor_type: 'service_account' },
      { action: 'contact.deleted', actor_type: 'operator' },
      { action: 'contact.erased', actor_type: 'operator' },
    ]);

    // Text for people; again, nothing is left.
    const again = await runCliOn(database(), ['contacts', 'erase', '--contact', contactId]);
    expect(again).toEqual({
      code: 0,
      out:
        `Erased ${contactId}: 0 events, 0 deliveries, 0 audit entries, 0 inbox messages, ` +
        '0 stored responses\nNo EHR receipt mentions the contact.\n',
      err: '',
    });
  });

  it('says which id is unknown, and asks for --contact before opening anything', async () => {
    const missing = await runCliOn(database(), [
      'contacts',
      'erase',
      '--contact',
      'con_missing',
      '--json',
    ]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.err)).toEqual({
      error: {
        code: 'not_found',
        message: 'No contact, and no stored event, has the id "con_missing".',
      },
    });
    const usage = await runCliOn(database(), ['contacts', 'erase']);
    expect(usage.code).toBe(2);
    expect(usage.err).toBe(
      "followup-server: --contact is required. Run 'followup-server --help' for usage.\n",
    );
  });
});
