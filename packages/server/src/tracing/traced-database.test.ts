import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.js';
import { recordSpans, registerAsyncContext } from '../../test/support/recorded-spans.js';
import type { Database } from '../storage/database.js';
import { traceStatements } from './traced-database.js';

describe('traceStatements', () => {
  const recorded = recordSpans();
  let database: Database;
  let traced: Database;
  let unregister: () => void;
  beforeAll(async () => {
    unregister = registerAsyncContext();
    database = await openTestDatabase();
    traced = traceStatements(database, recorded.tracing);
  });
  afterAll(async () => {
    unregister();
    await database.close();
  });
  beforeEach(() => recorded.reset());

  // As a request's span does: what runs in `work` is its child.
  const inRequest = <T>(work: () => Promise<T>): Promise<T> =>
    recorded.tracing.tracer.startActiveSpan('request', async (span) => {
      try {
        return await work();
      } finally {
        span.end();
      }
    });
  const named = (name: string) => recorded.spans().filter((span) => span.name === name);

  it('makes each statement a client span named by its keyword, without its text or parameters', async () => {
    const { rows } = await inRequest(() =>
      traced.query<{ email: string }>('SELECT $1::text AS email', ['alice@example.com']),
    );
    expect(rows).toEqual([{ email: 'alice@example.com' }]);
    const [span] = named('SELECT');
    const [request] = named('request');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(span?.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'followup.database.driver': database.driver,
    });
  });

  it('makes no span for a statement outside any span (the worker polling, retention)', async () => {
    await traced.query('SELECT $1::int AS n', [1]);
    await traced.transaction((transaction) => transaction.query('SELECT $1::int AS n', [2]));
    expect(recorded.spans()).toEqual([]);
  });

  it("records a failure's SQLSTATE, never its message, which quotes the value", async () => {
    const failed = inRequest(() => traced.query('SELECT $1::int AS n', ['alice@example.com']));
    await expect(failed).rejects.toMatchObject({ code: '22P02' });
    await expect(failed).rejects.toThrow(/alice@example\.com/);
    const [span] = named('SELECT');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('22P02');
    expect(JSON.stringify([span?.attributes, span?.events, span?.status])).not.toContain('alice');
  });

  it("makes a transaction one span holding its statements' spans, and commits or rolls back as before", async () => {
    const answer = await inRequest(() =>
      traced.transaction(async (transaction) => {
        await transaction.query('SELECT $1::int AS n', [1]);
        return (await transaction.query<{ n: number }>('SELECT $1::int AS n', [2])).rows[0]?.n;
      }),
    );
    expect(answer).toBe(2);
    const [transactionSpan] = named('transaction');
    const statements = named('SELECT');
    expect(statements).toHaveLength(2);
    for (const statement of statements) {
      expect(statement.parentSpanContext?.spanId).toBe(transactionSpan?.spanContext().spanId);
    }
    await expect(
      inRequest(() =>
        traced.transaction(async (transaction) => {
          await transaction.query('SELECT $1::int AS n', ['x']);
        }),
      ),
    ).rejects.toMatchObject({ code: '22P02' });
    expect(named('transaction').at(-1)?.status.code).toBe(SpanStatusCode.ERROR);
  });
});
