import { usageError } from './cli-error.js';
import { systemClock } from './cli-io.js';
import { type Command, flagOption, stringOption } from './command.js';
import {
  CREDENTIAL_HELP,
  CREDENTIAL_OPTIONS,
  createClient,
  credentialFlags,
  resolveCredentials,
} from './credentials.js';
import { DEFAULT_EHR_VENDOR, SIGNED_EHR_VENDORS } from './ehr-webhook.js';
import { findEventId } from './find-event.js';
import { TRIGGER_KINDS, triggerKindOf } from './trigger-kinds.js';

/** How long the event of a trigger may take to appear in the feed. */
const EVENT_TIMEOUT_MS = 10_000;

/**
 * @internal `followup trigger <kind>`: makes the real change that emits `kind` through the API,
 * prints the ids it made and the event's id; `--list` lists the kinds.
 */
export const triggerCommand: Command = {
  name: 'trigger',
  summary: 'make a real change that emits an event kind, and print its ids',
  help: `Usage: followup trigger <kind> [--cleanup] [--json] [--inbox-secret SECRET]
                        [--ehr-secret SECRET] [--ehr-vendor VENDOR]
       followup trigger --list [--json]

Makes the change that emits <kind> through the API (a contact created, updated, deleted…),
then prints the ids of what it made and the event's id (evt_…, found in GET /api/events).

  --list                 the kinds it can trigger, and what each does
  --cleanup              delete what it made afterwards (a contact deleted emits
                         contact.deleted: a listener sees that too)
  --inbox-secret SECRET  the server's INBOX_WEBHOOK_SECRET, for message.received
                         (or FOLLOWUP_INBOX_SECRET); not needed when the server has none
  --ehr-secret SECRET    the EHR vendor's secret, the server's EHR_WEBHOOK_SECRET_<VENDOR>,
                         for ehr.receipt.recorded (or FOLLOWUP_EHR_SECRET); never printed
  --ehr-vendor VENDOR    the vendor to sign as: ${SIGNED_EHR_VENDORS.join(', ')}
                         (or FOLLOWUP_EHR_VENDOR; ${DEFAULT_EHR_VENDOR} by default, the vendor
                         of followup-server start --demo)
  --json                 print {"kind","ids":{…},"eventId","cleanedUp":[…]}

${CREDENTIAL_HELP}`,
  options: {
    ...CREDENTIAL_OPTIONS,
    list: { type: 'boolean' },
    cleanup: { type: 'boolean' },
    json: { type: 'boolean' },
    'inbox-secret': { type: 'string' },
    'ehr-secret': { type: 'string' },
    'ehr-vendor': { type: 'string' },
  },
  maxPositionals: 1,
  async run(line, io) {
    const json = flagOption(line, 'json');
    const [kind] = line.positionals;
    if (flagOption(line, 'list')) {
      if (kind !== undefined) throw usageError('--list takes no kind.');
      const kinds = TRIGGER_KINDS.map(({ kind, does }) => ({ kind, does }));
      if (json) io.stdout.write(`${JSON.stringify({ kinds })}\n`);
      else {
        const width = Math.max(...kinds.map((entry) => entry.kind.length)) + 2;
        for (const entry of kinds) io.stdout.write(`${entry.kind.padEnd(width)}${entry.does}\n`);
      }
      return 0;
    }
    if (kind === undefined) throw usageError('Which kind? followup trigger --list lists them.');
    const trigger = triggerKindOf(kind);
    const credentials = resolveCredentials(credentialFlags(line), io);
    const client = createClient(credentials, io);
    const clock = io.clock ?? systemClock;
    const triggered = await trigger.run({
      client,
      baseUrl: credentials.baseUrl,
      fetch: io.fetch ?? fetch,
      now: clock.now(),
      inboxSecret: stringOption(line, 'inbox-secret') || io.env.FOLLOWUP_INBOX_SECRET,
      ehrVendor:
        stringOption(line, 'ehr-vendor') || io.env.FOLLOWUP_EHR_VENDOR || DEFAULT_EHR_VENDOR,
      ehrSecret: stringOption(line, 'ehr-secret') || io.env.FOLLOWUP_EHR_SECRET,
    });
    const eventId = await findEventId(client, {
      kind: trigger.kind,
      subjectId: triggered.subjectId,
      clock,
      timeoutMs: EVENT_TIMEOUT_MS,
    });
    const cleanedUp =
      flagOption(line, 'cleanup') && triggered.cleanup ? await triggered.cleanup() : [];
    if (json) {
      io.stdout.write(`${JSON.stringify({ kind, ids: triggered.ids, eventId, cleanedUp })}\n`);
    } else {
      io.stdout.write(`${kind}\n`);
      for (const [what, id] of Object.entries(triggered.ids)) {
        io.stdout.write(`  ${what.padEnd(8)} ${id}\n`);
      }
      io.stdout.write(`  ${'event'.padEnd(8)} ${eventId}\n`);
      for (const done of cleanedUp) io.stdout.write(`  cleanup: ${done}\n`);
    }
    return 0;
  },
};
