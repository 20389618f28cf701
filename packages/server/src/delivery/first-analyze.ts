import type { Database } from '../storage/database.js';
import {
  analyzeDeliveryTables,
  type DeliveryTable,
  readDeliveryTableStatistics,
} from '../stores/planner-statistics-store.js';

/**
 * @internal Rows a never-analyzed delivery table changes by before the worker analyzes it:
 * autovacuum's own threshold for these tables (migration 27).
 */
export const FIRST_ANALYZE_THRESHOLD = 1_000;

/** @internal How often the worker looks, until both tables have statistics. */
export const FIRST_ANALYZE_INTERVAL_MS = 1_000;

/** @internal What one look of {@link analyzeNewDeliveryTables} did. */
export interface FirstAnalyze {
  /** The tables it analyzed. */
  analyzed: DeliveryTable[];
  /** Whether every delivery table has statistics now: nothing is left to watch. */
  done: boolean;
}

/**
 * @internal One look: analyzes each delivery table (`deliveries`, `outbox_events`) that
 * PostgreSQL has never analyzed and that has changed by `threshold` rows or more.
 *
 * A named prepared statement settles on a generic plan at its sixth run and keeps it until an
 * `ANALYZE` of its tables. On a new database the worker's statements reach their sixth run while
 * the tables hold a few dozen rows, where reading a table whole is the cheapest plan, and
 * autovacuum, which visits a database once a minute (`autovacuum_naptime`), may not analyze them
 * for that long: at 1,000 webhooks a second, the attempts' update then read all of `deliveries`
 * for every batch, and the server fell behind. Once analyzed, the plans read by index at any size
 * (`stores/delivery-backlog-plans.test.ts`), and autovacuum keeps the statistics from then on.
 */
export async function analyzeNewDeliveryTables(
  database: Database,
  threshold = FIRST_ANALYZE_THRESHOLD,
): Promise<FirstAnalyze> {
  const statistics = await readDeliveryTableStatistics(database);
  const due = statistics
    .filter((table) => !table.analyzed && table.changed >= threshold)
    .map((table) => table.table);
  await analyzeDeliveryTables(database, due);
  const waiting = statistics.filter((table) => !table.analyzed && !due.includes(table.table));
  return { analyzed: due, done: waiting.length === 0 };
}

/** @internal A running {@link watchFirstAnalyze}. */
export interface FirstAnalyzeWatch {
  /** Resolves once the look under way, if any, has ended (and scheduled the next, if any). */
  settled(): Promise<void>;
  /** Ends the watch: no look starts after it; waits for one under way. */
  stop(): Promise<void>;
}

/** @internal Options of {@link watchFirstAnalyze}. */
export interface FirstAnalyzeWatchOptions {
  database: Database;
  /** Called with a look's error; the watch looks again after the interval. */
  onError: (error: unknown) => void;
  /** Between looks, in milliseconds ({@link FIRST_ANALYZE_INTERVAL_MS}). */
  intervalMs?: number;
  /** Runs `run` after `ms`; returns how to cancel it. An unreferenced `setTimeout` by default. */
  schedule?: (run: () => void, ms: number) => () => void;
}

function unreferencedTimeout(run: () => void, ms: number): () => void {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * @internal Runs {@link analyzeNewDeliveryTables} now and then every interval, on PostgreSQL,
 * until both delivery tables have statistics; `stop` ends it and waits for a look under way.
 */
export function watchFirstAnalyze(options: FirstAnalyzeWatchOptions): FirstAnalyzeWatch {
  const intervalMs = options.intervalMs ?? FIRST_ANALYZE_INTERVAL_MS;
  const schedule = options.schedule ?? unreferencedTimeout;
  let stopped = false;
  let cancel: (() => void) | undefined;
  let current: Promise<void> = Promise.resolve();

  function look(): void {
    cancel = undefined;
    current = analyzeNewDeliveryTables(options.database).then(
      ({ done }) => {
        if (!done && !stopped) cancel = schedule(look, intervalMs);
      },
      (error: unknown) => {
        if (stopped) return;
        options.onError(error);
        cancel = schedule(look, intervalMs);
      },
    );
  }

  look();
  return {
    settled: () => current,
    async stop() {
      stopped = true;
      cancel?.();
      await current;
    },
  };
}
