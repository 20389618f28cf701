import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  auditEntryListSchema,
  contactCreatedEventSchema,
  contactSchema,
  createContactInputSchema,
  createDealInputSchema,
  createUserInputSchema,
  dealSchema,
  inboxSendInputSchema,
  updateContactInputSchema,
  updateUserInputSchema,
  userSchema,
} from '../index.js';

const contact = {
  id: 'con_1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'PATIENT',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

describe('resource schemas', () => {
  it('accept unknown fields and unknown enum values, and keep them', () => {
    const parsed = contactSchema.parse({ ...contact, lifecycle: 'ALUMNI', nickname: 'A' });
    expect(parsed).toEqual({ ...contact, lifecycle: 'ALUMNI', nickname: 'A' });
    expect(
      dealSchema.safeParse({
        id: 'deal_1',
        contactId: 'con_1',
        title: 't',
        stage: 'NEGOTIATION',
        amountCents: 100,
        currency: 'USD',
        createdAt: contact.createdAt,
        updatedAt: contact.updatedAt,
      }).success,
    ).toBe(true);
  });

  it('refuse wrong types, missing fields, non-UTC timestamps and fractional cents', () => {
    expect(contactSchema.safeParse({ ...contact, firstName: undefined }).success).toBe(false);
    expect(contactSchema.safeParse({ ...contact, lifecycle: 3 }).success).toBe(false);
    expect(contactSchema.safeParse({ ...contact, createdAt: '2026-01-01 00:00' }).success).toBe(
      false,
    );
    expect(
      contactSchema.safeParse({ ...contact, createdAt: '2026-01-01T00:00:00+02:00' }).success,
    ).toBe(false);
    expect(
      createDealInputSchema.safeParse({
        contactId: 'con_1',
        title: 't',
        amountCents: 1.5,
        currency: 'USD',
      }).success,
    ).toBe(false);
    expect(
      createDealInputSchema.safeParse({
        contactId: 'con_1',
        title: 't',
        amountCents: 1,
        currency: 'usd',
      }).success,
    ).toBe(false);
  });

  it('check addresses when written but read back any e-mail string (forward-compatible)', () => {
    expect(
      createContactInputSchema.safeParse({ firstName: 'A', lastName: 'B', email: 'nope' }).success,
    ).toBe(false);
    expect(contactSchema.parse({ ...contact, email: 'ada@例え.テスト' }).email).toBe(
      'ada@例え.テスト',
    );
    expect(contactSchema.safeParse({ ...contact, email: 42 }).success).toBe(false);
  });

  it("take a user's role from the four roles only when written, and read any role back", () => {
    const user = { email: 'ada@example.com', name: 'Ada' };
    expect(createUserInputSchema.safeParse({ ...user, role: 'AGENT' }).success).toBe(true);
    expect(createUserInputSchema.safeParse({ ...user, role: 'OWNER' }).success).toBe(false);
    expect(updateUserInputSchema.safeParse({ role: 'OWNER' }).success).toBe(false);
    expect(
      userSchema.parse({ ...user, id: 'usr_1', role: 'AUDITOR', createdAt: contact.createdAt })
        .role,
    ).toBe('AUDITOR');
  });

  it('accept timestamps of the ISO 8601 UTC shape only', () => {
    for (const good of ['2026-01-01T00:00:00Z', '2026-12-31T23:59:59.123456789Z']) {
      expect(contactSchema.safeParse({ ...contact, updatedAt: good }).success, good).toBe(true);
    }
    for (const bad of [
      '2026-01-01',
      '2026-01-01T00:00Z',
      '2026-01-01T00:00:00.Z',
      ' 2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00z',
    ]) {
      expect(contactSchema.safeParse({ ...contact, updatedAt: bad }).success, bad).toBe(false);
    }
  });

  it('refuse unknown fields in create and update inputs, so typos fail loudly', () => {
    expect(createContactInputSchema.safeParse({ firstName: 'A', lastName: 'B' }).success).toBe(
      true,
    );
    expect(
      createContactInputSchema.safeParse({ firstName: 'A', lastName: 'B', fristName: 'x' }).success,
    ).toBe(false);
    expect(updateContactInputSchema.safeParse({ email: null }).success).toBe(true);
    expect(updateContactInputSchema.safeParse({ email: 'not an email' }).success).toBe(false);
    expect(inboxSendInputSchema.safeParse({ from: 'a@example.com' }).success).toBe(false);
  });

  it('require nextCursor to be a string or null', () => {
    expect(auditEntryListSchema.safeParse({ entries: [], nextCursor: null }).success).toBe(true);
    expect(auditEntryListSchema.safeParse({ entries: [] }).success).toBe(false);
    expect(auditEntryListSchema.safeParse({ entries: [], nextCursor: 5 }).success).toBe(false);
  });

  it('convert to JSON Schema with the known values of open enums', () => {
    const schema = z.toJSONSchema(contactSchema) as {
      properties: Record<string, { type?: string; examples?: unknown[] }>;
      required: string[];
    };
    expect(schema.properties.lifecycle).toMatchObject({
      type: 'string',
      examples: ['LEAD', 'PROSPECT', 'PATIENT', 'INACTIVE'],
    });
    expect(schema.required).toEqual(
      expect.arrayContaining(['id', 'firstName', 'lastName', 'lifecycle', 'createdAt']),
    );
    expect(() => z.toJSONSchema(contactCreatedEventSchema)).not.toThrow();
  });
});
