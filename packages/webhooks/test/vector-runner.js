// Runs the known-answer vectors through an entry of the built package. Plain JavaScript with no
// imports, so that the same file runs in the browser (test/browser-runner.js), in Deno and in Bun
// (test/runtime-check.mjs).

/**
 * Runs every known-answer vector through one entry of the package (its functions may return
 * values or promises) and returns the names of the vectors that failed.
 */
export async function runVectors(web, vectors) {
  const bytes = (value) =>
    value.hex !== undefined
      ? Uint8Array.from(value.hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16))
      : new TextEncoder().encode(value.utf8);
  const natural = (value) => (value.hex !== undefined ? bytes(value) : value.utf8);
  const failures = [];
  const outcome = async (run) => {
    try {
      return { ok: true, value: await run() };
    } catch (error) {
      return { ok: false, code: error.code, message: String(error) };
    }
  };
  const check = (name, got, expected) => {
    const pass = expected.ok
      ? got.ok &&
        got.value.secretIndex === expected.secretIndex &&
        got.value.timestamp === expected.timestamp
      : !got.ok && got.code === expected.code;
    if (!pass) failures.push(`${name}: ${JSON.stringify(got)}`);
  };
  for (const vector of vectors.sign) {
    const header = await web.signPayload(bytes(vector.payload), {
      secret: vector.secrets.map(natural),
      timestamp: vector.timestamp,
    });
    if (header !== vector.header) failures.push(`sign ${vector.name}`);
  }
  for (const vector of vectors.verify) {
    const got = await outcome(() =>
      web.verifySignature(bytes(vector.payload).buffer, vector.header, {
        secret: vector.secrets.map(natural),
        now: vector.now,
        ...(vector.tolerance === undefined ? {} : { tolerance: vector.tolerance }),
      }),
    );
    check(`verify ${vector.name}`, got, vector.expect);
  }
  // Again with the forms most callers use, one secret given alone and the body as bytes or
  // text, twice each: the second call finds the secret's key cached (the Node entry's fast path).
  for (const vector of vectors.verify) {
    if (vector.secrets.length !== 1) continue;
    for (const payload of [bytes(vector.payload), natural(vector.payload)]) {
      for (const round of [1, 2]) {
        const got = await outcome(() =>
          web.verifySignature(payload, vector.header, {
            secret: natural(vector.secrets[0]),
            now: vector.now,
            ...(vector.tolerance === undefined ? {} : { tolerance: vector.tolerance }),
          }),
        );
        check(
          `verify ${vector.name} (one secret, ${typeof payload}, call ${round})`,
          got,
          vector.expect,
        );
      }
    }
  }
  for (const vector of vectors.vendor) {
    const got = await outcome(() =>
      web.verifyVendorSignature(
        web.vendorProfiles[vector.vendor],
        bytes(vector.payload),
        new Headers(vector.headers),
        {
          secret: vector.secrets.map(natural),
          ...(vector.now === undefined ? {} : { now: vector.now }),
        },
      ),
    );
    check(`vendor ${vector.name}`, got, vector.expect);
  }
  // Standard Webhooks requests: the three headers, the key bytes of the secret's base64.
  for (const vector of vectors.standard) {
    const got = await outcome(() =>
      web.verifyStandardWebhook(bytes(vector.payload), new Headers(vector.headers), {
        secret: vector.secrets.map(natural),
        now: vector.now,
        ...(vector.tolerance === undefined ? {} : { tolerance: vector.tolerance }),
      }),
    );
    check(`standard ${vector.name}`, got, vector.expect);
    if (vector.expect.ok && got.ok && got.value.id !== vector.expect.id) {
      failures.push(`standard ${vector.name}: id ${got.value.id}`);
    }
  }
  const digestProfile = {
    key: 'kat',
    name: 'kat',
    scheme: 'hmac-sha256-body',
    header: 'x-digest',
    prefix: '',
  };
  for (const vector of vectors.hmac) {
    const got = await outcome(() =>
      web.verifyVendorSignature(
        digestProfile,
        bytes(vector.data),
        { 'x-digest': vector.digest },
        {
          secret: bytes(vector.key),
        },
      ),
    );
    check(`hmac ${vector.name}`, got, { ok: true, secretIndex: 0, timestamp: undefined });
  }
  return {
    failures,
    counted:
      vectors.sign.length +
      vectors.verify.length +
      vectors.vendor.length +
      vectors.hmac.length +
      vectors.standard.length,
    standard: vectors.standard.length,
  };
}
