// FOLLOWUP_TOKEN=hns_… FOLLOWUP_BASE_URL=http://127.0.0.1:3000 npm start -w @followup/example-export-audit -- audit.ndjson
//
// Exports the audit log to the file given (default audit.ndjson), with its position in
// <file>.state. Run it again after a failure and it carries on where it stopped.
import { FollowUp, FollowUpError } from '@followup/sdk';
import { exportAudit } from './export-audit.js';

const file = process.argv[2] ?? 'audit.ndjson';
const token = process.env.FOLLOWUP_TOKEN;
if (!token) {
  console.error(
    'Set FOLLOWUP_TOKEN to a token whose role may read the audit log (ADMIN or MANAGER).',
  );
  process.exit(2);
}
const client = new FollowUp({
  token,
  baseUrl: process.env.FOLLOWUP_BASE_URL ?? 'http://127.0.0.1:3000',
});
try {
  const state = await exportAudit(client, {
    file,
    stateFile: `${file}.state`,
    onPage: ({ entries }) => console.error(`… ${entries} entries`),
  });
  console.log(`${state.entries} audit entries in ${file}`);
} catch (error) {
  if (!FollowUpError.isInstance(error)) throw error;
  console.error(`Stopped (${error.code}): ${error.message}. Run the same command again to resume.`);
  process.exit(1);
}
