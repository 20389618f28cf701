// The integrator's code under test: promotes every LEAD that has an e-mail address to PROSPECT.
import { FollowUp } from '@followup/sdk';

/**
 * @param {FollowUp} client
 * @returns {Promise<string[]>} the ids of the contacts promoted
 */
export async function promoteLeads(client) {
  const promoted = [];
  for await (const contact of client.contacts.list({ limit: 200 })) {
    if (contact.lifecycle !== 'LEAD' || !contact.email) continue;
    await client.contacts.update(contact.id, { lifecycle: 'PROSPECT' });
    promoted.push(contact.id);
  }
  return promoted;
}
