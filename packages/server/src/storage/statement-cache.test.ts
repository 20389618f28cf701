import { DatabaseError } from 'pg-protocol';
import { describe, expect, it } from 'vitest';
import {
  type PreparedStatement,
  replannedAsTablesGrow,
  runPrepared,
  StatementCache,
} from './statement-cache.js';

function planChanged(): DatabaseError {
  const error = new DatabaseError('cached plan must not change result type', 0, 'error');
  error.code = '0A000';
  return error;
}

describe('StatementCache', () => {
  it('names each text once, and runs texts beyond its capacity unnamed', () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 2 });
    const first = cache.statementOf('SELECT 1');
    expect(first.name).toBe('x1');
    expect(cache.statementOf('SELECT 1')).toBe(first);
    expect(cache.statementOf('SELECT 2').name).toBe('x2');
    expect(cache.statementOf('SELECT 3')).toEqual({
      name: undefined,
      shape: undefined,
      generic: false,
    });
    // The texts it began with keep their names.
    expect(cache.statementOf('SELECT 1')).toBe(first);
  });

  it('names a marked text again once its plan is as old as the cache allows', () => {
    let now = 10_000;
    const cache = new StatementCache<string>({
      prefix: 'x',
      capacity: 3,
      replanAfterMs: 1_000,
      now: () => now,
    });
    const marked = replannedAsTablesGrow('SELECT $1::int AS replanned');
    expect(marked).toBe('SELECT $1::int AS replanned');
    const first = cache.statementOf(marked);
    first.shape = 'shape';
    expect(first.name).toBe('x1');
    // Run with its one generic plan; an unmarked text as the database chooses.
    expect(first.generic).toBe(true);
    expect(cache.statementOf('SELECT 1')).toMatchObject({ name: 'x2', generic: false });
    now += 999;
    expect(cache.statementOf(marked)).toBe(first);
    now += 1;
    // A second old: a new name, prepared and planned anew; the old one is retired once.
    const second = cache.statementOf(marked);
    expect(second).toEqual({ name: 'x3', shape: undefined, generic: true });
    expect(cache.takeRetired()).toEqual(['x1']);
    expect(cache.statementOf(marked)).toBe(second);
    // The new name is a second old a second after it was given, not after the first.
    now += 999;
    expect(cache.statementOf(marked)).toBe(second);
    now += 1;
    expect(cache.statementOf(marked).name).toBe('x4');
    // An unmarked text keeps its name however old.
    expect(cache.statementOf('SELECT 1').name).toBe('x2');
    expect(cache.takeRetired()).toEqual(['x3']);
  });

  it('keeps a marked text named and planned as any other without a replanning age', () => {
    let now = 0;
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 2, now: () => now });
    const marked = replannedAsTablesGrow('SELECT $1::int AS kept_by_postgres');
    const first = cache.statementOf(marked);
    expect(first).toMatchObject({ name: 'x1', generic: false });
    now += 3_600_000;
    expect(cache.statementOf(marked)).toBe(first);
    expect(cache.takeRetired()).toEqual([]);
  });

  it('gives a text planned again a name never given before, and retires the old one once', () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 2 });
    cache.statementOf('SELECT 1').shape = 'shape';
    cache.statementOf('SELECT 2');
    cache.replan('SELECT 1');
    const again = cache.statementOf('SELECT 1');
    expect(again).toEqual({ name: 'x3', shape: undefined, generic: false });
    expect(cache.takeRetired()).toEqual(['x1']);
    expect(cache.takeRetired()).toEqual([]);
    // Still within its capacity: the new name took the old one's place.
    expect(cache.statementOf('SELECT 3').name).toBeUndefined();
  });
});

describe('runPrepared', () => {
  it('runs a statement whose plan no longer fits once more, planned anew, when it may retry', async () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 10 });
    const names: (string | undefined)[] = [];
    const result = await runPrepared({
      cache,
      sql: 'SELECT * FROM t WHERE a = $1',
      retry: true,
      run: async (statement: PreparedStatement<string>) => {
        names.push(statement.name);
        if (names.length === 1) throw planChanged();
        return 'rows';
      },
    });
    expect(result).toBe('rows');
    expect(names).toEqual(['x1', 'x2']);
    expect(cache.takeRetired()).toEqual(['x1']);
  });

  it('throws at once inside a transaction, and the next run plans the text anew', async () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 10 });
    const names: (string | undefined)[] = [];
    const run = async (statement: PreparedStatement<string>) => {
      names.push(statement.name);
      if (names.length === 1) throw planChanged();
      return 'rows';
    };
    const sql = 'SELECT * FROM t WHERE a = $1';
    await expect(runPrepared({ cache, sql, retry: false, run })).rejects.toMatchObject({
      code: '0A000',
    });
    expect(await runPrepared({ cache, sql, retry: false, run })).toBe('rows');
    expect(names).toEqual(['x1', 'x2']);
  });

  it('leaves every other error, and an unnamed statement, as they are', async () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 1 });
    let runs = 0;
    const unique = new DatabaseError('duplicate key', 0, 'error');
    unique.code = '23505';
    await expect(
      runPrepared({
        cache,
        sql: 'INSERT INTO t VALUES ($1)',
        retry: true,
        run: async () => {
          runs++;
          throw unique;
        },
      }),
    ).rejects.toBe(unique);
    await expect(
      runPrepared({
        cache,
        sql: 'SELECT $1::integer',
        retry: true,
        run: async (statement) => {
          runs++;
          expect(statement.name).toBeUndefined();
          throw planChanged();
        },
      }),
    ).rejects.toMatchObject({ code: '0A000' });
    expect(runs).toBe(2);
    expect(cache.statementOf('INSERT INTO t VALUES ($1)').name).toBe('x1');
    expect(cache.takeRetired()).toEqual([]);
  });
});
