import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BodyDigestVendorProfile, VendorKey } from '../src/index.js';
import { vendorProfiles } from '../src/index.js';
import { codeOf, entries } from './entries.js';

type Encoded = { utf8: string } | { hex: string };
type Expect = { ok: true; secretIndex: number; timestamp?: number } | { ok: false; code: string };

interface Vectors {
  hmac: { name: string; key: Encoded; data: Encoded; digest: string }[];
  sign: { name: string; payload: Encoded; secrets: Encoded[]; timestamp: number; header: string }[];
  verify: {
    name: string;
    payload: Encoded;
    secrets: Encoded[];
    header: string;
    now: number;
    tolerance?: number;
    expect: Expect;
  }[];
  vendor: {
    name: string;
    vendor: VendorKey;
    payload: Encoded;
    secrets: Encoded[];
    headers: Record<string, string>;
    now?: number;
    expect: Expect;
  }[];
  standard: {
    name: string;
    payload: Encoded;
    secrets: Encoded[];
    headers: Record<string, string>;
    now: number;
    tolerance?: number;
    expect:
      | (Expect & { ok: false })
      | { ok: true; secretIndex: number; timestamp: number; id: string };
  }[];
}

const vectors: Vectors = JSON.parse(
  readFileSync(new URL('../vectors/known-answer.json', import.meta.url), 'utf8'),
);

function bytes(value: Encoded): Uint8Array {
  return 'hex' in value ? Buffer.from(value.hex, 'hex') : Buffer.from(value.utf8, 'utf8');
}

/** A text value as a string, bytes as bytes: secrets are used the way users hold them. */
function natural(value: Encoded): string | Uint8Array {
  return 'hex' in value ? Buffer.from(value.hex, 'hex') : value.utf8;
}

/** Every payload is tried as it arrives from frameworks: bytes, an ArrayBuffer, and text. */
function payloadForms(value: Encoded): [string, string | Uint8Array | ArrayBuffer][] {
  const raw = bytes(value);
  const forms: [string, string | Uint8Array | ArrayBuffer][] = [
    ['Uint8Array', new Uint8Array(raw)],
    ['ArrayBuffer', new Uint8Array(raw).buffer],
  ];
  if ('utf8' in value) forms.push(['string', value.utf8]);
  return forms;
}

/** Checks a verification's result, or its error code, against a vector's expectation. */
async function expectOutcome(outcome: Promise<unknown>, expected: Expect, form: string) {
  if (expected.ok) {
    await expect(outcome, form).resolves.toEqual({
      secretIndex: expected.secretIndex,
      timestamp: expected.timestamp,
    });
  } else {
    expect(await codeOf(outcome), form).toBe(expected.code);
  }
}

const digestProfile: BodyDigestVendorProfile = {
  key: 'known-answer',
  name: 'known answer',
  scheme: 'hmac-sha256-body',
  header: 'x-digest',
  prefix: '',
};

describe.each(entries)('known-answer vectors, $name entry', (entry) => {
  it.each(vectors.hmac)('HMAC-SHA256: $name', async (vector) => {
    await expect(
      entry.verifyVendorSignature(
        digestProfile,
        bytes(vector.data),
        { 'x-digest': vector.digest },
        {
          secret: bytes(vector.key),
        },
      ),
    ).resolves.toEqual({ secretIndex: 0, timestamp: undefined });
  });

  it.each(vectors.sign)('sign: $name', async (vector) => {
    for (const [, payload] of payloadForms(vector.payload)) {
      const header = await entry.signPayload(payload, {
        secret: vector.secrets.map(natural),
        timestamp: vector.timestamp,
      });
      expect(header).toBe(vector.header);
    }
  });

  it.each(vectors.verify)('verify: $name', async (vector) => {
    for (const [form, payload] of payloadForms(vector.payload)) {
      const options = {
        secret: vector.secrets.map(natural),
        now: vector.now,
        ...(vector.tolerance === undefined ? {} : { tolerance: vector.tolerance }),
      };
      await expectOutcome(
        entry.verifySignature(payload, vector.header, options),
        vector.expect,
        form,
      );
    }
  });

  it.each(vectors.vendor)('vendor: $name', async (vector) => {
    const profile = vendorProfiles[vector.vendor];
    if (profile.scheme === 'none') throw new Error(`${vector.vendor} has no scheme`);
    for (const [form, payload] of payloadForms(vector.payload)) {
      const outcome = entry.verifyVendorSignature(profile, payload, vector.headers, {
        secret: vector.secrets.map(natural),
        ...(vector.now === undefined ? {} : { now: vector.now }),
      });
      await expectOutcome(outcome, vector.expect, form);
    }
  });

  // The vendors' own signatures, computed independently by scripts/make-vectors.py: signing the
  // payload as the vendor does must write exactly the header value the vector verifies.
  it.each(vectors.vendor.filter((vector) => vector.expect.ok))(
    'sign as a vendor: $name',
    async (vector) => {
      const profile = vendorProfiles[vector.vendor];
      if (profile.scheme === 'none') throw new Error(`${vector.vendor} has no scheme`);
      const header = Object.entries(vector.headers).find(
        ([name]) => name.toLowerCase() === profile.header,
      )?.[1];
      const timestamp = vector.expect.ok ? vector.expect.timestamp : undefined;
      for (const [form, payload] of payloadForms(vector.payload)) {
        const signed = await entry.signVendorPayload(profile, payload, {
          secret: natural(vector.secrets[0] as Encoded),
          ...(timestamp === undefined ? {} : { timestamp }),
        });
        expect(signed, form).toBe(header);
      }
    },
  );

  it.each(vectors.standard)('Standard Webhooks: $name', async (vector) => {
    for (const [form, payload] of payloadForms(vector.payload)) {
      for (const headers of [vector.headers, new Headers(vector.headers)]) {
        const outcome = entry.verifyStandardWebhook(payload, headers, {
          secret: vector.secrets.map(natural),
          now: vector.now,
          ...(vector.tolerance === undefined ? {} : { tolerance: vector.tolerance }),
        });
        if (vector.expect.ok) {
          const { secretIndex, timestamp, id } = vector.expect;
          await expect(outcome, form).resolves.toEqual({ secretIndex, timestamp, id });
        } else {
          expect(await codeOf(outcome), form).toBe(vector.expect.code);
        }
      }
    }
  });
});

it('has vectors of every kind', () => {
  expect(vectors.hmac.length).toBeGreaterThanOrEqual(7);
  expect(vectors.sign.length).toBeGreaterThanOrEqual(6);
  expect(vectors.verify.length).toBeGreaterThanOrEqual(30);
  expect(vectors.standard.length).toBeGreaterThanOrEqual(29);
  expect(vectors.standard.filter((vector) => vector.expect.ok).length).toBeGreaterThanOrEqual(10);
  expect(new Set(vectors.vendor.map((vector) => vector.vendor))).toEqual(
    new Set(['athenahealth', 'akute', 'metriport']),
  );
});
