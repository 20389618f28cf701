import { describe, expect, it } from 'vitest';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import { type PlanNode, preparedPlanOf } from '../../test/support/explained-plan.js';
import { COUNT_ENDPOINT_ATTEMPTS, READ_ENDPOINT_HEALTH } from './endpoint-attempt-stats-store.js';
import { COUNT_ATTEMPTS_BY_HOUR, overviewHours } from './overview-store.js';

// The console's figures of recent attempts (the overview's chart and endpoint list, an endpoint
// page's success rate) cost the attempts of their period, not the 30 days of attempts and
// deliveries kept: each statement reads `delivery_attempts` through `delivery_attempts_started_at`
// (migration 36), bounded at both ends, and `deliveries` by its key, never either table whole.
// Explained as the server runs them, prepared, with the plan made for their values and with the
// generic plan; PostgreSQL's statistics are those an ANALYZE leaves, and PGlite, which never
// analyzes a table, plans without any (as in delivery-backlog-plans.test.ts).

/** Tables that grow with the history kept. */
const HISTORY = new Set(['delivery_attempts', 'deliveries']);

/** How a plan reads the history's tables: `<table> by <index> where <bound>`, or `Seq Scan`. */
function historyReadsOf(node: PlanNode, relation = node['Relation Name']): string[] {
  const children = node.Plans ?? [];
  if (node['Index Name'] !== undefined && relation !== undefined && HISTORY.has(relation)) {
    // A parameter's or a subquery's number is the planner's choice.
    const bound = (node['Index Cond'] ?? '(nothing)').replaceAll(/\$\d+/g, '$n');
    return [`${relation} by ${node['Index Name']} where ${bound}`];
  }
  if (node['Node Type'] === 'Seq Scan' && relation !== undefined && HISTORY.has(relation)) {
    return [`Seq Scan on ${relation}`];
  }
  // A bitmap heap scan's relation is read through the index scans under it.
  const under = node['Node Type'] === 'Bitmap Heap Scan' ? relation : undefined;
  return children.flatMap((child) => historyReadsOf(child, child['Relation Name'] ?? under));
}

const NOW = Date.parse('2026-03-31T09:30:00.000Z');
const DAY_MS = 86_400_000;

describe('the plans of the console’s recent attempts', () => {
  const database = useTestDatabase();

  it('read the period’s attempts by delivery_attempts_started_at and deliveries by key', async () => {
    // 10 endpoints; 20,000 deliveries, one every 2 minutes over 28 days, each with 5 attempts a
    // second apart (100,000), a seventh of them dead: the overview's 24 hours hold 3,600.
    await database().query(
      `INSERT INTO webhook_endpoints (id, url, events, state, secret, created_at, updated_at)
       SELECT 'wep_' || n, 'https://e' || n || '.example.com/', '{*}', 'active', 'whsec_x', $1, $1
         FROM generate_series(0, 9) AS n`,
      ['2026-01-01T00:00:00.000Z'],
    );
    await database().query(
      `WITH events AS (
         INSERT INTO outbox_events (id, event, data, created_at, dispatched_at)
         SELECT 'evt_' || n, 'contact.created', '{}', $1::timestamptz - n * interval '2 minutes', $1
           FROM generate_series(0, 19999) AS n)
       INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, created_at)
       SELECT 'dlv_' || n, 'evt_' || n, 'wep_' || n % 10,
              CASE WHEN n % 7 = 0 THEN 'dead' ELSE 'delivered' END, 5,
              $1::timestamptz - n * interval '2 minutes'
         FROM generate_series(0, 19999) AS n`,
      [new Date(NOW)],
    );
    await database().query(
      `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status)
       SELECT 'dlv_' || n, $1::timestamptz - n * interval '2 minutes' + k * interval '1 second',
              10, CASE WHEN k = 4 AND n % 7 <> 0 THEN 204 ELSE 500 END
         FROM generate_series(0, 19999) AS n, generate_series(0, 4) AS k`,
      [new Date(NOW)],
    );
    if (testDriver === 'postgres') {
      await database().query(
        'ANALYZE webhook_endpoints, outbox_events, deliveries, delivery_attempts',
      );
    }
    const { start, end } = overviewHours(NOW);
    const since = new Date(NOW - DAY_MS);
    const statements = {
      'attempts by hour': [COUNT_ATTEMPTS_BY_HOUR, [start, end]],
      'endpoint health': [READ_ENDPOINT_HEALTH, [since, new Date(NOW), 10]],
      "an endpoint's attempts": [COUNT_ENDPOINT_ATTEMPTS, ['wep_3', since, new Date(NOW)]],
    } as const;
    for (const [name, [sql, values]] of Object.entries(statements)) {
      for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
        const plan = await database().transaction((transaction) =>
          preparedPlanOf(transaction, sql, [...values], mode),
        );
        const reads = historyReadsOf(plan);
        // The period's attempts, bounded at both ends, from the index on their start.
        expect({ name, mode, reads }).toEqual({
          name,
          mode,
          reads: expect.arrayContaining([
            expect.stringMatching(
              /^delivery_attempts by delivery_attempts_started_at where \(\(started_at >= .+\) AND \(started_at <=? .+\)\)$/,
            ),
          ]),
        });
        for (const read of reads) {
          // Anything else by key: a delivery by its id, a delivery's later attempts by its id.
          expect({ name, mode, read }).toEqual({
            name,
            mode,
            read: expect.stringMatching(
              /^(delivery_attempts by delivery_attempts_started_at where|deliveries by deliveries_pkey where \(id = a\.delivery_id\)$|delivery_attempts by delivery_attempts_delivery_id where \(\(delivery_id = a\.delivery_id\) AND \(seq > a\.seq\)\)$)/,
            ),
          });
        }
      }
    }
  });
});
