import { describe, expect, it } from 'vitest';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import { type PlanNode, preparedPlanOf } from '../../test/support/explained-plan.js';
import type { Queryable } from '../storage/database.js';
import { READ_CONTACT_TIMELINE, TIMELINE_KINDS } from './contact-timeline-store.js';

// A contact's timeline costs the entries it shows, not the size of the audit log: its statement
// reads `audit_entries` through `audit_entries_target` (migration 35), bounded by the target's
// type and id in each arm of its `WHERE`, and never scans the table whole. Explained as the
// server runs it, a prepared statement, with the plan made for its values and with the generic
// plan the plan cache settles on after five runs. PostgreSQL's statistics are those an ANALYZE
// leaves; PGlite never analyzes a table, so it plans without any (as in
// delivery-backlog-plans.test.ts).

/** How a plan reads `audit_entries`: each read's index and its conditions there, or `Seq Scan`. */
function auditReadsOf(node: PlanNode): string[] {
  const children = node.Plans ?? [];
  const bitmaps = children.filter((child) => child['Node Type'].startsWith('Bitmap'));
  // The deals' ids, an InitPlan under the read, are read before it, from other tables.
  const others = children.filter((child) => !bitmaps.includes(child)).flatMap(auditReadsOf);
  if (node['Relation Name'] !== 'audit_entries')
    return [...bitmaps.flatMap(auditReadsOf), ...others];
  if (node['Node Type'] === 'Seq Scan') return ['Seq Scan on audit_entries', ...others];
  // A bitmap heap scan reads what its index scans (one per arm of an OR) found.
  const reads =
    node['Index Name'] === undefined ? bitmaps.flatMap(indexReadsOf) : indexReadsOf(node);
  return [...reads, ...others];
}

function indexReadsOf(node: PlanNode): string[] {
  if (node['Index Name'] === undefined) return (node.Plans ?? []).flatMap(indexReadsOf);
  // A parameter's or a subquery's number is the planner's choice.
  const bound = (node['Index Cond'] ?? '(nothing)').replaceAll(/\$\d+/g, '$n');
  return [`by ${node['Index Name']} where ${bound}`];
}

/** The reads of `audit_entries` in the plan of the timeline's statement, prepared, run with `values`. */
async function auditReadsOfStatement(
  database: Queryable,
  values: unknown[],
  mode: 'force_generic_plan' | 'force_custom_plan',
): Promise<string[]> {
  return auditReadsOf(await preparedPlanOf(database, READ_CONTACT_TIMELINE, values, mode));
}

describe('the plan of a contact timeline', () => {
  const database = useTestDatabase();

  it('reads the audit log through audit_entries_target, by type and id, never whole', async () => {
    const at = '2026-03-01T09:00:00.000Z';
    // 1,000 contacts with a deal each, 50 audit entries about each contact and deal: 100,000.
    await database().query(
      `INSERT INTO contacts (id, first_name, last_name, lifecycle, created_at, updated_at)
       SELECT 'con_' || n, 'Ada', 'Lovelace', 'LEAD', $1, $1 FROM generate_series(1, 1000) AS n`,
      [at],
    );
    await database().query(
      `INSERT INTO deals (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
       SELECT 'deal_' || n, 'con_' || n, 'Knee', 'OPEN', 100, 'USD', $1, $1
         FROM generate_series(1, 1000) AS n`,
      [at],
    );
    await database().query(
      `INSERT INTO audit_entries (id, occurred_at, action, actor_type, target_type, target_id)
       SELECT 'aud_' || target.prefix || n || '_' || k, $1::timestamptz + k * interval '1 second',
              target.type || '.updated', 'system', target.type, target.prefix || n
         FROM generate_series(1, 1000) AS n, generate_series(1, 50) AS k,
              unnest(ARRAY['contact', 'deal'], ARRAY['con_', 'deal_']) AS target (type, prefix)`,
      [at],
    );
    if (testDriver === 'postgres') await database().query('ANALYZE contacts, deals, audit_entries');
    const values = ['con_500', 51, TIMELINE_KINDS];
    const plans = await database().transaction(async (transaction) => ({
      custom: await auditReadsOfStatement(transaction, values, 'force_custom_plan'),
      generic: await auditReadsOfStatement(transaction, values, 'force_generic_plan'),
    }));
    for (const [plan, reads] of Object.entries(plans)) {
      // Both arms read through the index: the contact's entries, and its deals'.
      expect({ plan, reads }).toEqual({
        plan,
        reads: expect.arrayContaining([
          expect.stringContaining("(target_type = 'contact'::text) AND (target_id = "),
          expect.stringContaining("(target_type = 'deal'::text) AND (target_id = ANY "),
        ]),
      });
      for (const read of reads) {
        // The contact's arm and its deals' arm each bounded by the target's type and id.
        expect({ plan, read }).toEqual({
          plan,
          read: expect.stringMatching(
            /^by audit_entries_target where \(\(target_type = '(contact|deal)'::text\) AND \(target_id = /,
          ),
        });
      }
    }
  });
});
