import { ENDPOINT_EVENT_KINDS, eventTypeListSchema } from '@followup/sdk';
import { isSigningSecret, type ReceiverReport } from '@followup/sdk/receiver-checks';
import { FollowUpCliError, usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { type Command, flagOption, stringOption } from './command.js';
import { readStoredCredentials } from './config-file.js';
import { verifyReceiver } from './verify-receiver.js';

/**
 * The kinds the server sends to an endpoint subscribed to `*`, from its catalogue (`GET
 * /api/event-types`, no token needed): every kind but the operational `endpoint.*` ones, which
 * reach only endpoints that list them, as the built-in catalogue of `--offline` leaves them out.
 */
async function serverEventKinds(baseUrl: string, io: CliIo): Promise<string[]> {
  let url: URL;
  try {
    url = new URL('/api/event-types', baseUrl);
  } catch {
    throw usageError('The base URL is not a URL.');
  }
  let response: Response;
  try {
    response = await (io.fetch ?? fetch)(url, { headers: { accept: 'application/json' } });
  } catch (error) {
    throw new FollowUpCliError({
      code: 'server_unreachable',
      message: `${url.origin} did not answer (${(error as Error).message}); pass --offline to use the built-in catalogue.`,
      cause: error,
    });
  }
  const parsed = eventTypeListSchema.safeParse(await response.json().catch(() => undefined));
  if (!response.ok || !parsed.success) {
    throw new FollowUpCliError({
      code: 'server_unreachable',
      message: `${url.href} answered ${response.status} without an event catalogue; pass --offline to use the built-in one.`,
    });
  }
  const operational: readonly string[] = ENDPOINT_EVENT_KINDS;
  return parsed.data.eventTypes
    .map((type) => type.kind)
    .filter((kind) => !operational.includes(kind));
}

const MARK = { pass: 'pass', fail: 'FAIL', warn: 'warn', skip: 'skip' } as const;

function table(report: ReceiverReport): string {
  const rows = report.checks.map((check) => [
    check.name,
    check.expected,
    check.httpStatus === null ? '-' : String(check.httpStatus),
    check.durationMs === null ? '-' : `${check.durationMs} ms`,
    MARK[check.status],
  ]);
  const header = ['CHECK', 'EXPECT', 'GOT', 'TIME', 'RESULT'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] as number))
      .join('  ')
      .trimEnd();
  const notes = report.checks
    .filter((check) => check.status === 'fail' || check.status === 'warn')
    .map((check) => `  ${MARK[check.status]}  ${check.name}: ${check.detail}`);
  const { passed, failed, warnings, skipped } = report.summary;
  const { p50Ms, maxMs, timeoutMs } = report.timing;
  return [
    `Checking ${report.url}`,
    '',
    line(header),
    ...rows.map(line),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    `${passed} passed, ${failed} failed, ${warnings} warning${warnings === 1 ? '' : 's'}, ${skipped} skipped` +
      (p50Ms === null
        ? ''
        : `; answers in ${p50Ms} ms (p50), ${maxMs} ms at most, of ${timeoutMs / 1000} s allowed`) +
      `. ${report.ok ? 'The receiver keeps the contract.' : 'The receiver does not keep the contract.'}`,
    '',
  ].join('\n');
}

/** @internal `followup verify-receiver`: the checks of {@link verifyReceiver}, as a table. */
export const verifyReceiverCommand: Command = {
  name: 'verify-receiver',
  summary: 'check that a webhook receiver handles signatures, retries and duplicates',
  help: `Usage: followup verify-receiver --url URL --secret whsec_… [--offline] [--json]

Sends the receiver deliveries signed as the server signs them, and checks its answers: one
valid delivery of each event kind the server sends (2xx), the same delivery twice (2xx both
times, else a warning), a bad signature, a wrong secret, a timestamp 5.5 minutes old or ahead,
no signature, a body changed by one byte (4xx each; a 2xx fails), two signatures during a
rotation, each signature scheme alone, the largest event (2xx), and its answer times against
the server's 15 s. Prints a table, then a summary; exits 1 when a check failed.

  --url URL          the receiver
  --secret whsec_…   the secret it verifies with (or FOLLOWUP_WEBHOOK_SECRET); never printed
  --offline          the event kinds of this version of followup, instead of asking the server
                     (GET /api/event-types of --base-url, FOLLOWUP_BASE_URL or followup login)
  --base-url URL     the server to ask which kinds it sends (no token needed)
  --json             print the report as JSON: {"url","ok","checks":[…],"summary","timing"}`,
  options: {
    url: { type: 'string' },
    secret: { type: 'string' },
    offline: { type: 'boolean' },
    'base-url': { type: 'string' },
    json: { type: 'boolean' },
  },
  maxPositionals: 0,
  async run(line, io) {
    const url = stringOption(line, 'url');
    if (!url) throw usageError('Which receiver? Pass --url http://localhost:3000/webhooks.');
    const secret = stringOption(line, 'secret') || io.env.FOLLOWUP_WEBHOOK_SECRET;
    if (!secret || !isSigningSecret(secret)) {
      throw usageError(
        "Pass --secret (or FOLLOWUP_WEBHOOK_SECRET): the receiver's signing secret, whsec_ and the base64 of 32 bytes.",
      );
    }
    let eventKinds: string[] | undefined;
    if (!flagOption(line, 'offline')) {
      const baseUrl =
        stringOption(line, 'base-url') ||
        io.env.FOLLOWUP_BASE_URL ||
        readStoredCredentials(io.env)?.baseUrl;
      if (!baseUrl) {
        throw usageError(
          'Which server sends the events? Pass --base-url (or FOLLOWUP_BASE_URL), or --offline.',
        );
      }
      eventKinds = await serverEventKinds(baseUrl, io);
    }
    let report: ReceiverReport;
    try {
      report = await verifyReceiver({
        url,
        secret,
        ...(eventKinds ? { eventKinds } : {}),
        ...(io.fetch ? { fetch: io.fetch } : {}),
        ...(io.clock ? { now: io.clock.now } : {}),
      });
    } catch (error) {
      if (FollowUpCliError.isInstance(error) && error.code === 'invalid_options') {
        throw usageError(error.message.replace(/^url/, '--url'));
      }
      throw error;
    }
    io.stdout.write(flagOption(line, 'json') ? `${JSON.stringify(report)}\n` : table(report));
    return report.ok ? 0 : 1;
  },
};
