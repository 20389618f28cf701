import { z } from 'zod';

// The shape every FollowUp timestamp has: ISO 8601, UTC, with a `Z`. Checked by shape only
// (zod's `z.iso.datetime()` also checks the calendar, with a regular expression that costs a
// third of a contact's validation); the server, which writes them, owns their correctness.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

/** An ISO 8601 UTC timestamp with a `Z`, as every FollowUp timestamp is. */
export const timestampSchema = z
  .string()
  .regex(ISO_UTC, 'Expected an ISO 8601 UTC timestamp ending in Z.')
  .meta({
    format: 'date-time',
  });
