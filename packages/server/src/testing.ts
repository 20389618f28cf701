/**
 * `@followup/server/testing`: the real reference server, in your own tests.
 *
 * {@link startTestServer} starts the server in this process on an in-memory PGlite database, on
 * a free loopback port, with outbound delivery running, so that an integrator's tests call the
 * real routes (validation, capabilities, errors, webhooks) in milliseconds instead of a mock.
 * {@link checkWebhookReceiver} runs the checks of `followup verify-receiver` against your
 * webhook receiver, in this process.
 *
 * @packageDocumentation
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { FollowUp } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { buildServer } from './build-server.js';
import { type Clock, systemClock } from './clock.js';
import { createDeliveryWorker } from './delivery/delivery-worker.js';
import { createEndpointStore } from './delivery/webhook-endpoints.js';
import {
  type RecordedDelivery,
  type RecordingReceiver,
  startRecordingReceiver,
} from './recording-receiver.js';
import type { Database } from './storage/database.js';
import { migrate } from './storage/migrate.js';
import {
  dumpPGliteDatabase,
  openPGliteCopy,
  openPGliteDatabase,
} from './storage/pglite-database.js';
import { createAccountStore } from './tokens/account-store.js';
import type { Role } from './tokens/role.js';

/** Options of {@link startTestServer}. */
export interface StartTestServerOptions {
  /**
   * The time of the server (token expiry, timestamps, delivery schedules); defaults to the
   * system clock. Pass a clock you control to test expiry without waiting.
   */
  clock?: Clock;
  /** `INBOX_WEBHOOK_SECRET` of the server; without one the inbox accepts any caller. */
  inboxWebhookSecret?: string;
  /** EHR vendor secrets by key, as `EHR_WEBHOOK_SECRET_<KEY>` would give them. */
  ehrWebhookSecrets?: Readonly<Record<string, string>>;
  /**
   * Seconds between delivery attempts of a failing webhook; defaults to `[1, 1, 1]` (three quick
   * retries, then dead) so that tests of a failing subscriber end fast.
   */
  deliveryRetryDelays?: readonly number[];
  /**
   * Webhook attempts in flight at once, all endpoints together (`--delivery-concurrency`);
   * defaults to `DEFAULT_DELIVERY_CONCURRENCY` (128).
   */
  deliveryConcurrency?: number;
}

export type {
  ReceiverCheck,
  ReceiverCheckStatus,
  ReceiverReport,
} from '@followup/sdk/receiver-checks';
export {
  type CheckWebhookReceiverOptions,
  checkWebhookReceiver,
  type WebhookReceiverUnderTest,
} from './check-webhook-receiver.js';
export type { RecordedDelivery };

/** A webhook endpoint added by {@link TestServer.addEndpoint}. */
export interface TestEndpoint {
  /** The endpoint's id (`we_…`). */
  id: string;
  /** Its signing secret (`whsec_…`): verify deliveries with it. */
  secret: string;
  /** The URL deliveries go to. */
  url: string;
}

/**
 * An endpoint added by `addEndpoint()` without a `url`: the test server runs its subscriber, a
 * small HTTP server on a loopback port that verifies each delivery's signature with
 * `@followup/webhooks`, records it and answers 204.
 */
export interface RecordingTestEndpoint extends TestEndpoint {
  /** Every delivery received so far, oldest first (a retried delivery once per arrival). */
  readonly deliveries: readonly RecordedDelivery[];
  /**
   * The next delivery this endpoint receives (or has received and not yet handed out here), in
   * order of arrival. Rejects when a delivery fails verification, and when the server closes
   * first.
   */
  nextDelivery(): Promise<RecordedDelivery>;
}

/** Options of {@link TestServer.addEndpoint}. */
export interface AddTestEndpointOptions {
  /** Where to deliver; loopback addresses are allowed here. */
  url: string;
  /** The event kinds to subscribe to; every kind when absent. */
  events?: readonly string[];
}

/** A running test server; see {@link startTestServer}. */
export interface TestServer {
  /** The server's origin, for example `http://127.0.0.1:53117`. */
  readonly baseUrl: string;
  /** An SDK client with an ADMIN token: every capability. */
  readonly client: FollowUp;
  /** The Fastify instance, for `inject()` and hooks. */
  readonly app: FastifyInstance;
  /** The server's in-memory database. */
  readonly database: Database;
  /**
   * Creates a service account with `role` and issues it a token.
   *
   * @returns The token (`hns_<account id>.<secret>`).
   * @example
   * ```ts
   * const readonly = new FollowUp({ token: await server.issueToken('READONLY'), baseUrl: server.baseUrl });
   * ```
   */
  issueToken(role: Role, options?: { ttlSeconds?: number }): Promise<string>;
  /**
   * Subscribes an endpoint to outbound webhooks. Without options (or without `url`), it starts a
   * recording subscriber in this process, on a loopback port, closed by {@link TestServer.close},
   * subscribed to every kind (or to `events`), and returns it, so that a test asserts on what
   * was delivered. With `url`, it subscribes that URL (loopback addresses are allowed here).
   *
   * @returns The endpoint's id, signing secret and URL; without `url`, also what it received.
   * @example
   * ```ts
   * const endpoint = await server.addEndpoint();
   * const contact = await server.client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
   * const delivery = await endpoint.nextDelivery();
   * if (delivery.event.event === 'contact.created') console.log(delivery.event.data.id === contact.id);
   * ```
   */
  addEndpoint(options?: {
    url?: undefined;
    events?: readonly string[];
  }): Promise<RecordingTestEndpoint>;
  /** With `url`: subscribes that URL. */
  addEndpoint(options: AddTestEndpointOptions): Promise<TestEndpoint>;
  /** Stops the server and the recording endpoints, lets deliveries in flight finish, and discards the database. */
  close(): Promise<void>;
}

// The empty, migrated database of the first startTestServer() in this process, as a gzipped
// dump: later calls open a copy of it, which takes about a fifth of the time of creating a
// cluster (PGlite runs initdb for each) and migrating it. Kept for the life of the process, so
// gzipped (4.5 MB instead of 40 MB); each copy is unzipped here, by zlib off the main thread,
// rather than by PGlite's web-stream decompression on it.
let migratedDump: Promise<Uint8Array> | undefined;

const gunzipBytes = promisify(gunzip);

async function openMigratedDatabase(): Promise<Database> {
  if (migratedDump) {
    try {
      return await openPGliteCopy(await gunzipBytes(await migratedDump));
    } catch {
      // No dump was made, or its copy did not open: make a database anew below.
      migratedDump = undefined;
    }
  }
  const database = await openPGliteDatabase();
  try {
    await migrate(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  if (migratedDump === undefined) {
    // Only a shortcut for the next calls: a dump that fails leaves this database as it is.
    const dump = dumpPGliteDatabase(database, { compression: 'gzip' }).then(
      async (blob) => new Uint8Array(await blob.arrayBuffer()),
    );
    migratedDump = dump;
    await dump.catch(() => {
      if (migratedDump === dump) migratedDump = undefined;
    });
  }
  return database;
}

/**
 * Starts the reference server in this process on an in-memory database and a free loopback
 * port. Each call is a new server on an empty database of its own; close it after your tests.
 * The first call in a process creates and migrates that database; later calls start from a copy
 * of it (kept in memory, about 5 MB), in about a fifth of the time.
 *
 * @example
 * ```ts
 * import { startTestServer } from '@followup/server/testing';
 *
 * const server = await startTestServer();
 * const contact = await server.client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
 * await server.close();
 * ```
 */
export async function startTestServer(options: StartTestServerOptions = {}): Promise<TestServer> {
  const database = await openMigratedDatabase();
  try {
    const clock = options.clock;
    const worker = createDeliveryWorker({
      database,
      ...(clock ? { clock } : {}),
      allowPrivate: true,
      allowInsecure: true,
      retryDelays: options.deliveryRetryDelays ?? [1, 1, 1],
      ...(options.deliveryConcurrency === undefined
        ? {}
        : { concurrency: options.deliveryConcurrency }),
    });
    const app = buildServer({
      database,
      ...(clock ? { clock } : {}),
      logger: false,
      // As its worker: endpoints on loopback (the tests' receivers) may be registered.
      allowPrivateEndpoints: true,
      onOutboxEvent: () => worker.wake(),
      ...(options.inboxWebhookSecret ? { inboxWebhookSecret: options.inboxWebhookSecret } : {}),
      ...(options.ehrWebhookSecrets ? { ehrWebhookSecrets: options.ehrWebhookSecrets } : {}),
    });
    const accounts = createAccountStore({ database, ...(clock ? { clock } : {}) });
    const endpoints = createEndpointStore({ database, ...(clock ? { clock } : {}) });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    worker.start();
    const baseUrl = new URL(address).origin;
    const issueToken: TestServer['issueToken'] = async (role, tokenOptions = {}) => {
      const account = await accounts.createAccount({ name: `test-${role.toLowerCase()}`, role });
      const issued = await accounts.issueToken({
        accountId: account.id,
        ...(tokenOptions.ttlSeconds === undefined ? {} : { ttlSeconds: tokenOptions.ttlSeconds }),
      });
      return issued.token;
    };
    const client = new FollowUp({ token: await issueToken('ADMIN'), baseUrl });
    const receivers: RecordingReceiver[] = [];
    async function addEndpoint(
      endpointOptions: { url?: string; events?: readonly string[] } = {},
    ): Promise<TestEndpoint | RecordingTestEndpoint> {
      const { url, events } = endpointOptions;
      if (url !== undefined) {
        const endpoint = await endpoints.add({ url, ...(events ? { events } : {}) });
        worker.wake();
        return { id: endpoint.id, secret: endpoint.secret, url };
      }
      const receiver = await startRecordingReceiver({ clock: clock ?? systemClock });
      receivers.push(receiver);
      const endpoint = await endpoints.add({ url: receiver.url, ...(events ? { events } : {}) });
      receiver.useSecret(endpoint.secret);
      worker.wake();
      return {
        id: endpoint.id,
        secret: endpoint.secret,
        url: receiver.url,
        deliveries: receiver.deliveries,
        nextDelivery: () => receiver.nextDelivery(),
      };
    }
    return {
      baseUrl,
      client,
      app,
      database,
      issueToken,
      addEndpoint: addEndpoint as TestServer['addEndpoint'],
      async close() {
        await app.close();
        await worker.close();
        for (const receiver of receivers.splice(0)) await receiver.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
