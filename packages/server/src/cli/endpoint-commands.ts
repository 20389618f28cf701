import { systemClock } from '../clock.js';
import { endpointUrlLengthRefusal } from '../delivery/endpoint-address.js';
import { parseEventList } from '../delivery/event-list.js';
import { sendTestEvent, TEST_EVENT_KIND } from '../delivery/test-event.js';
import type { WebhookEndpointInfo } from '../delivery/webhook-endpoint-info.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../ids.js';
import { createPortalLink } from '../portal/portal-links.js';
import { listOutput, type OperatorCommand, output, pageOf } from './operator-command.js';
import { type OptionName, PAGE_OPTIONS, required, UsageError } from './usage.js';
import { DEFAULT_PUBLIC_URL, parsePublicUrl } from './user-commands.js';
import { wakeRunningWorkers } from './wake-running-workers.js';

function endpointLine(endpoint: WebhookEndpointInfo): string {
  const overlap = endpoint.previousSecretUntil
    ? `  previous secret until ${endpoint.previousSecretUntil}`
    : '';
  const why =
    endpoint.disabledReason === 'gone'
      ? '  disabled by the server: the endpoint answered 410 Gone'
      : endpoint.disabledReason === 'failing'
        ? `  disabled by the server: every attempt failed since ${endpoint.failingSince}`
        : endpoint.failingSince
          ? `  failing since ${endpoint.failingSince}`
          : '';
  return `${endpoint.id}  ${endpoint.state.padEnd(8)}  ${endpoint.events.join(',')}  ${endpoint.url}${overlap}${why}\n`;
}

/** @internal `endpoints …`: the operator's webhook endpoints (the console's Webhooks page). */
export const endpointCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'endpoints add'(values, database) {
    const url = required(values, 'url');
    // Refused before anything opens, never cut: a mistake on the command line.
    const tooLong = endpointUrlLengthRefusal(url);
    if (tooLong !== undefined) throw new UsageError(`--url: ${tooLong}`);
    const events = parseEventList(values.events);
    const endpoint = await createEndpointStore({ database }).add({ url, events });
    return output(
      { id: endpoint.id, secret: endpoint.secret, url: endpoint.url, events: endpoint.events },
      `${endpoint.secret}\n\nEndpoint ${endpoint.id} receives ${endpoint.events.join(', ')} at ` +
        `${endpoint.url}. This signing secret is shown only now: store it where the receiver ` +
        'verifies signatures.\n',
    );
  },

  async 'endpoints list'(values, database) {
    const page = pageOf(values);
    const endpoints = await createEndpointStore({ database }).list();
    return listOutput(endpoints.slice(page.offset, page.offset + page.limit), endpointLine, page);
  },

  async 'endpoints disable'(values, database) {
    const endpoint = await createEndpointStore({ database }).disable(required(values, 'endpoint'));
    await wakeRunningWorkers(database);
    return output(endpoint, `Disabled ${endpoint.id}; its pending deliveries wait.\n`);
  },

  async 'endpoints enable'(values, database) {
    const endpoint = await createEndpointStore({ database }).enable(required(values, 'endpoint'));
    await wakeRunningWorkers(database);
    return output(endpoint, `Enabled ${endpoint.id}\n`);
  },

  async 'endpoints test'(values, database) {
    const clock = systemClock;
    const queued = await sendTestEvent(database, {
      endpointId: required(values, 'endpoint'),
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    });
    return output(
      queued,
      `Sent a ${TEST_EVENT_KIND} event to ${queued.endpointId}: delivery ${queued.deliveryId}\n`,
    );
  },

  async 'endpoints rotate-secret'(values, database) {
    const id = required(values, 'endpoint');
    let overlapSeconds: number | undefined;
    if (values.overlap !== undefined) {
      if (!/^\d{1,7}$/.test(values.overlap)) {
        throw new UsageError('--overlap is a whole number of seconds.');
      }
      overlapSeconds = Number(values.overlap);
    }
    const endpoint = await createEndpointStore({ database }).rotateSecret(id, overlapSeconds);
    const until = endpoint.previousSecretUntil
      ? `The previous secret signs too until ${endpoint.previousSecretUntil}.`
      : 'The previous secret no longer signs.';
    return output(
      {
        id: endpoint.id,
        secret: endpoint.secret,
        previousSecretUntil: endpoint.previousSecretUntil,
      },
      `${endpoint.secret}\n\nNew signing secret of ${endpoint.id}, shown only now. ${until}\n`,
    );
  },

  async 'endpoints portal-link'(values, database) {
    const subscriber = required(values, 'subscriber');
    const minutes = values['expires-in-minutes'];
    if (minutes !== undefined && !/^\d{1,5}$/.test(minutes)) {
      throw new UsageError('--expires-in-minutes is a whole number of minutes, 1 to 1440.');
    }
    const clock = systemClock;
    const link = await createPortalLink(database, {
      subscriber,
      expiresInMinutes: minutes === undefined ? undefined : Number(minutes),
      publicUrl: parsePublicUrl(values['public-url'] ?? DEFAULT_PUBLIC_URL),
      actor: { type: 'operator' },
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
    });
    return output(
      { url: link.url, expiresAt: link.expiresAt },
      `${link.url}\n\nA one-time link into the subscriber portal of ${subscriber}, shown only ` +
        `now, usable until ${link.expiresAt}. Opened and confirmed, it starts an 8-hour session ` +
        `that sees only the endpoints of ${subscriber}.\n`,
    );
  },

  async 'endpoints remove'(values, database) {
    const id = required(values, 'endpoint');
    await createEndpointStore({ database }).remove(id);
    return output({ id, removed: true }, `Removed ${id} and its deliveries\n`);
  },
};

/** @internal The options each `endpoints …` command takes (see `operatorCommandOptions`). */
export const endpointCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'endpoints add': ['url', 'events'],
  'endpoints list': PAGE_OPTIONS,
  'endpoints disable': ['endpoint'],
  'endpoints enable': ['endpoint'],
  'endpoints test': ['endpoint'],
  'endpoints rotate-secret': ['endpoint', 'overlap'],
  'endpoints remove': ['endpoint'],
  'endpoints portal-link': ['subscriber', 'expires-in-minutes', 'public-url'],
};
