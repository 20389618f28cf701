import { DatabaseError } from 'pg-protocol';
import { describe, expect, it } from 'vitest';
import {
  type PreparedStatement,
  planEachRun,
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
    expect(cache.statementOf('SELECT 3')).toEqual({ name: undefined, shape: undefined });
    // The texts it began with keep their names.
    expect(cache.statementOf('SELECT 1')).toBe(first);
  });

  it('runs a text marked to be planned on each run unnamed, and names the others', () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 2 });
    const marked = planEachRun('SELECT $1::int AS planned_each_run');
    expect(marked).toBe('SELECT $1::int AS planned_each_run');
    expect(cache.statementOf(marked)).toEqual({ name: undefined, shape: undefined });
    // A fresh statement each time: what one run learned is never kept for the next.
    const first = cache.statementOf(marked);
    first.shape = 'shape';
    expect(cache.statementOf(marked)).toEqual({ name: undefined, shape: undefined });
    // It takes no name from the capacity.
    expect(cache.statementOf('SELECT 1').name).toBe('x1');
    expect(cache.statementOf('SELECT 2').name).toBe('x2');
  });

  it('gives a text planned again a name never given before, and retires the old one once', () => {
    const cache = new StatementCache<string>({ prefix: 'x', capacity: 2 });
    cache.statementOf('SELECT 1').shape = 'shape';
    cache.statementOf('SELECT 2');
    cache.replan('SELECT 1');
    const again = cache.statementOf('SELECT 1');
    expect(again).toEqual({ name: 'x3', shape: undefined });
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
