// Walks every contact, one page in memory at a time, and reports progress as it goes.
import { FollowUp } from '@followup/sdk';

/**
 * Counts the contacts by lifecycle, walking every page.
 *
 * @param {FollowUp} client
 * @param {{ onProgress?: (walked: number) => void, every?: number }} [options]
 * @returns {Promise<{ total: number, byLifecycle: Record<string, number> }>}
 */
export async function listContacts(client, { onProgress, every = 100 } = {}) {
  const byLifecycle = {};
  let total = 0;
  // `for await` fetches the next page only when this one is used up; `break` stops the walk.
  for await (const contact of client.contacts.list({ limit: 200 })) {
    total++;
    byLifecycle[contact.lifecycle] = (byLifecycle[contact.lifecycle] ?? 0) + 1;
    if (total % every === 0) onProgress?.(total);
  }
  return { total, byLifecycle };
}
