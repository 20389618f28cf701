import { systemClock } from '../clock.js';
import { createDeliveryStore, type DeliveryInfo } from '../delivery/deliveries.js';
import { endpointUrlLengthRefusal } from '../delivery/endpoint-address.js';
import { sendTestEvent, TEST_EVENT_KIND } from '../delivery/test-event.js';
import {
  createEndpointStore,
  parseEventList,
  type WebhookEndpointInfo,
} from '../delivery/webhook-endpoints.js';
import { seedDemoData } from '../demo/demo-data.js';
import { parseDuration } from '../duration.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator } from '../ids.js';
import { pruneExpired } from '../retention/retention.js';
import type { Database } from '../storage/database.js';
import { listReceiptsInOrder } from '../stores/receipt-store.js';
import {
  createAccountStore,
  MAX_ROLL_GRACE_SECONDS,
  MAX_TOKEN_TTL_SECONDS,
  type Role,
  roles,
  type TokenInfo,
} from '../tokens/account-store.js';
import { contactCommandOptions, contactCommands } from './contact-commands.js';
import { retentionOptions } from './edge-options.js';
import { type CliOptions, type OptionName, PAGE_OPTIONS, required, UsageError } from './usage.js';
import { userCommandOptions, userCommands } from './user-commands.js';

/** @internal What an operator command answers: its `--json` value and its text for people. */
export interface OperatorOutput {
  json: unknown;
  text: string;
}

/**
 * @internal One operator command. `onProgress`, given only when the command runs in the CLI's
 * own process, reports the progress of a long command (the `seed` progress bar).
 */
export type OperatorCommand = (
  values: CliOptions,
  database: Database,
  onProgress?: (done: number, total: number) => void,
) => Promise<OperatorOutput>;

function output(json: unknown, text: string): OperatorOutput {
  return { json, text };
}

/** @internal Rows a list command prints when `--limit` is not given. */
export const DEFAULT_OPERATOR_PAGE = 100;
/** @internal The most rows one list command prints. */
export const MAX_OPERATOR_PAGE = 1000;

/** `--limit` (1 to 1000, default 100) and `--offset` of a list command. */
function pageOf(values: CliOptions): { limit: number; offset: number } {
  const limitText = values.limit ?? String(DEFAULT_OPERATOR_PAGE);
  const offsetText = values.offset ?? '0';
  const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
  if (limit < 1 || limit > MAX_OPERATOR_PAGE) {
    throw new UsageError(`--limit is a whole number from 1 to ${MAX_OPERATOR_PAGE}.`);
  }
  if (!/^\d{1,9}$/.test(offsetText)) {
    throw new UsageError('--offset is a whole number of rows to skip.');
  }
  return { limit, offset: Number(offsetText) };
}

/** A page of a list: the rows as JSON, the lines as text, and where the next page starts. */
function listOutput<Row>(
  rows: readonly Row[],
  line: (row: Row) => string,
  page: { limit: number; offset: number },
): OperatorOutput {
  const more =
    rows.length === page.limit
      ? `(${page.limit} shown, a full page: for more, --offset ${page.offset + page.limit})\n`
      : '';
  return output(rows, rows.map(line).join('') + more);
}

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

function deliveryLine(delivery: DeliveryInfo): string {
  const last =
    delivery.lastStatus !== null
      ? `  last ${delivery.lastStatus}`
      : delivery.lastError !== null
        ? `  last ${delivery.lastError}`
        : '';
  const next =
    delivery.state === 'pending' && delivery.nextAttemptAt
      ? `  next ${delivery.nextAttemptAt}`
      : '';
  return (
    `${delivery.id}  ${delivery.state.padEnd(9)}  ${delivery.event}  ${delivery.endpointId}  ` +
    `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}${last}${next}\n`
  );
}

function tokenLine(token: TokenInfo): string {
  const expiry = token.expiresAt === null ? 'no expiry' : `expires ${token.expiresAt}`;
  const used = token.lastUsedAt === null ? 'never used' : `last used ${token.lastUsedAt}`;
  const label = token.label === null ? '' : `  ${JSON.stringify(token.label)}`;
  return `${token.id}  ${token.state.padEnd(7)}  created ${token.createdAt}  ${expiry}  ${used}${label}\n`;
}

/** @internal The operator's commands (the interface's "settings area"), by name. */
export const operatorCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'accounts create'(values, database) {
    const name = required(values, 'name');
    const role = required(values, 'role').toUpperCase();
    if (!roles.includes(role as Role)) {
      throw new UsageError(`--role must be one of ${roles.join(', ')}.`);
    }
    const account = await createAccountStore({ database }).createAccount({
      name,
      role: role as Role,
    });
    return output(account, `Created service account ${account.id} (${account.role})\n`);
  },

  async 'accounts list'(values, database) {
    const page = pageOf(values);
    const accounts = await createAccountStore({ database }).listAccounts(page);
    return listOutput(
      accounts,
      (account) => {
        const state = account.disabledAt === null ? 'active' : 'disabled';
        const tokens = `${account.activeTokens} active token${account.activeTokens === 1 ? '' : 's'}`;
        return `${account.id}  ${account.role.padEnd(8)}  ${state.padEnd(8)}  ${tokens}  ${account.name}\n`;
      },
      page,
    );
  },

  async 'accounts disable'(values, database) {
    const { account, tokensRevoked } = await createAccountStore({ database }).disableAccount({
      accountId: required(values, 'account'),
    });
    return output(
      { ...account, tokensRevoked },
      `Disabled ${account.id}; ${tokensRevoked} token${tokensRevoked === 1 ? '' : 's'} revoked\n`,
    );
  },

  async 'tokens issue'(values, database) {
    const accountId = required(values, 'account');
    let ttlSeconds: number | undefined;
    if (values.ttl !== undefined) {
      ttlSeconds = /^[1-9]\d{0,15}$/.test(values.ttl) ? Number(values.ttl) : 0;
      if (ttlSeconds > MAX_TOKEN_TTL_SECONDS || ttlSeconds < 1) {
        throw new UsageError(
          `--ttl is a positive whole number of seconds, at most ${MAX_TOKEN_TTL_SECONDS} (ten years).`,
        );
      }
    }
    const issued = await createAccountStore({ database }).issueToken({
      accountId,
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
      ...(values.label === undefined ? {} : { label: values.label }),
    });
    const expiry =
      issued.expiresAt === null ? 'It does not expire' : `It expires at ${issued.expiresAt}`;
    return output(
      issued,
      `${issued.token}\n\nToken ${issued.id}. ${expiry}. This is the only time it is shown: ` +
        'store it now.\n',
    );
  },

  async 'tokens list'(values, database) {
    const page = pageOf(values);
    const tokens = await createAccountStore({ database }).listTokens(required(values, 'account'));
    return listOutput(tokens.slice(page.offset, page.offset + page.limit), tokenLine, page);
  },

  async 'tokens revoke'(values, database) {
    const token = await createAccountStore({ database }).revokeToken({
      tokenId: required(values, 'token'),
    });
    return output(token, `Revoked ${token.id}\n`);
  },

  async 'tokens roll'(values, database) {
    const tokenId = required(values, 'token');
    const graceText = values.grace ?? '24h';
    const graceSeconds = parseDuration(graceText, { max: MAX_ROLL_GRACE_SECONDS });
    if (graceSeconds === undefined) {
      throw new UsageError(
        '--grace is a duration such as 90s, 30m, 24h or 7d (digits and one unit), at most 30d.',
      );
    }
    const { issued, previous } = await createAccountStore({ database }).rollToken({
      tokenId,
      graceSeconds,
    });
    const expiry =
      issued.expiresAt === null ? 'It does not expire' : `It expires at ${issued.expiresAt}`;
    return output(
      { ...issued, previous },
      `${issued.token}\n\nToken ${issued.id} replaces ${previous.id}, which keeps working until ` +
        `${previous.expiresAt}. ${expiry}. This is the only time it is shown: store it now.\n`,
    );
  },

  async seed(values, database, onProgress) {
    const text = required(values, 'contacts');
    if (!/^\d{1,7}$/.test(text) || Number(text) > 1_000_000) {
      throw new UsageError('--contacts is a whole number from 0 to 1000000.');
    }
    const added = await seedDemoData(database, {
      contacts: Number(text),
      ...(onProgress ? { onProgress } : {}),
    });
    return output(added, `Added ${added.contacts} demo contacts and ${added.deals} deals\n`);
  },

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
    return output(endpoint, `Disabled ${endpoint.id}; its pending deliveries wait.\n`);
  },

  async 'endpoints enable'(values, database) {
    const endpoint = await createEndpointStore({ database }).enable(required(values, 'endpoint'));
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

  async 'endpoints remove'(values, database) {
    const id = required(values, 'endpoint');
    await createEndpointStore({ database }).remove(id);
    return output({ id, removed: true }, `Removed ${id} and its deliveries\n`);
  },

  async 'deliveries list'(values, database) {
    const page = pageOf(values);
    const deliveries = await createDeliveryStore({ database }).list({
      ...page,
      ...(values.state === undefined ? {} : { state: values.state }),
      ...(values.endpoint === undefined ? {} : { endpointId: values.endpoint }),
    });
    return listOutput(deliveries, deliveryLine, page);
  },

  async 'deliveries show'(values, database) {
    const store = createDeliveryStore({ database });
    const id = required(values, 'delivery');
    const delivery = await store.get(id);
    if (!delivery) {
      throw new FollowUpServerError({ code: 'delivery_not_found', message: `No delivery ${id}.` });
    }
    const attempts = await store.attempts(id);
    const lines = attempts.map(
      (attempt) =>
        `  ${attempt.startedAt}  ${attempt.status ?? '-'}  ${attempt.durationMs} ms  ${attempt.error ?? ''}\n`,
    );
    return output(
      { ...delivery, attempts },
      `${deliveryLine(delivery)}${lines.join('') || '  no attempt yet\n'}`,
    );
  },

  async 'deliveries recover'(values, database) {
    const endpointId = required(values, 'endpoint');
    const sinceText = required(values, 'since');
    const since = new Date(sinceText);
    if (Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(sinceText)) {
      throw new UsageError('--since is an ISO 8601 time, such as 2026-03-01T00:00:00Z.');
    }
    const recovered = await createDeliveryStore({ database }).recover({ endpointId, since });
    return output(
      recovered,
      `${recovered.length} failed deliveries of ${endpointId} since ${since.toISOString()} are due again now, oldest first\n`,
    );
  },

  async 'deliveries retry'(values, database) {
    const delivery = await createDeliveryStore({ database }).retry(required(values, 'delivery'));
    return output(delivery, `${delivery.id} is due again now\n`);
  },

  async prune(values, database) {
    const policy = retentionOptions(values, {});
    const pruned = await pruneExpired(database, { now: systemClock.now(), policy });
    return output(
      pruned,
      Object.entries(pruned)
        .map(([kind, count]) => `${kind}: ${count} deleted\n`)
        .join(''),
    );
  },

  async 'receipts list'(values, database) {
    const page = pageOf(values);
    const receipts = await listReceiptsInOrder(database, {
      vendor: values.vendor,
      limit: page.limit,
      offset: page.offset,
    });
    return listOutput(
      receipts,
      (receipt) =>
        `${receipt.id}  ${receipt.vendor}  ${receipt.verdict}  ${receipt.receivedAt}  ` +
        `${receipt.bodyBytes} bytes${receipt.handlerError ? '  handler failed' : ''}\n`,
      page,
    );
  },
  ...userCommands,
  ...contactCommands,
};

/**
 * @internal The options each operator command takes, beside `GLOBAL_OPTIONS`: `runCli` refuses
 * any other with a usage error, so that an option is never silently ignored.
 */
export const operatorCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'accounts create': ['name', 'role'],
  'accounts list': PAGE_OPTIONS,
  'accounts disable': ['account'],
  'tokens issue': ['account', 'ttl', 'label'],
  'tokens list': ['account', ...PAGE_OPTIONS],
  'tokens revoke': ['token'],
  'tokens roll': ['token', 'grace'],
  seed: ['contacts'],
  'endpoints add': ['url', 'events'],
  'endpoints list': PAGE_OPTIONS,
  'endpoints disable': ['endpoint'],
  'endpoints enable': ['endpoint'],
  'endpoints test': ['endpoint'],
  'endpoints rotate-secret': ['endpoint', 'overlap'],
  'endpoints remove': ['endpoint'],
  'deliveries list': ['state', 'endpoint', ...PAGE_OPTIONS],
  'deliveries show': ['delivery'],
  'deliveries recover': ['endpoint', 'since'],
  'deliveries retry': ['delivery'],
  prune: ['receipt-retention', 'delivery-retention', 'tombstone-retention'],
  'receipts list': ['vendor', ...PAGE_OPTIONS],
  ...userCommandOptions,
  ...contactCommandOptions,
};
