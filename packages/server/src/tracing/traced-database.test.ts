import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.js';
import { recordSpans } from '../../test/support/recorded-spans.js';
import type { Database } from '../storage/database.js';
import { traceStatements } from './traced-database.js';

describe('traceStatements', () => {
  const recorded = recordSpans();
  let database: Database;
  let traced: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
    traced = traceStatements(database, recorded.tracing);
  });
  afterAll(() => database.close());
  beforeEach(() => recorded.reset());

  it('makes each statement a client span named by its keyword, without its text or parameters', async () => {
    const { rows } = await traced.query<{ email: string }>('SELECT $1::text AS email', [
      'alice@example.com',
    ]);
    expect(rows).toEqual([{ email: 'alice@example.com' }]);
    const [span] = recorded.spans();
    expect(span?.name).toBe('SELECT');
    expect(span?.kind).toBe(SpanKind.CLIENT);
    expect(span?.attributes).toEqual({
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'followup.database.driver': database.driver,
    });
  });

  it("records a failure's SQLSTATE, never its message, which quotes the value", async () => {
    const failed = traced.query('SELECT $1::int AS n', ['alice@example.com']);
    await expect(failed).rejects.toMatchObject({ code: '22P02' });
    await expect(failed).rejects.toThrow(/alice@example\.com/);
    const [span] = recorded.spans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('22P02');
    expect(JSON.stringify([span?.attributes, span?.events, span?.status])).not.toContain('alice');
  });

  it('makes a transaction one span beside its statements, and commits or rolls back as before', async () => {
    const answer = await traced.transaction(async (transaction) => {
      await transaction.query('SELECT $1::int AS n', [1]);
      return (await transaction.query<{ n: number }>('SELECT $1::int AS n', [2])).rows[0]?.n;
    });
    expect(answer).toBe(2);
    expect(recorded.spans().map((span) => span.name)).toEqual(['SELECT', 'SELECT', 'transaction']);
    await expect(
      traced.transaction(async (transaction) => {
        await transaction.query('SELECT $1::int AS n', ['x']);
      }),
    ).rejects.toMatchObject({ code: '22P02' });
    expect(recorded.spans().at(-1)).toMatchObject({
      name: 'transaction',
      status: { code: SpanStatusCode.ERROR },
    });
  });
});
