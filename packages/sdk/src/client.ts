import { APIPromise } from './api-promise.js';
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  type FollowUpOptions,
  type FollowUpSummary,
  type Validation,
} from './client-options.js';
import { ConfigurationError } from './follow-up-error.js';
import {
  checkBaseUrl,
  checkHeaders,
  checkMaxRetries,
  checkTimeout,
} from './internal/check-options.js';
import { environmentVariable } from './internal/client-header.js';
import { HttpClient } from './internal/http-client.js';
import { mergeDefined } from './internal/merge-defined.js';
import { clockSleep, systemClock } from './internal/sleep.js';
import { parseToken } from './internal/token.js';
import { traceHeadersFrom } from './internal/trace-headers.js';
import type { QueryParameter, RequestOptions } from './request-options.js';
import { Audit } from './resources/audit.js';
import { Contacts } from './resources/contacts.js';
import { CrudResource } from './resources/crud-resource.js';
import { Deals } from './resources/deals.js';
import { Deliveries } from './resources/deliveries.js';
import { Events } from './resources/events.js';
import { Inbox } from './resources/inbox.js';
import { Messages } from './resources/messages.js';
import { Replays } from './resources/replays.js';
import { WebhookEndpoints } from './resources/webhook-endpoints.js';
import { WebhookPortal } from './resources/webhook-portal.js';
import { Webhooks } from './resources/webhooks.js';
import {
  type Campaign,
  type CreateCampaignInput,
  campaignListSchema,
  campaignSchema,
  type UpdateCampaignInput,
} from './schemas/campaign.js';
import { type Me, meSchema } from './schemas/me.js';
import {
  type CreateSequenceInput,
  type Sequence,
  sequenceListSchema,
  sequenceSchema,
  type UpdateSequenceInput,
} from './schemas/sequence.js';
import {
  type CreateUserInput,
  type UpdateUserInput,
  type User,
  userListSchema,
  userSchema,
} from './schemas/user.js';

const VALIDATIONS: readonly Validation[] = ['strict', 'warn', 'off'];
const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');
const denoInspectSymbol = Symbol.for('Deno.customInspect');

/**
 * The FollowUp client. Construct one per token and reuse it: it holds no connection, only
 * settings.
 *
 * The token's secret is never exposed: not in errors, log lines, `JSON.stringify(client)` or
 * `util.inspect(client)`.
 *
 * @example
 * ```ts
 * import { FollowUp } from '@followup/sdk';
 *
 * const client = new FollowUp({
 *   token: process.env.FOLLOWUP_TOKEN!,
 *   baseUrl: 'https://followup.example.com',
 * });
 *
 * for await (const contact of client.contacts.list({ limit: 200 })) {
 *   console.log(contact.firstName, contact.lifecycle);
 * }
 * ```
 *
 * @group Client
 */
export class FollowUp {
  /** Contacts: list, get, create, update, delete, count. */
  readonly contacts: Contacts;
  /** Deals: list, get, create, update, delete, count. */
  readonly deals: Deals;
  /** Sequences: list, get, create, update, delete. */
  readonly sequences: CrudResource<Sequence, CreateSequenceInput, UpdateSequenceInput>;
  /** Campaigns: list, get, create, update, delete. */
  readonly campaigns: CrudResource<Campaign, CreateCampaignInput, UpdateCampaignInput>;
  /** Users (people in the workspace): list, get, create, update, delete. */
  readonly users: CrudResource<User, CreateUserInput, UpdateUserInput>;
  /** Inbox messages: list. */
  readonly messages: Messages;
  /** The audit log: list (cursor pages). */
  readonly audit: Audit;
  /** The event feed: list (cursor pages of typed events) and types (the catalogue of kinds). */
  readonly events: Events;
  /** Webhook deliveries: list, get, retry, attempts (ADMIN). */
  readonly deliveries: Deliveries;
  /** Webhook endpoints: create, list, get, update, delete, rotateSecret, test, replay (ADMIN). */
  readonly webhookEndpoints: WebhookEndpoints;
  /** Replays of an endpoint's events: get, their progress (ADMIN). */
  readonly replays: Replays;
  /** One-time links into the subscriber portal: createLink (`webhooks.manage`, ADMIN). */
  readonly webhookPortal: WebhookPortal;
  /** The inbox webhook: send. */
  readonly inbox: Inbox;
  /** The webhooks FollowUp sends: unwrap (verify one) and handler (a ready endpoint). */
  readonly webhooks: Webhooks;
  /** The service account the token belongs to (not a secret). */
  readonly serviceAccountId: string;
  readonly #http: HttpClient;
  readonly #options: FollowUpOptions;

  /** @throws {@link ConfigurationError} for a bad token, `baseUrl` or option, before any request. */
  constructor(options: FollowUpOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError({ message: 'new FollowUp() needs { token, baseUrl }.' });
    }
    const token = options.token ?? environmentVariable('FOLLOWUP_TOKEN');
    const baseUrl = options.baseUrl ?? environmentVariable('FOLLOWUP_BASE_URL');
    if (baseUrl === undefined) {
      throw new ConfigurationError({
        message: 'new FollowUp() needs a baseUrl (or the FOLLOWUP_BASE_URL environment variable).',
      });
    }
    const { serviceAccountId } = parseToken(token);
    const validation = options.validation ?? 'strict';
    if (!VALIDATIONS.includes(validation)) {
      throw new ConfigurationError({ message: "validation must be 'strict', 'warn' or 'off'." });
    }
    if (options.fetch !== undefined && typeof options.fetch !== 'function') {
      throw new ConfigurationError({ message: 'fetch must be a function.' });
    }
    const clock = options.clock ?? systemClock;
    if (
      typeof clock !== 'object' ||
      clock === null ||
      typeof clock.now !== 'function' ||
      typeof clock.setTimer !== 'function'
    ) {
      throw new ConfigurationError({ message: 'clock must have now() and setTimer().' });
    }
    if (options.onRequest !== undefined && typeof options.onRequest !== 'function') {
      throw new ConfigurationError({ message: 'onRequest must be a function.' });
    }
    if (options.onResponse !== undefined && typeof options.onResponse !== 'function') {
      throw new ConfigurationError({ message: 'onResponse must be a function.' });
    }
    if (
      options.defaultQuery !== undefined &&
      (typeof options.defaultQuery !== 'object' || options.defaultQuery === null)
    ) {
      throw new ConfigurationError({ message: 'defaultQuery must be an object.' });
    }
    this.serviceAccountId = serviceAccountId;
    // What withOptions() derives from: the options as given, with the token and baseUrl found.
    this.#options = { ...options, token: token as string, baseUrl };
    this.#http = new HttpClient({
      baseUrl: checkBaseUrl(baseUrl, options.allowInsecureHttp === true),
      token: token as string,
      defaultHeaders: checkHeaders(options.defaultHeaders, 'defaultHeaders'),
      defaultQuery: options.defaultQuery ?? {},
      onRequest: options.onRequest,
      onResponse: options.onResponse,
      traceHeaders: traceHeadersFrom(options.tracing),
      timeout:
        options.timeout === undefined
          ? DEFAULT_TIMEOUT_MS
          : checkTimeout(options.timeout, 'The timeout option'),
      maxRetries:
        options.maxRetries === undefined
          ? DEFAULT_MAX_RETRIES
          : checkMaxRetries(options.maxRetries, 'The maxRetries option'),
      fetch: options.fetch,
      signal: options.signal,
      logger: options.logger,
      validation,
      onRetry: options.onRetry,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? clockSleep(clock),
      clock,
    });
    const http = this.#http;
    this.contacts = new Contacts(http);
    this.deals = new Deals(http);
    this.sequences = new CrudResource(http, {
      path: '/api/sequences',
      key: 'sequences',
      itemSchema: sequenceSchema,
      listSchema: sequenceListSchema,
    });
    this.campaigns = new CrudResource(http, {
      path: '/api/campaigns',
      key: 'campaigns',
      itemSchema: campaignSchema,
      listSchema: campaignListSchema,
    });
    this.users = new CrudResource(http, {
      path: '/api/users',
      key: 'users',
      itemSchema: userSchema,
      listSchema: userListSchema,
    });
    this.messages = new Messages(http);
    this.audit = new Audit(http);
    this.events = new Events(http);
    this.deliveries = new Deliveries(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.replays = new Replays(http);
    this.webhookPortal = new WebhookPortal(http);
    this.inbox = new Inbox(http);
    const events = this.events;
    this.webhooks = new Webhooks({
      clock,
      logger: options.logger,
      fetchEvent: (eventId) => events.get(eventId),
    });
  }

  /**
   * Who the token belongs to (`GET /api/me`): the service account's id, name and role, the
   * capabilities the role gives, and the token's id, label and expiry. Any valid token may ask.
   *
   * @example
   * ```ts
   * const me = await client.me();
   * console.log(me.name, me.role, me.token?.expiresAt ?? 'no expiry');
   * ```
   */
  me(options?: RequestOptions): APIPromise<Me> {
    return new APIPromise(
      this.#http.request({ method: 'GET', path: '/api/me', schema: meSchema, options }),
    );
  }

  /**
   * A new client with the same settings as this one (token, base URL, `fetch`, clock, hooks…)
   * except those given, e.g. a shorter timeout or more headers for one part of an application.
   * This client is not changed. `defaultHeaders` and `defaultQuery` given here are added to this
   * client's, not put in their place. An option given as `undefined` keeps this client's setting.
   *
   * @throws {@link ConfigurationError} for an option out of range, as the constructor does.
   * @example
   * ```ts
   * const patient = client.withOptions({ timeout: 5_000, maxRetries: 0 });
   * const tenant = client.withOptions({ defaultHeaders: { 'x-tenant': 'north' } });
   * ```
   */
  withOptions(options: Partial<FollowUpOptions>): FollowUp {
    const base = this.#options;
    // An option given as undefined is one not given: it keeps this client's setting.
    return new FollowUp({
      ...mergeDefined<Partial<FollowUpOptions>>(base, options),
      defaultHeaders: { ...base.defaultHeaders, ...options.defaultHeaders },
      defaultQuery: mergeDefined<Record<string, QueryParameter>>(
        base.defaultQuery,
        options.defaultQuery,
      ),
    });
  }

  /** The base URL, normalised (no trailing slash). */
  get baseUrl(): string {
    return this.#http.publicSettings.baseUrl;
  }

  /**
   * What `JSON.stringify(client)` shows: the settings, never the token.
   *
   * @example
   * ```ts
   * JSON.stringify(client); // {"baseUrl":"https://…","serviceAccountId":"sa_…","timeout":60000,"maxRetries":2}
   * ```
   */
  toJSON(): FollowUpSummary {
    return { ...this.#http.publicSettings, serviceAccountId: this.serviceAccountId };
  }

  /** What `util.inspect(client)` and `console.log(client)` show in Node: never the token. */
  [inspectSymbol](): string {
    return this.#describe();
  }

  /** What `Deno.inspect(client)` and `console.log(client)` show in Deno: never the token. */
  [denoInspectSymbol](): string {
    return this.#describe();
  }

  #describe(): string {
    const { baseUrl, timeout, maxRetries } = this.#http.publicSettings;
    return `FollowUp { baseUrl: '${baseUrl}', serviceAccountId: '${this.serviceAccountId}', token: '[redacted]', timeout: ${timeout}, maxRetries: ${maxRetries} }`;
  }
}
