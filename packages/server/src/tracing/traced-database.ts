import { type Attributes, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Database, Queryable, QueryResult } from '../storage/database.js';
import type { ServerTracing } from './server-tracing.js';
import { statementLabel } from './statement-label.js';

/**
 * @internal What a failed statement's span says of the failure: PostgreSQL's five-character
 * SQLSTATE (`23505`), or the error's class name; never its message, which can quote the values
 * of a row (`Key (email)=(…) already exists`).
 */
export function statementErrorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'Error';
}

/**
 * Wraps a {@link Database} so that every statement sent through it within a span, alone or in a
 * transaction, is one client span, a child of the span active when it was sent (the request's,
 * the delivery attempt's); a transaction is one span `transaction` holding its statements'
 * spans. A statement sent outside any span (the delivery worker's polls, retention) makes none. A
 * statement's span is named by its leading keyword only (`SELECT`, `INSERT`, `WITH`…; see
 * `statementLabel`), with `db.system.name` and `db.operation.name`: never its text, its
 * parameters or its error's message. `start` wraps the database with it only when traces are on,
 * so that without them no statement pays for a span.
 *
 * @example
 * ```ts
 * const tracing = await startTracing(process.env);
 * const traced = tracing ? traceStatements(database, tracing) : database;
 * ```
 */
export function traceStatements(database: Database, tracing: ServerTracing): Database {
  const { tracer } = tracing;
  const common: Attributes = {
    'db.system.name': 'postgresql',
    'followup.database.driver': database.driver,
  };

  function inSpan<T>(name: string, operation: string, work: () => Promise<T>): Promise<T> {
    // Only within a span (a request's, a delivery attempt's): the worker's look for due
    // deliveries, every second on an idle server, and retention would otherwise each be a trace
    // of one statement.
    if (trace.getSpan(context.active()) === undefined) return work();
    const attributes = { ...common, 'db.operation.name': operation };
    return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await work();
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', statementErrorType(error));
        throw error;
      } finally {
        span.end();
      }
    });
  }

  const tracedQuery =
    (queryable: Queryable) =>
    <Row = Record<string, unknown>>(
      sql: string,
      params?: readonly unknown[],
    ): Promise<QueryResult<Row>> => {
      const label = statementLabel(sql);
      return inSpan(label, label, () => queryable.query<Row>(sql, params));
    };

  const traced: Database = {
    driver: database.driver,
    query: tracedQuery(database),
    transaction: <T>(callback: (transaction: Queryable) => Promise<T>) =>
      inSpan('transaction', 'transaction', () =>
        database.transaction((transaction) => callback({ query: tracedQuery(transaction) })),
      ),
    queuedQueries: () => database.queuedQueries?.() ?? 0,
    close: () => database.close(),
  };
  if (database.listen) {
    const listen = database.listen.bind(database);
    traced.listen = (channel, onNotify, options) => listen(channel, onNotify, options);
  }
  return traced;
}
