import type { parseArgs } from 'node:util';

/** @internal The help text. */
export const usage = `Usage: followup-server <command> [options]

Commands:
  start                                   serve the API until SIGTERM or SIGINT
      --port N                            port (PORT, default 3000; 0 picks a free one)
      --host HOST                         address (HOST, default 127.0.0.1)
      --demo                              create a demo ADMIN account and print its token once,
                                          print a one-time sign-in link for the demo ADMIN user
                                          demo@example.com (the same user on every restart),
                                          and seed 300 demo contacts and 150 deals (if none yet);
                                          implies --allow-private-endpoints (FOLLOWUP_DEMO=true)
      --allow-private-endpoints           deliver webhooks to loopback and private addresses too
                                          (ALLOW_PRIVATE_ENDPOINTS=true)
      --allow-insecure-endpoints          deliver webhooks over http: to public addresses too,
                                          the events in clear (ALLOW_INSECURE_ENDPOINTS=true);
                                          without it http: reaches private addresses only
      --delivery-retry-delays 1s,5s,30s   the wait before each retry of a delivery, replacing
                                          the default schedule: durations (s, m, h, d; a bare
                                          number is seconds), each at most 30d, at most 50
                                          (DELIVERY_RETRY_DELAYS; default 30s … 24h, ~3.3 days)
      --delivery-timeout SECONDS          the most any delivery attempt may take, over
                                          each endpoint's timeoutSeconds (DELIVERY_TIMEOUT;
                                          default none: the endpoint's, 15 unless set)
      --delivery-concurrency N            webhook attempts in flight at once, all endpoints
                                          (DELIVERY_CONCURRENCY, default 128; 1 to 1000)
      --endpoint-concurrency N            attempts in flight to one endpoint at most
                                          (DELIVERY_ENDPOINT_CONCURRENCY, default 4)
      --auto-disable-after DURATION       disable an endpoint whose every attempt failed this long
                                          (DELIVERY_AUTO_DISABLE_AFTER, default 5d; a 410 at once)
      --public-url URL                    where people reach the server (PUBLIC_URL; default
                                          the listening address): sign-in links use it
      --trust-proxy PROXIES               trust X-Forwarded-For/-Proto/-Host from these reverse
                                          proxies (TRUST_PROXY): their addresses or CIDR ranges,
                                          comma-separated (10.0.0.0/8,127.0.0.1), or how many
                                          proxies are in front (1); client addresses and HTTPS
                                          (Secure __Host- cookie) come from them. Never every hop:
                                          a bare --trust-proxy or TRUST_PROXY=true is refused
      --session-idle 30m                  web sessions end after this long unused
                                          (SESSION_IDLE_TIMEOUT; 1m to 30d, default 30m)
      --session-lifetime 12h              web sessions end this long after sign-in
                                          (SESSION_LIFETIME; 1m to 30d, default 12h)
      --allow-open-inbox                  accept the inbox webhook without INBOX_WEBHOOK_SECRET
                                          on a non-loopback --host (ALLOW_OPEN_INBOX=true)
      --rate-limit N                      requests a minute per token, per instance (RATE_LIMIT,
                                          default 600; 0 turns it off)
      --address-rate-limit N              requests a minute per client address to the routes
                                          without a token: inbox and EHR webhooks, sign-in
                                          (ADDRESS_RATE_LIMIT, default 1200; 0 turns it off)
      --receipt-retention DAYS            EHR receipts are deleted after it (RECEIPT_RETENTION_DAYS,
                                          default 30); pruned hourly, with deliveries and more
      --delivery-retention DAYS           finished deliveries and their attempts and events
                                          (DELIVERY_RETENTION_DAYS, default 30)
      --tombstone-retention DAYS          deleted contacts' tombstones in the change feed; an
                                          older sync position gets 410 resync_required
                                          (TOMBSTONE_RETENTION_DAYS, default 90)
      --headers-timeout SECONDS           the most a request's headers may take (HEADERS_TIMEOUT,
                                          default 10); then 408 and the connection is closed
      --request-timeout SECONDS           the most a whole request, body included, may take
                                          (REQUEST_TIMEOUT, default 30)
      --keep-alive-timeout SECONDS        idle keep-alive connections are closed after it
                                          (KEEP_ALIVE_TIMEOUT, default 10; behind a load
                                          balancer, set it above the balancer's idle timeout)
      --max-connections N                 connections open at once (MAX_CONNECTIONS, default 4096)
      --auth-failure-limit N              refused tokens a minute per client address before its
                                          requests get 429 unchecked (AUTH_FAILURE_LIMIT,
                                          default 30; 0 turns it off)
      --metrics-port N                    serve Prometheus metrics at GET /metrics on this port, a
                                          listener of its own without authentication (METRICS_PORT;
                                          off by default; the API's port answers /metrics 404)
      --metrics-host HOST                 the metrics listener's address (METRICS_HOST, default
                                          127.0.0.1)
      --log-level LEVEL                   fatal, error, warn, info, debug, trace or silent
                                          (LOG_LEVEL, default info): at info one line a request,
                                          its headers (credentials redacted) at debug and trace
      --log-format json|pretty            how log lines are written on standard error
                                          (LOG_FORMAT; default pretty on a terminal, else json)
      (environment only)                  the inbox webhook's secret: INBOX_WEBHOOK_SECRET
                                          EHR vendor secrets: EHR_WEBHOOK_SECRET_<KEY>
                                          OpenTelemetry traces, exported only when asked for:
                                          OTEL_EXPORTER_OTLP_ENDPOINT  the collector, such as
                                            http://127.0.0.1:4318 (spans go to /v1/traces)
                                          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  the full URL instead
                                          OTEL_EXPORTER_OTLP_PROTOCOL  http/protobuf (default),
                                            http/json or grpc
                                          OTEL_TRACES_EXPORTER  otlp (default once asked for),
                                            console, or none to turn traces off
                                          OTEL_SERVICE_NAME  default followup-server
                                          OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG  which
                                            traces are kept (default parentbased_always_on)
                                          OTEL_PROPAGATORS  default tracecontext,baggage
                                          OTEL_SDK_DISABLED  true turns everything off
                                          OTEL_BSP_*, OTEL_EXPORTER_OTLP_HEADERS,
                                            OTEL_RESOURCE_ATTRIBUTES, …: as the SDK documents them
  accounts create --name NAME --role ADMIN|MANAGER|AGENT|READONLY
  (accounts, tokens, endpoints, deliveries and receipts list print 100 rows at a time:
   --limit N, at most 1000, and --offset N; users list prints every user)
  accounts list                           ids, roles, states, active tokens, names
  accounts disable --account SA_ID        revoke every token of the account, issue no more
  tokens issue --account SA_ID [--ttl SECONDS] [--label LABEL]   prints the token once
  tokens list --account SA_ID             ids, states, expiry, last use, labels; never secrets
  tokens revoke --token TOK_ID
  tokens roll --token TOK_ID [--grace 24h]   prints a replacement once; the old token works
                                          until the grace ends (90s, 30m, 24h, 7d; at most 30d)
  endpoints add --url URL [--events a,b]  prints the signing secret once; without --events,
                                          every kind, later ones included
  endpoints list                          ids, URLs, events, states; never secrets
  endpoints disable --endpoint WE_ID      stop delivering (pending deliveries wait)
  endpoints enable --endpoint WE_ID
  endpoints test --endpoint WE_ID        send it a signed webhook.test event now
  endpoints rotate-secret --endpoint WE_ID [--overlap SECONDS]   prints the new secret once;
                                          the old one signs too until the overlap ends (24h)
  endpoints remove --endpoint WE_ID       with its deliveries
  endpoints portal-link --subscriber S [--expires-in-minutes N] [--public-url URL]
                                          prints a one-time link into the subscriber portal
                                          of S (valid N minutes, default 60, at most 1440)
  deliveries list [--state pending|delivered|dead] [--endpoint WE_ID]
  deliveries show --delivery DLV_ID       the delivery and every attempt (time, status, duration,
                                          error)
  deliveries retry --delivery DLV_ID      due again now, with the same id (audited)
  deliveries recover --endpoint WE_ID --since TIME   every failed delivery of the endpoint
                                          since TIME (ISO 8601) due again now, oldest first
  contacts erase --contact CON_ID         erase a person: delete the contact and its deals, and
                                          replace every stored copy of its values (events, webhook
                                          bodies, audit details, inbox messages) by "[erased]";
                                          lists the EHR receipts that mention it (kept)
  users invite --email E --role ADMIN|MANAGER|AGENT|READONLY [--name N] [--public-url URL]
                                          prints a one-time sign-in link (24 h) once
  users list                              ids, roles, states, sessions, e-mails, names
  users disable --user USR_ID             no more sign-in; their sessions end at once
  users role --user USR_ID --role ADMIN|MANAGER|AGENT|READONLY   their sessions end at once
  users sessions revoke --user USR_ID     end every session of the user at once
  prune [--receipt-retention DAYS] [--delivery-retention DAYS] [--tombstone-retention DAYS]
                                          delete now what outlived its retention (receipts,
                                          finished deliveries, tombstones, idempotency records,
                                          sessions, sign-in links); prints what went
  backup --out FILE [--force]             write a consistent copy of the embedded database, as
                                          one .tar.gz (mode 0600), and print its size and
                                          SHA-256; a running server makes it through its operator
                                          channel and goes on serving (writes wait while its
                                          files are copied). An existing FILE is kept unless
                                          --force. On PostgreSQL, use pg_dump -Fc instead
  restore --from FILE --data-dir DIR      check a backup (checksums, schema version) and restore
                                          it into DIR, which must be new or empty; an older
                                          schema is migrated at the next start
  receipts list [--vendor KEY]            EHR webhook receipts, bad signatures included
  seed --contacts N                       add N demo contacts and a deal for every second one
                                          (a progress bar on a terminal)

An option a command does not take is a usage error (exit 2), never ignored.

Options of every command:
  --data-dir DIR        embedded PGlite directory (FOLLOWUP_DATA_DIR; default
                        $XDG_DATA_HOME/followup, or ~/.local/share/followup); without either,
                        an operator command that finds no database there stops, creating nothing
  --database-url URL    PostgreSQL instead of PGlite (DATABASE_URL)
  --unsafe-no-fsync     PGlite only: acknowledge writes before they are on disk
                        (UNSAFE_NO_FSYNC=true); faster, but a power cut or a kernel crash can
                        lose acknowledged writes and corrupt the data directory
  --database-connections N
                        PostgreSQL connections that run queries (DATABASE_CONNECTIONS,
                        default twice the CPU cores, 4 to 10; at most 1000); each instance
                        holds two more that listen
  --json                machine-readable output (FOLLOWUP_JSON=true)
  --help                this text

An embedded PGlite directory belongs to one process at a time: while \`start\` runs on it,
operator commands reach that server through its operator channel: a Unix socket in the data
directory (operator.sock), authenticated by a key in operator-channel.json, both owner-only.
On PostgreSQL any number of processes work side by side.
`;

/** @internal Every option of every command. */
export const optionSpec = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'database-connections': { type: 'string' },
  'unsafe-no-fsync': { type: 'boolean', default: false },
  name: { type: 'string' },
  role: { type: 'string' },
  account: { type: 'string' },
  ttl: { type: 'string' },
  label: { type: 'string' },
  grace: { type: 'string' },
  token: { type: 'string' },
  vendor: { type: 'string' },
  contacts: { type: 'string' },
  contact: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  endpoint: { type: 'string' },
  overlap: { type: 'string' },
  subscriber: { type: 'string' },
  'expires-in-minutes': { type: 'string' },
  state: { type: 'string' },
  delivery: { type: 'string' },
  since: { type: 'string' },
  email: { type: 'string' },
  user: { type: 'string' },
  'public-url': { type: 'string' },
  'trust-proxy': { type: 'string' },
  'session-idle': { type: 'string' },
  'session-lifetime': { type: 'string' },
  'delivery-retry-delays': { type: 'string' },
  'delivery-timeout': { type: 'string' },
  'delivery-concurrency': { type: 'string' },
  'endpoint-concurrency': { type: 'string' },
  'auto-disable-after': { type: 'string' },
  'rate-limit': { type: 'string' },
  'receipt-retention': { type: 'string' },
  'delivery-retention': { type: 'string' },
  'tombstone-retention': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'keep-alive-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'address-rate-limit': { type: 'string' },
  'auth-failure-limit': { type: 'string' },
  'metrics-port': { type: 'string' },
  'metrics-host': { type: 'string' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  'allow-private-endpoints': { type: 'boolean', default: false },
  'allow-insecure-endpoints': { type: 'boolean', default: false },
  'allow-open-inbox': { type: 'boolean', default: false },
  out: { type: 'string' },
  from: { type: 'string' },
  force: { type: 'boolean', default: false },
  limit: { type: 'string' },
  offset: { type: 'string' },
  demo: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

/** @internal The name of an option of the command line. */
export type OptionName = keyof typeof optionSpec;

/** @internal The options every command takes: where the database is, output, help. */
export const GLOBAL_OPTIONS: readonly OptionName[] = [
  'data-dir',
  'database-url',
  'unsafe-no-fsync',
  'database-connections',
  'json',
  'help',
];

/** @internal The options of a list command: `--limit` and `--offset`. */
export const PAGE_OPTIONS: readonly OptionName[] = ['limit', 'offset'];

/** @internal The parsed options. */
export type CliOptions = ReturnType<
  typeof parseArgs<{ options: typeof optionSpec; allowPositionals: true }>
>['values'];

/** @internal A mistake in the command line: exit code 2 and one line pointing to `--help`. */
export class UsageError extends Error {}

/** @internal The value of a required option. */
export function required(
  values: CliOptions,
  name:
    | 'name'
    | 'role'
    | 'account'
    | 'ttl'
    | 'token'
    | 'contacts'
    | 'url'
    | 'endpoint'
    | 'delivery'
    | 'since'
    | 'subscriber',
): string {
  const value = values[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}
