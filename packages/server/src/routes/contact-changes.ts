import { contactChangeListSchema } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { decodeListCursor, encodeListCursor, listFingerprint, positionOf } from '../list-cursor.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import { CONTACTS_FEED } from '../retention/retention.js';
import type { ChangePosition } from '../storage/change-order.js';
import type { Database } from '../storage/database.js';
import {
  finishedTransactionsBound,
  readContactChanges,
  readFeedHorizon,
} from '../stores/contact-change-store.js';
import { timestampParameter } from './keyset-list.js';
import { limitParameter } from './list-query.js';

const query = z.strictObject({
  limit: limitParameter,
  cursor: z
    .string({ error: 'cursor must be given once' })
    .min(1)
    .max(1024)
    .optional()
    .describe('The nextCursor (or a change cursor) of an earlier page'),
  updatedSince: timestampParameter
    .optional()
    .describe('Where a first walk starts: changes at or after this ISO 8601 time'),
});

// Change cursors are list cursors of a fixed query: the feed's position does not depend on limit.
const feedFingerprint = listFingerprint(['contacts.changes']);
const cursorOf = (position: ChangePosition) =>
  encodeListCursor(feedFingerprint, { kind: 'change', ...position });

/** Whether change position `a` comes before `b` in change order. */
function precedes(a: ChangePosition, b: ChangePosition): boolean {
  const [ax, bx] = [BigInt(a.xid), BigInt(b.xid)];
  return ax < bx || (ax === bx && BigInt(a.seq) < BigInt(b.seq));
}

function invalidCursor(message: string): ProblemError {
  return new ProblemError({
    code: 'validation_failed',
    detail: 'The request is not valid: see errors.',
    errors: [{ path: 'cursor', message }],
  });
}

/**
 * @internal The change feed's answer to a position from before its horizon: tombstones after it
 * were pruned, so continuing would silently miss those deletions.
 */
export function resyncRequired(): ProblemError {
  return new ProblemError({
    code: 'resync_required',
    detail:
      'Deletions after this position are past the retention of the change feed and were pruned: ' +
      'sync again from the start (without cursor or updatedSince) and replace your copy.',
  });
}

/**
 * @internal `GET /api/contacts/changes` (contacts.read): every change to contacts after a
 * position, in commit order: `changed` (created or updated, with the contact as it is now) and
 * `deleted` (from the tombstones). Each change carries the cursor just after it; `nextCursor` is
 * never null (a feed has no last page) and `hasMore` says whether more changes are waiting.
 * Changes are read in change order, `(change_xid, change_seq)`, and only those of transactions
 * that have ended (see change-order.ts), so a position never passes a change that commits later:
 * resuming from any cursor returns every later change exactly once.
 */
export function contactChangesRoute(
  app: FastifyInstance,
  options: { database: Database; requireCapability: RequireCapability },
): void {
  const { database } = options;
  app.get(
    '/api/contacts/changes',
    {
      onRequest: options.requireCapability('contacts.read'),
      schema: {
        summary: 'Contact changes after a position, in commit order (change sync)',
        description:
          'Each change is changed (created or updated: the contact as it is now) or deleted. ' +
          'Keep the cursor of the last change applied (or nextCursor) and pass it back as cursor ' +
          'to continue, now or later: every later change comes exactly once, deletions included. ' +
          'Without a cursor the walk starts at the beginning, or at updatedSince. Tombstones of ' +
          'deletions are kept for the tombstone retention (90 days by default): a cursor or ' +
          'updatedSince from before the pruned ones is answered 410 resync_required, and the ' +
          'client syncs again from the start.',
        tags: ['Contacts'],
        security: [{ bearerAuth: [] }],
        querystring: query,
        response: { 200: contactChangeListSchema, ...problemResponses('resync_required') },
      },
    },
    async (request) => {
      const { limit, cursor, updatedSince } = request.query as z.output<typeof query>;
      let after: ChangePosition = { xid: '0', seq: '0' };
      if (cursor !== undefined) {
        if (updatedSince !== undefined) {
          throw invalidCursor('cursor already says where to start: leave updatedSince out');
        }
        const decoded = decodeListCursor(cursor);
        const position =
          decoded && decoded.fingerprint === feedFingerprint
            ? positionOf('change', decoded.values)
            : undefined;
        if (position?.kind !== 'change') {
          throw invalidCursor('cursor is not a cursor of this change feed');
        }
        after = { xid: position.xid, seq: position.seq };
      }
      // A first walk that finds nothing starts next time at the first transaction that may still
      // commit: read that bound first, so the page's snapshot holds every change below it (every
      // transaction below it had ended), and every change from now on is at or above it.
      const latest: ChangePosition = {
        xid: cursor === undefined ? await finishedTransactionsBound(database) : '0',
        seq: '0',
      };
      const rows = await readContactChanges(database, { after, limit: limit + 1, updatedSince });
      // Read after the page: a prune that committed before the page's read is seen here, so a
      // page that lacks pruned tombstones is never answered.
      if (cursor !== undefined || updatedSince !== undefined) {
        const horizon = await readFeedHorizon(database, CONTACTS_FEED);
        if (
          horizon !== undefined &&
          (cursor !== undefined
            ? precedes(after, horizon)
            : Date.parse(updatedSince as string) < Date.parse(horizon.before))
        ) {
          throw resyncRequired();
        }
      }
      const changes = rows.slice(0, limit).map((change) =>
        change.type === 'changed'
          ? { type: change.type, contact: change.contact, cursor: cursorOf(change.position) }
          : {
              type: change.type,
              id: change.id,
              deletedAt: change.deletedAt,
              cursor: cursorOf(change.position),
            },
      );
      const nextCursor = changes.at(-1)?.cursor ?? cursor ?? cursorOf(latest);
      return { changes, nextCursor, hasMore: rows.length > limit };
    },
  );
}
