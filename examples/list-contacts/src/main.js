// FOLLOWUP_TOKEN=hns_… FOLLOWUP_BASE_URL=http://127.0.0.1:3000 npm start -w @followup/example-list-contacts
//
// Walks every contact and prints a summary. Each kind of failure is told apart by its class, with
// what to do about it, and a distinct exit code.
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  FollowUp,
  FollowUpError,
  PermissionDeniedError,
  RateLimitError,
} from '@followup/sdk';
import { listContacts } from './list-contacts.js';

const token = process.env.FOLLOWUP_TOKEN;
const baseUrl = process.env.FOLLOWUP_BASE_URL ?? 'http://127.0.0.1:3000';
if (!token) {
  console.error('Set FOLLOWUP_TOKEN to a service-account token (npm start prints a demo one).');
  process.exit(2);
}

try {
  const client = new FollowUp({ token, baseUrl });
  const { total, byLifecycle } = await listContacts(client, {
    onProgress: (walked) => console.error(`… ${walked} contacts`),
  });
  console.log(`${total} contacts`);
  for (const [lifecycle, count] of Object.entries(byLifecycle)) {
    console.log(`  ${lifecycle}: ${count}`);
  }
} catch (error) {
  // Most specific first: every class below extends FollowUpError. `isInstance` works even when
  // two copies of the SDK are installed.
  if (AuthenticationError.isInstance(error)) {
    console.error(`The token was refused (${error.code}): issue a new one and try again.`);
    process.exit(3);
  } else if (PermissionDeniedError.isInstance(error)) {
    console.error(`This account's role may not read contacts (${error.code}).`);
    process.exit(4);
  } else if (RateLimitError.isInstance(error)) {
    console.error(
      `Rate limited: try again in ${Math.ceil((error.retryAfterMs ?? 1000) / 1000)} s.`,
    );
    process.exit(5);
  } else if (APITimeoutError.isInstance(error) || APIConnectionError.isInstance(error)) {
    console.error(`Could not reach ${baseUrl}: ${error.message}`);
    process.exit(6);
  } else if (FollowUpError.isInstance(error)) {
    console.error(`The walk failed (${error.code}): ${error.message}`);
    process.exit(1);
  }
  throw error;
}
