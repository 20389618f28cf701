import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import {
  browserTestsNotRun,
  notRunReporter,
  pgliteOnlyNotRun,
  postgresHalfNotRun,
} from '../../scripts/testing/not-run-reporter.mjs';

// The suite runs on each storage driver: always on embedded PGlite (in memory), and on
// PostgreSQL too when FOLLOWUP_TEST_DATABASE_URL is set (CI sets it through
// scripts/start-test-postgres.sh). Each test file opens one database and truncates it between
// tests: a fresh PGlite takes seconds, so never one per test.
const drivers = process.env.FOLLOWUP_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
if (process.env.CI && process.env.CI !== 'false' && drivers.length === 1) {
  throw new Error(
    'CI runs the server suite on PostgreSQL too: set FOLLOWUP_TEST_DATABASE_URL ' +
      '(packages/server/scripts/start-test-postgres.sh does).',
  );
}

/**
 * The test files that run once, on PGlite only, because the storage driver cannot change what
 * they check; each group says why. Every other file runs on both drivers, so a new file does
 * unless it is listed here (CONTRIBUTING.md, "Tests"). List a file only when nothing it asserts
 * depends on how a value is stored or read back: where storage is only a fixture (an account
 * for a token, a user to sign in), the route tests that own that storage run on both drivers.
 */
const PGLITE_ONLY: readonly { why: string; files: readonly string[] }[] = [
  {
    why: 'they open no database: pure functions, parsers, option readers, HTTP helpers',
    files: [
      'src/bounded-memo.test.ts',
      'src/capabilities.test.ts',
      'src/cli/data-directory.test.ts',
      'src/cli/edge-options.test.ts',
      'src/cli/log-options.test.ts',
      'src/cli/option-variables.test.ts',
      'src/cli/progress-bar.test.ts',
      'src/cli/start-option-parsers.test.ts',
      'src/cli/trust-proxy.test.ts',
      'src/delivery/delivery-request.test.ts',
      'src/delivery/endpoint-address.test.ts',
      'src/delivery/event-list.test.ts',
      'src/delivery/post-delivery.test.ts',
      'src/delivery/retry-after.test.ts',
      'src/delivery/retry-delivery.test.ts',
      'src/delivery/retry-schedule.test.ts',
      'src/delivery/thin-event-data.test.ts',
      'src/delivery/static-headers.test.ts',
      'src/duration.test.ts',
      'src/erasure/erased-values.test.ts',
      'src/events/event-feed.test.ts',
      'src/ids.test.ts',
      'src/list-cursor.test.ts',
      'src/plugins/authorization-header.test.ts',
      'src/plugins/pretty-log-stream.test.ts',
      'src/plugins/problem.test.ts',
      'src/receipts/handler-error-message.test.ts',
      'src/receipts/receipt-filter.test.ts',
      'src/storage/data-directory-lock.test.ts',
      'src/storage/integer-text.test.ts',
      'src/storage/iso-timestamp.test.ts',
      'src/storage/pool-database.test.ts',
      'src/stores/sql-home.test.ts',
      'src/tokens/token-format.test.ts',
      'src/tokens/token-label.test.ts',
      'src/tracing/statement-label.test.ts',
      'src/tracing/traceparent.test.ts',
      'src/tracing/tracing-environment.test.ts',
      'src/users/passwords-decoy.test.ts',
      'src/users/passwords.test.ts',
      'src/web/pages/endpoint-status.test.ts',
      'src/web/pages/hourly-chart.test.ts',
      'src/web/pages/record-list.test.ts',
      'src/web/pages/list-page.test.ts',
      'src/web/pages/page-helpers.test.ts',
      'src/web/portal/portal-form-fields.test.ts',
      'src/web/redact-sign-in-link.test.ts',
      'src/web/safe-next.test.ts',
      'test/deploy-files.test.ts',
      'test/support/strace.test.ts',
    ],
  },
  {
    why:
      'Chromium checks what pages look like and do (layout, keyboard, CSP, axe); the routes and ' +
      'pages behind them are tested on both drivers',
    files: [
      'test/api-docs.browser.test.ts',
      'test/web-browser.test.ts',
      'test/web-console-chrome.browser.test.ts',
      'test/web-console.browser.test.ts',
      'test/web-data.browser.test.ts',
      'test/web-keyboard.browser.test.ts',
      'test/web-overview.browser.test.ts',
      'test/web-readable-tables.browser.test.ts',
      'test/support/browser.test.ts',
    ],
  },
  {
    why:
      'backup and restore copy an embedded PGlite data directory; on PostgreSQL, pg_dump and ' +
      'pg_restore do (the server README, "Backups")',
    files: [
      'src/backup/backup-manifest.test.ts',
      'src/backup/restore-backup.test.ts',
      'test/backup-restore.test.ts',
    ],
  },
  {
    why: 'the OpenAPI document and /docs are made from the route schemas, never from stored data',
    files: [
      'src/plugins/openapi-document.test.ts',
      'src/plugins/openapi.test.ts',
      'src/routes/resource-routes.test.ts',
    ],
  },
  {
    why:
      'the requests they send are answered before any route reads or writes storage: a Host ' +
      'header, the router and the HTTP parser, validation, a server shutting down',
    files: [
      'src/plugins/host-header.test.ts',
      'src/plugins/router-errors.test.ts',
      'src/plugins/shutdown-refusal.test.ts',
      'src/plugins/validation-messages.test.ts',
    ],
  },
];
const pgliteOnlyFiles = PGLITE_ONLY.flatMap((group) => group.files);

/**
 * The test files that run in a worker of their own, as vitest runs every file by default
 * (`isolate: true`); each group says why. Every other file runs in a worker that runs other files
 * of its project before and after it (`isolate: false`), so that a new process and the
 * server's module graph (Fastify, PGlite, the SDK's schemas) are set up once per worker instead
 * of once per file: that cost 0.7-1.8 s of CPU per file, 1.3 s on average over the stores',
 * routes' and plugins' files, half of their CPU time, and left gaps in which a worker ran no
 * test at all (CONTRIBUTING.md, "Tests").
 *
 * A file shares its worker safely when it leaves nothing process-wide behind: it closes what it
 * opens, restores what it replaces in `afterEach`/`afterAll` (`vi.useRealTimers()`, a global
 * OpenTelemetry context manager), and writes no `process.env`. The module state of `src/` is
 * either per instance (metrics registries, statement caches, token caches) or the same for every
 * file (the texts `replannedAsTablesGrow` marks, the file-mode guard of private-files.ts). List a file here
 * when it replaces a module or a process-wide global for its whole run.
 */
const ISOLATED: readonly { why: string; files: readonly string[] }[] = [
  {
    why: 'vi.mock replaces a module of src/ for the whole file, and so for any file after it',
    files: ['src/tracing/start-tracing.test.ts', 'src/users/passwords-decoy.test.ts'],
  },
  {
    why:
      "they register OpenTelemetry's global tracer provider and context manager, or change " +
      'process.env (vi.stubEnv), as a real process does once',
    files: ['src/cli/start-traces.test.ts', 'src/plugins/request-tracing.test.ts'],
  },
];
const isolatedFiles = ISOLATED.flatMap((group) => group.files);

// A renamed or deleted file must leave the lists too, so that each list says what it changes.
for (const [list, files] of [
  ['PGLITE_ONLY', pgliteOnlyFiles],
  ['ISOLATED', isolatedFiles],
] as const) {
  const missing = files.filter((file) => !existsSync(new URL(file, import.meta.url)));
  if (missing.length > 0) {
    throw new Error(`${list} in vitest.config.ts names files that do not exist: ${missing}`);
  }
}

export default defineConfig({
  test: {
    // What this run left out, and why, beside the report, for npm test's summary to name.
    reporters: [
      'default',
      ['json', { outputFile: 'test-results.json' }],
      notRunReporter({
        parts: [
          ...postgresHalfNotRun(process.env.FOLLOWUP_TEST_DATABASE_URL),
          ...pgliteOnlyNotRun(pgliteOnlyFiles.length),
          ...browserTestsNotRun(),
        ],
      }),
    ],
    // A PGlite instance costs hundreds of MB and the machine is shared: two files at a time.
    maxWorkers: 2,
    // One migrated PGlite for the run; each file opens a copy (test/support/pglite-template.ts).
    globalSetup: ['test/support/pglite-template.global.ts'],
    // Guards against a hung test, not measures of speed. Many tests start real things (PGlite
    // on disk, whole servers, Chromium): at load 20 on two cores opening an on-disk PGlite twice
    // took 38 s and `start` plus an operator command 49 s, past the 30 s guard this used to be.
    // Every time-dependent behaviour under test runs on an injected clock instead.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Puts back, after each file, what a test may leave behind for the next file of its worker.
    setupFiles: ['test/support/shared-worker.setup.ts'],
    // Two projects per driver: the files that share workers (ISOLATED above says why) and those
    // that each get a fresh one. A worker only ever runs files of one project, so of one driver.
    projects: drivers.flatMap((driver) => {
      const notOnDriver = driver === 'postgres' ? pgliteOnlyFiles : [];
      const env = { FOLLOWUP_TEST_DRIVER: driver };
      return [
        {
          extends: true,
          test: {
            name: driver,
            include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
            exclude: [...configDefaults.exclude, ...notOnDriver, ...isolatedFiles],
            isolate: false,
            env,
          },
        },
        {
          extends: true,
          test: {
            name: `${driver} isolated`,
            include: isolatedFiles.filter((file) => !notOnDriver.includes(file)),
            isolate: true,
            env,
          },
        },
      ];
    }),
  },
});
