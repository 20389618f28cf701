/**
 * An EHR vendor whose inbound webhooks carry a bare HMAC-SHA256 digest of the raw body, as
 * lowercase hexadecimal, in one header, after an optional prefix (`sha256=` for athenahealth).
 */
export interface BodyDigestVendorProfile {
  /** The vendor key used in `POST /api/ehr/webhooks/{ehr}`. */
  readonly key: string;
  /** The vendor's name, for people. */
  readonly name: string;
  /** What is signed and how: HMAC-SHA256 over the raw body. */
  readonly scheme: 'hmac-sha256-body';
  /** The signature header, lower-case. */
  readonly header: string;
  /** What precedes the hexadecimal digest in the header value (`''` when nothing does). */
  readonly prefix: string;
}

/**
 * An EHR vendor that signs like FollowUp itself (and Stripe): a `t=<unix seconds>,v1=<hex>`
 * header, HMAC-SHA256 over `` `${t}.${rawBody}` ``, with a timestamp tolerance.
 */
export interface TimestampedVendorProfile {
  /** The vendor key used in `POST /api/ehr/webhooks/{ehr}`. */
  readonly key: string;
  /** The vendor's name, for people. */
  readonly name: string;
  /** What is signed and how: HMAC-SHA256 over `` `${t}.${rawBody}` ``. */
  readonly scheme: 'hmac-sha256-timestamped';
  /** The signature header, lower-case. */
  readonly header: string;
}

/**
 * A known EHR vendor that has no inbound webhook signature scheme. The reference server answers
 * `501 Not Implemented` for it.
 */
export interface UnsignedVendorProfile {
  /** The vendor key used in `POST /api/ehr/webhooks/{ehr}`. */
  readonly key: string;
  /** The vendor's name, for people. */
  readonly name: string;
  /** No inbound webhook scheme. */
  readonly scheme: 'none';
}

/** How one EHR vendor signs its inbound webhooks. */
export type VendorProfile =
  | BodyDigestVendorProfile
  | TimestampedVendorProfile
  | UnsignedVendorProfile;

/** A vendor profile that can be verified (every scheme but `none`). */
export type SignedVendorProfile = BodyDigestVendorProfile | TimestampedVendorProfile;

const builtInProfiles = {
  athenahealth: {
    key: 'athenahealth',
    name: 'athenahealth',
    scheme: 'hmac-sha256-body',
    header: 'x-hub-signature',
    prefix: 'sha256=',
  },
  akute: {
    key: 'akute',
    name: 'Akute Health',
    scheme: 'hmac-sha256-timestamped',
    header: 'x-akute-signature',
  },
  metriport: {
    key: 'metriport',
    name: 'Metriport',
    scheme: 'hmac-sha256-body',
    header: 'x-metriport-signature',
    prefix: '',
  },
  epic: { key: 'epic', name: 'Epic', scheme: 'none' },
  'oracle-health': { key: 'oracle-health', name: 'Oracle Health', scheme: 'none' },
  canvas: { key: 'canvas', name: 'Canvas Medical', scheme: 'none' },
} as const satisfies BuiltInVendorProfiles;

/** The built-in vendor profiles, by key. */
export interface BuiltInVendorProfiles {
  /** athenahealth: `X-Hub-Signature: sha256=<hex>` over the raw body. */
  readonly athenahealth: BodyDigestVendorProfile;
  /** Akute Health: `x-akute-signature: t=…,v1=…` over `` `${t}.${body}` ``. */
  readonly akute: TimestampedVendorProfile;
  /** Metriport: `x-metriport-signature: <hex>` over the raw body. */
  readonly metriport: BodyDigestVendorProfile;
  /** Epic: no inbound webhook scheme. */
  readonly epic: UnsignedVendorProfile;
  /** Oracle Health: no inbound webhook scheme. */
  readonly 'oracle-health': UnsignedVendorProfile;
  /** Canvas Medical: no inbound webhook scheme. */
  readonly canvas: UnsignedVendorProfile;
}

/** The key of a built-in vendor profile. */
export type VendorKey = keyof BuiltInVendorProfiles;

/**
 * The built-in EHR vendor profiles, by key: `athenahealth` (`X-Hub-Signature: sha256=<hex>` over
 * the body), `akute` (`x-akute-signature: t=…,v1=…` over `` `${t}.${body}` ``), `metriport`
 * (`x-metriport-signature: <hex>` over the body), and `epic`, `oracle-health` and `canvas`, which
 * have no inbound scheme.
 *
 * The record has no prototype, so looking up a key from a URL (`vendorProfiles[key]`) can only
 * find a real profile or `undefined`, never `toString` or `__proto__`. It is frozen.
 *
 * @example
 * ```ts
 * const profile = vendorProfiles[request.params.ehr as VendorKey];
 * if (profile === undefined) return reply.code(404).send();
 * if (profile.scheme === 'none') return reply.code(501).send();
 * verifyVendorSignature(profile, rawBody, request.headers, { secret });
 * ```
 */
export const vendorProfiles: BuiltInVendorProfiles = Object.freeze(
  Object.assign(
    Object.create(null) as BuiltInVendorProfiles,
    Object.fromEntries(
      Object.entries(builtInProfiles).map(([key, profile]) => [key, Object.freeze(profile)]),
    ),
  ),
);
