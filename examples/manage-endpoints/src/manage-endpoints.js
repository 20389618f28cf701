// The webhook API from the SDK, end to end: register an endpoint (a local receiver), send it a
// test event, create a contact, replay the last hour to it, and say what arrived.
import { setTimeout as delay } from 'node:timers/promises';
import { FollowUp } from '@followup/sdk';
import { startReceiver } from './receiver.js';

/**
 * Waits until `done()` is true, looking every `intervalMs`, for at most `timeoutMs`.
 *
 * @param {() => boolean | Promise<boolean>} done
 * @param {string} what said in the error when it does not come
 * @param {{ timeoutMs?: number, intervalMs?: number }} [options]
 */
async function until(done, what, { timeoutMs = 30_000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}.`);
    await delay(intervalMs);
  }
}

/**
 * Runs the steps and reports each through `log`. The endpoint is removed at the end.
 *
 * @param {object} options
 * @param {string} options.baseUrl
 * @param {string} options.token an ADMIN token (webhooks.manage)
 * @param {(line: string) => void} options.log
 * @returns {Promise<{ endpointId: string, arrived: { deliveryId: string, eventId: string | undefined, event: string, data: object }[], replayed: number }>}
 */
export async function manageEndpoints({ baseUrl, token, log }) {
  const client = new FollowUp({ token, baseUrl });
  const receiver = await startReceiver();
  try {
    // 1. Register the receiver. Its secret is answered this once: the receiver verifies with it.
    const endpoint = await client.webhookEndpoints.create({
      url: receiver.url,
      events: ['contact.created'],
      description: 'examples/manage-endpoints',
    });
    receiver.useSecret(endpoint.secret);
    log(`1. registered ${endpoint.id} at ${endpoint.url} for ${endpoint.events.join(', ')}`);

    // 2. A webhook.test delivery, sent to this endpoint only.
    const { deliveryId } = await client.webhookEndpoints.test(endpoint.id);
    await until(
      () => receiver.arrived.some((seen) => seen.deliveryId === deliveryId),
      'the test delivery',
    );
    log(`2. test delivery ${deliveryId} arrived`);

    // 3. A change the endpoint subscribes to.
    const contact = await client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
    await until(
      () =>
        receiver.arrived.some(
          (seen) => seen.event === 'contact.created' && seen.data.id === contact.id,
        ),
      'the contact.created delivery',
    );
    log(`3. created ${contact.id}: its contact.created arrived`);

    // 4. Replay the last hour: every event of its kinds, delivered or not (the ones written
    // before the endpoint existed are `missing`), each as a new delivery.
    const before = receiver.arrived.length;
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const replay = await client.webhookEndpoints.replay(endpoint.id, {
      since,
      states: ['delivered', 'failed', 'dead', 'missing'],
    });
    await until(async () => (await client.replays.get(replay.id)).state === 'done', 'the replay');
    const progress = await client.replays.get(replay.id);
    await until(
      () => receiver.arrived.length - before >= progress.count,
      'the replayed deliveries',
    );
    log(`4. replay ${replay.id} of the last hour: ${progress.sent} of ${progress.count} sent`);

    // 5. What arrived, each verified against the endpoint's secret before it was read.
    const counts = new Map();
    for (const seen of receiver.arrived) counts.set(seen.event, (counts.get(seen.event) ?? 0) + 1);
    log(
      `5. arrived, verified: ${[...counts].map(([kind, count]) => `${kind} ×${count}`).join(', ')}; refused: ${receiver.refused}`,
    );
    for (const seen of receiver.arrived) {
      log(`   ${seen.deliveryId}  ${seen.event.padEnd(16)}  ${seen.eventId ?? '-'}`);
    }

    await client.webhookEndpoints.delete(endpoint.id);
    return {
      endpointId: endpoint.id,
      arrived: receiver.arrived,
      replayed: receiver.arrived.length - before,
    };
  } finally {
    await receiver.close();
  }
}
