import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { comparableValueSql, senderAddressSql } from './contact-erasure-store.js';

describe('senderAddressSql (on the database under test)', () => {
  const database = useTestDatabase();

  async function sql(expression: string, parameter: string): Promise<string | null> {
    const { rows } = await database().query<{ value: string | null }>(
      `SELECT ${expression} AS value FROM (SELECT $1::text AS input) AS given`,
      [parameter],
    );
    return rows[0]?.value ?? null;
  }

  // A display name never holds < or >; an address is any the SDK's inputs accept.
  const displayName = fc.string({ maxLength: 20 }).filter((name) => !/[<>\0]/.test(name));
  const space = fc.constantFrom('', ' ', '  ', '\t', '\n');

  it('reads the address of "Name <address>" and of a bare address as the e-mail compares', async () => {
    await fc.assert(
      fc.asyncProperty(
        displayName,
        fc.emailAddress(),
        space,
        space,
        fc.boolean(),
        async (name, address, before, after, upper) => {
          const written = upper ? address.toUpperCase() : address;
          const expected = await sql(comparableValueSql('input'), address);
          expect(await sql(senderAddressSql('input'), `${name}${before}<${written}>${after}`)).toBe(
            expected,
          );
          expect(await sql(senderAddressSql('input'), `${before}${written}${after}`)).toBe(
            expected,
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never reads another address as this one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), fc.emailAddress(), async (mine, theirs) => {
        fc.pre(mine.toLowerCase() !== theirs.toLowerCase());
        const address = await sql(senderAddressSql('input'), `Someone <${theirs}>`);
        expect(address).not.toBe(await sql(comparableValueSql('input'), mine));
        expect(await sql(senderAddressSql('input'), `x${mine}`)).not.toBe(
          await sql(comparableValueSql('input'), mine),
        );
      }),
      { numRuns: 40 },
    );
  });
});
