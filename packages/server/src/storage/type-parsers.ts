import pg from 'pg';
import { isoTimestamp } from './iso-timestamp.js';

/**
 * @internal The type parsers of both drivers' `pg` clients: `pg`'s own, but `timestamptz`, which
 * stays an ISO 8601 UTC string (see {@link Queryable}).
 */
export const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary'
      ? isoTimestamp
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};
