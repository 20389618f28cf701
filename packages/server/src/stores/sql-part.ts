/**
 * @internal The values of one statement, gathered while its text is built from parts: `add`
 * appends a value and answers its placeholder (`$1`, `$2`, … in the order added), so that parts
 * written apart (an audit entry, an outbox event) number their placeholders without knowing
 * each other.
 */
export interface SqlParameters {
  /** The statement's values, in placeholder order. */
  readonly values: unknown[];
  /** Appends `value` and answers its placeholder. */
  add(value: unknown): string;
}

/**
 * @internal A collector of a statement's values; `values` are those placeholders `$1`… already
 * stand for (the columns of an insert that the parts follow).
 */
export function createSqlParameters(values: readonly unknown[] = []): SqlParameters {
  const collected = [...values];
  return {
    values: collected,
    add(value) {
      collected.push(value);
      return `$${collected.length}`;
    },
  };
}

/**
 * @internal A write as part of a statement, for writes that go in one round trip with others:
 * `ctes` are common table expressions (`name AS (…)`, several joined by `, `) to put after
 * `WITH`, and `select` the final `SELECT` of a statement made of this part alone. Its
 * placeholders come from the statement's {@link SqlParameters}.
 */
export interface SqlPart {
  /** The part's common table expressions, without `WITH`. */
  readonly ctes: string;
  /** The `SELECT` that ends a statement made of this part alone. */
  readonly select: string;
}

/** @internal Runs a statement made of one part: `WITH <ctes> <select>`. */
export function statementOf(part: SqlPart): string {
  return `WITH ${part.ctes} ${part.select}`;
}
