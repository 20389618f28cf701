// The server's default time limit of one delivery attempt, which the receiver checks use too.
import { SERVER_ATTEMPT_TIMEOUT_MS } from '@followup/sdk/receiver-checks';
import type { CliIo } from './cli-io.js';
import { systemClock } from './cli-io.js';
import { type Command, flagOption, stringOption } from './command.js';
import {
  CREDENTIAL_HELP,
  CREDENTIAL_OPTIONS,
  createClient,
  credentialFlags,
  resolveCredentials,
} from './credentials.js';
import { FAST_RETRY_DELAYS_SECONDS, SERVER_RETRY_DELAYS_SECONDS } from './delivery-schedule.js';
import { followEvents } from './event-follower.js';
import { createEventForwarder, type ForwardedAttempt } from './event-forwarder.js';
import { parseEventKinds, parseForwardUrl, parseListenStart } from './listen-options.js';
import { listenSecret } from './local-secret.js';

function attemptLine(attempt: ForwardedAttempt): string {
  const answer = attempt.status === undefined ? `no answer (${attempt.error})` : attempt.status;
  const retry =
    attempt.nextRetryMs === undefined
      ? attempt.status !== undefined && attempt.status < 300 && attempt.status >= 200
        ? ''
        : '  gave up'
      : `  retry ${attempt.attempt} in ${attempt.nextRetryMs / 1000} s`;
  const again = attempt.attempt > 1 ? `  (attempt ${attempt.attempt})` : '';
  return `${attempt.time}  ${attempt.kind.padEnd(20)}  ${attempt.eventId}  ${answer}  ${attempt.durationMs} ms${retry}${again}\n`;
}

/**
 * @internal `followup listen`: follows the event feed and forwards each event, signed as a real
 * delivery, to a local receiver, until Ctrl-C; then prints where to resume.
 */
export const listenCommand: Command = {
  name: 'listen',
  summary: "forward the server's events, signed, to a local receiver",
  help: `Usage: followup listen --forward-to URL [--events a,b] [--from now|start|EVENT_ID]
                       [--new-secret] [--fast-retries] [--json]
       followup listen --print-secret [--new-secret]

Follows the event feed (GET /api/events) and forwards each event to URL as a real delivery
arrives: the same body, X-Service-* and Standard Webhooks webhook-* headers, signed with a local
secret (whsec_…) printed at start and kept in $XDG_CONFIG_HOME/followup/listen-secret, the same
on every run. One line per attempt: time, kind, event id, the receiver's status, duration. A
receiver that does not answer 2xx gets the server's retry schedule (30 s, 2 min, 10 min … 24 h).
Ctrl-C stops at once and prints the event id to resume from.

  --forward-to URL      the receiver (http: or https:)
  --events a,b          only these kinds (default: every kind the token may read)
  --from now            only events committed from now on (default)
  --from start          every event the feed holds
  --from EVENT_ID       the events after this one (what a stopped listen printed)
  --new-secret          sign with a new secret from now on (the old one stops verifying)
  --print-secret        print the signing secret and exit
  --fast-retries        retry after 1 s, 2 s, 4 s … 30 s instead of the server's schedule
  --json                one JSON object per line: {"type":"ready"|"attempt"|"stopped",…}

${CREDENTIAL_HELP}`,
  options: {
    ...CREDENTIAL_OPTIONS,
    'forward-to': { type: 'string' },
    events: { type: 'string' },
    from: { type: 'string' },
    'new-secret': { type: 'boolean' },
    'print-secret': { type: 'boolean' },
    'fast-retries': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  maxPositionals: 0,
  async run(line, io) {
    if (flagOption(line, 'print-secret')) {
      const { secret } = listenSecret(io.env, { renew: flagOption(line, 'new-secret') });
      io.stdout.write(`${secret}\n`);
      return 0;
    }
    const url = parseForwardUrl(stringOption(line, 'forward-to'));
    const kinds = parseEventKinds(stringOption(line, 'events'));
    const start = parseListenStart(stringOption(line, 'from'));
    const credentials = resolveCredentials(credentialFlags(line), io);
    const client = createClient(credentials, io);
    const { secret, file } = listenSecret(io.env, { renew: flagOption(line, 'new-secret') });
    return listen(io, {
      json: flagOption(line, 'json'),
      baseUrl: credentials.baseUrl,
      run: (signal, print) => {
        const forwarder = createEventForwarder({
          url,
          secret,
          retryDelaysSeconds: flagOption(line, 'fast-retries')
            ? FAST_RETRY_DELAYS_SECONDS
            : SERVER_RETRY_DELAYS_SECONDS,
          timeoutMs: SERVER_ATTEMPT_TIMEOUT_MS,
          fetch: io.fetch ?? fetch,
          clock: io.clock ?? systemClock,
          signal,
          onAttempt: (attempt) => print({ type: 'attempt', ...attempt }, attemptLine(attempt)),
        });
        const follow = followEvents(client, {
          start,
          kinds,
          clock: io.clock ?? systemClock,
          signal,
          onStart: (after) =>
            print(
              {
                type: 'ready',
                baseUrl: credentials.baseUrl,
                forwardTo: url.href,
                kinds: kinds ?? null,
                secret,
                after: after ?? null,
              },
              `Forwarding ${kinds ? kinds.join(', ') : 'every event kind'} from ${credentials.baseUrl} to ${url.href}\n` +
                `Signing secret: ${secret}\n  (kept in ${file}; --new-secret for another)\n` +
                `Following ${start.from === 'now' ? 'from now' : after ? `after ${after}` : 'from the start'}. Ctrl-C to stop.\n`,
            ),
          onEvent: (event) => forwarder.forward(event),
        });
        return { follow, forwarder };
      },
    });
  },
};

/** What `listen` runs, apart from how it prints and stops. */
interface ListenRun {
  json: boolean;
  baseUrl: string;
  run(
    signal: AbortSignal,
    print: (json: Record<string, unknown>, text: string) => void,
  ): {
    follow: Promise<string | undefined>;
    forwarder: { pending(): string[] };
  };
}

async function listen(io: CliIo, options: ListenRun): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (io.signal?.aborted) stop();
  io.signal?.addEventListener('abort', stop, { once: true });
  const print = (json: Record<string, unknown>, text: string) =>
    io.stdout.write(options.json ? `${JSON.stringify(json)}\n` : text);
  const { follow, forwarder } = options.run(controller.signal, print);
  let resumeFrom: string | undefined;
  let failure: unknown;
  try {
    resumeFrom = await follow;
  } catch (error) {
    failure = error;
  } finally {
    io.signal?.removeEventListener('abort', stop);
    controller.abort();
  }
  const dropped = forwarder.pending();
  print(
    { type: 'stopped', resumeFrom: resumeFrom ?? null, droppedRetries: dropped },
    `\nStopped.${dropped.length > 0 ? ` Retries dropped for ${dropped.join(', ')}.` : ''}\n` +
      `Resume with: followup listen --from ${resumeFrom ?? 'start'} (and the same --forward-to)\n`,
  );
  if (failure !== undefined) throw failure;
  return 0;
}
