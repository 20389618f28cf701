import { z } from 'zod';

/** An ISO 8601 UTC timestamp with a `Z`, as every FollowUp timestamp is. */
export const timestampSchema = z.iso.datetime();
