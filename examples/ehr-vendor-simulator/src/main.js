// FOLLOWUP_BASE_URL=http://127.0.0.1:3000 EHR_WEBHOOK_SECRET_ATHENAHEALTH=… \
//   npm start -w @followup/example-ehr-vendor-simulator
//
// Reads each vendor's secret from the same variables the server does (EHR_WEBHOOK_SECRET_<KEY>),
// sends a correctly and a wrongly signed webhook for each vendor profile, prints what the server
// answered, and exits 1 when an answer is not the one the interface promises.
import { vendorProfiles } from '@followup/webhooks';
import { secretVariable, simulate } from './simulate.js';

const secrets = Object.fromEntries(
  Object.keys(vendorProfiles).map((key) => [key, process.env[secretVariable(key)]]),
);
const outcomes = await simulate({
  baseUrl: process.env.FOLLOWUP_BASE_URL ?? 'http://127.0.0.1:3000',
  secrets,
});
let unexpected = 0;
for (const outcome of outcomes) {
  const ok = outcome.status === outcome.expected;
  if (!ok) unexpected++;
  console.log(
    `${ok ? 'ok  ' : 'FAIL'} ${outcome.vendor.padEnd(15)} ${outcome.case.padEnd(21)} ` +
      `${outcome.status} (expected ${outcome.expected}) ${outcome.detail}`,
  );
}
console.log(
  unexpected === 0 ? 'Every answer was as expected.' : `${unexpected} unexpected answers.`,
);
process.exitCode = unexpected === 0 ? 0 : 1;
