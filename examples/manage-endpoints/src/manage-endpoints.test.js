import { fileURLToPath } from 'node:url';
import { runScript, useExampleServer } from '@followup/example-support';
import { FollowUp, NotFoundError } from '@followup/sdk';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.js', import.meta.url));

describe('manage-endpoints against followup-server on the embedded database', () => {
  const server = useExampleServer('manage-endpoints');

  it('registers a receiver, sends a test, replays the last hour, and prints what arrived', async () => {
    const run = await runScript(main, {
      env: { FOLLOWUP_TOKEN: server.token, FOLLOWUP_BASE_URL: server.url },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const endpointId = run.stdout.match(
      /^1\. registered (we_\S+) at http:\/\/127\.0\.0\.1:\d+\/webhooks\/followup for contact\.created$/m,
    )?.[1];
    expect(endpointId).toBeDefined();
    const testDelivery = run.stdout.match(/^2\. test delivery (dlv_\S+) arrived$/m)?.[1];
    expect(testDelivery).toBeDefined();
    expect(run.stdout).toMatch(/^3\. created con_\S+: its contact\.created arrived$/m);
    const [, sent, count] =
      run.stdout.match(/^4\. replay rpl_\S+ of the last hour: (\d+) of (\d+) sent$/m) ?? [];
    // The contact's event at least, delivered before: sent again.
    expect(Number(count)).toBeGreaterThanOrEqual(1);
    expect(sent).toBe(count);
    expect(run.stdout).toContain(
      `5. arrived, verified: webhook.test ×1, contact.created ×${1 + Number(count)}; refused: 0`,
    );
    // One line per delivery: the test, the contact's, and the replay's, each a new delivery id;
    // the contact's event arrived twice, once by the replay.
    const deliveries = [...run.stdout.matchAll(/^ {3}(dlv_\S+) +(\S+) +(\S+)$/gm)].map(
      ([, deliveryId, event, eventId]) => ({ deliveryId, event, eventId }),
    );
    expect(deliveries).toHaveLength(2 + Number(count));
    expect(new Set(deliveries.map((delivery) => delivery.deliveryId)).size).toBe(deliveries.length);
    expect(deliveries[0]).toMatchObject({ deliveryId: testDelivery, event: 'webhook.test' });
    const contactEvent = deliveries[1]?.eventId;
    expect(deliveries.filter((delivery) => delivery.eventId === contactEvent)).toHaveLength(2);

    // The example removes its endpoint when done.
    const client = new FollowUp({ token: server.token, baseUrl: server.url, maxRetries: 0 });
    await expect(client.webhookEndpoints.get(endpointId)).rejects.toSatisfy((error) =>
      NotFoundError.isInstance(error),
    );
  });
});
