#!/usr/bin/env python3
"""Writes vectors/known-answer.json: known-answer vectors for @followup/webhooks.

The digests are computed here with Python's own hmac and hashlib, independently of the
package's TypeScript, so the package's tests (which run both the node:crypto entry and the
Web Crypto entry over this file) check the code against a second implementation. Published
vectors (RFC 4231, the Standard Webhooks / Svix signing test) are asserted against their
published digests before they are written.

The "standard" vectors are Standard Webhooks requests (webhook-id, webhook-timestamp,
webhook-signature), including the published test, the key bytes of a "whsec_" secret and of a
secret without that prefix, and the ways a request goes wrong.

Run: python3 scripts/make-vectors.py  (from packages/webhooks)
"""
import base64
import hashlib
import hmac
import json
import pathlib


def digest(key: bytes, data: bytes) -> str:
    return hmac.new(key, data, hashlib.sha256).hexdigest()


def enc(data: bytes) -> dict:
    """A payload or secret, as UTF-8 text when it is valid UTF-8, otherwise as hex."""
    try:
        return {"utf8": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"hex": data.hex()}


def sig_header(t: int, secrets: list, payload: bytes) -> str:
    prefix = f"{t}.".encode()
    return f"t={t}" + "".join(f",v1={digest(s, prefix + payload)}" for s in secrets)


# RFC 4231, HMAC-SHA-256 test cases 1, 2, 3, 4, 6 and 7 (5 is a truncated output).
RFC4231 = [
    ("RFC 4231 test case 1", b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    ("RFC 4231 test case 2", b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    ("RFC 4231 test case 3", b"\xaa" * 20, b"\xdd" * 50,
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    ("RFC 4231 test case 4", bytes(range(1, 26)), b"\xcd" * 50,
     "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    ("RFC 4231 test case 6", b"\xaa" * 131,
     b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ("RFC 4231 test case 7", b"\xaa" * 131,
     b"This is a test using a larger than block-size key and a larger than block-size data."
     b" The key needs to be hashed before being used by the HMAC algorithm.",
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
]

hmac_vectors = []
for name, key, data, published in RFC4231:
    assert digest(key, data) == published, name
    hmac_vectors.append({"name": name, "key": enc(key), "data": enc(data), "digest": published})

# Standard Webhooks (Svix) signing test: HMAC-SHA256 keyed by the base64-decoded secret over
# "<msg id>.<timestamp>.<payload>", published as base64.
sw_secret = base64.b64decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
sw_content = b'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}'
sw_published = base64.b64decode("g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=").hex()
assert digest(sw_secret, sw_content) == sw_published
hmac_vectors.append({
    "name": "Standard Webhooks signing test (whsec_MfKQ…, msg_p5jX…, t=1614265330)",
    "key": enc(sw_secret), "data": enc(sw_content), "digest": sw_published,
})

T = 1700000000
SECRET = b"whsec_7f3b2c1d9e8a4f6b0c5d2e1f3a9b8c7d"
OLD = b"whsec_old_2f8e1d7c6b5a4f3e"
BODY = b'{"id":"dlv_01J9Z3","event":"contact.created","createdAt":"2023-11-14T22:13:20Z","data":{"id":"con_01J9Z3","firstName":"Ada","lastName":"Lovelace"}}'
ODD = '{ "b" :1,"a":"caf\\u00e9 \u00e9\u00e8 \U0001F600",\n\t"z" : [ ] }'.encode()
INVALID_UTF8 = b'{"note":"\xff\xfe raw"}'
BINARY = bytes(range(256))

sign_vectors = [
    {"name": "contact.created body", "payload": enc(BODY), "secrets": [enc(SECRET)],
     "timestamp": T, "header": sig_header(T, [SECRET], BODY)},
    {"name": "empty body", "payload": enc(b""), "secrets": [enc(SECRET)],
     "timestamp": T, "header": sig_header(T, [SECRET], b"")},
    {"name": "odd whitespace, escaped and raw unicode, unusual key order", "payload": enc(ODD),
     "secrets": [enc(SECRET)], "timestamp": T, "header": sig_header(T, [SECRET], ODD)},
    {"name": "bytes that are not UTF-8", "payload": enc(INVALID_UTF8), "secrets": [enc(SECRET)],
     "timestamp": T, "header": sig_header(T, [SECRET], INVALID_UTF8)},
    {"name": "all 256 byte values, binary secret", "payload": enc(BINARY),
     "secrets": [enc(bytes(range(32)))], "timestamp": 0,
     "header": sig_header(0, [bytes(range(32))], BINARY)},
    {"name": "rotation: two secrets, one v1 each, in order", "payload": enc(BODY),
     "secrets": [enc(SECRET), enc(OLD)], "timestamp": T,
     "header": sig_header(T, [SECRET, OLD], BODY)},
]

good = sig_header(T, [SECRET], BODY)
good_digest = digest(SECRET, f"{T}.".encode() + BODY)
old_digest = digest(OLD, f"{T}.".encode() + BODY)
other = digest(b"not the secret", f"{T}.".encode() + BODY)


def ok(index=0, t=T):
    return {"ok": True, "secretIndex": index, "timestamp": t}


def fail(code):
    return {"ok": False, "code": code}


verify_vectors = [
    ("valid", BODY, [SECRET], good, T, None, ok()),
    ("spaces and tabs around , and =", BODY, [SECRET], f"t = {T} ,\tv1= {good_digest} ", T, None, ok()),
    ("unknown schemes are skipped", BODY, [SECRET], f"v0=abc,t={T},v2=zz==,v1={good_digest}", T, None, ok()),
    ("several v1, the last one matches", BODY, [SECRET], f"t={T},v1={other},v1={good_digest}", T, None, ok()),
    ("upper-case hex digest", BODY, [SECRET], f"t={T},v1={good_digest.upper()}", T, None, ok()),
    ("rotation: second secret matches", BODY, [b"whsec_new_one", SECRET], good, T, None, ok(1)),
    ("rotation header, verifier holds the old secret", BODY, [OLD], sig_header(T, [SECRET, OLD], BODY), T, None, ok()),
    ("299 s old within default tolerance", BODY, [SECRET], good, T + 299, None, ok()),
    ("300 s old is still within default tolerance", BODY, [SECRET], good, T + 300, None, ok()),
    ("301 s old", BODY, [SECRET], good, T + 301, None, fail("timestamp_too_old")),
    ("301 s in the future", BODY, [SECRET], good, T - 301, None, fail("timestamp_in_future")),
    ("300 s in the future is within tolerance", BODY, [SECRET], good, T - 300, None, ok()),
    ("tolerance 0 means the same second", BODY, [SECRET], good, T + 1, 0, fail("timestamp_too_old")),
    ("tolerance 0, same second", BODY, [SECRET], good, T, 0, ok()),
    ("wrong secret", BODY, [b"whsec_wrong"], good, T, None, fail("no_matching_signature")),
    ("body changed by one byte", BODY.replace(b"Ada", b"Adb"), [SECRET], good, T, None, fail("no_matching_signature")),
    ("timestamp changed", BODY, [SECRET], f"t={T + 1},v1={good_digest}", T, None, fail("no_matching_signature")),
    ("invalid UTF-8 bytes differ", b'{"note":"\xfe\xff raw"}', [SECRET], sig_header(T, [SECRET], INVALID_UTF8), T, None, fail("no_matching_signature")),
    ("no v1 at all", BODY, [SECRET], f"t={T},v0={good_digest}", T, None, fail("no_matching_signature")),
    ("empty header", BODY, [SECRET], "", T, None, fail("missing_header")),
    ("no t", BODY, [SECRET], f"v1={good_digest}", T, None, fail("malformed_header")),
    ("t twice", BODY, [SECRET], f"t={T},t={T},v1={good_digest}", T, None, fail("malformed_header")),
    ("t not plain digits (sign)", BODY, [SECRET], f"t=+{T},v1={good_digest}", T, None, fail("malformed_header")),
    ("t not plain digits (exponent)", BODY, [SECRET], f"t=1.7e9,v1={good_digest}", T, None, fail("malformed_header")),
    ("t not plain digits (hex)", BODY, [SECRET], f"t=0x6553f100,v1={good_digest}", T, None, fail("malformed_header")),
    ("t empty", BODY, [SECRET], f"t=,v1={good_digest}", T, None, fail("malformed_header")),
    ("v1 too short", BODY, [SECRET], f"t={T},v1={good_digest[:-1]}", T, None, fail("malformed_header")),
    ("v1 not hex", BODY, [SECRET], f"t={T},v1={good_digest[:-1]}g", T, None, fail("malformed_header")),
    ("v1 base64 instead of hex", BODY, [SECRET], f"t={T},v1={base64.b64encode(bytes.fromhex(good_digest)).decode()}", T, None, fail("malformed_header")),
    ("entry without =", BODY, [SECRET], f"t={T},v1={good_digest},junk", T, None, fail("malformed_header")),
    ("trailing comma", BODY, [SECRET], f"{good},", T, None, fail("malformed_header")),
    ("too many entries", BODY, [SECRET], f"t={T}" + f",v1={other}" * 32, T, None, fail("malformed_header")),
    ("too long", BODY, [SECRET], f"t={T},v1={good_digest},x={'a' * 4100}", T, None, fail("malformed_header")),
]

verify_out = []
for name, payload, secrets, header, now, tolerance, expect in verify_vectors:
    vector = {"name": name, "payload": enc(payload), "secrets": [enc(s) for s in secrets],
              "header": header, "now": now, "expect": expect}
    if tolerance is not None:
        vector["tolerance"] = tolerance
    verify_out.append(vector)

ATHENA = b"athena-shared-secret-9c1e"
AKUTE = b"akute-shared-secret-41d7"
METRIPORT = b"metriport-shared-secret-8b2a"
EHR_BODY = ODD
vendor_out = [
    {"name": "athenahealth, sha256= prefix, body as sent", "vendor": "athenahealth",
     "payload": enc(EHR_BODY), "secrets": [enc(ATHENA)],
     "headers": {"X-Hub-Signature": "sha256=" + digest(ATHENA, EHR_BODY)}, "expect": {"ok": True, "secretIndex": 0}},
    {"name": "athenahealth without prefix", "vendor": "athenahealth",
     "payload": enc(EHR_BODY), "secrets": [enc(ATHENA)],
     "headers": {"x-hub-signature": digest(ATHENA, EHR_BODY)}, "expect": {"ok": False, "code": "malformed_header"}},
    {"name": "athenahealth over the re-serialized body fails", "vendor": "athenahealth",
     "payload": enc(json.dumps(json.loads(EHR_BODY), separators=(",", ":")).encode()), "secrets": [enc(ATHENA)],
     "headers": {"x-hub-signature": "sha256=" + digest(ATHENA, EHR_BODY)}, "expect": {"ok": False, "code": "no_matching_signature"}},
    {"name": "akute, t=,v1= over t.body", "vendor": "akute", "payload": enc(EHR_BODY),
     "secrets": [enc(AKUTE)], "now": T + 10,
     "headers": {"x-akute-signature": sig_header(T, [AKUTE], EHR_BODY)}, "expect": {"ok": True, "secretIndex": 0, "timestamp": T}},
    {"name": "akute, stale", "vendor": "akute", "payload": enc(EHR_BODY),
     "secrets": [enc(AKUTE)], "now": T + 1000,
     "headers": {"x-akute-signature": sig_header(T, [AKUTE], EHR_BODY)}, "expect": {"ok": False, "code": "timestamp_too_old"}},
    {"name": "metriport, bare hex", "vendor": "metriport", "payload": enc(EHR_BODY),
     "secrets": [enc(METRIPORT)],
     "headers": {"X-Metriport-Signature": digest(METRIPORT, EHR_BODY)}, "expect": {"ok": True, "secretIndex": 0}},
    {"name": "metriport, wrong secret", "vendor": "metriport", "payload": enc(EHR_BODY),
     "secrets": [enc(ATHENA)],
     "headers": {"x-metriport-signature": digest(METRIPORT, EHR_BODY)}, "expect": {"ok": False, "code": "no_matching_signature"}},
    {"name": "metriport, header missing", "vendor": "metriport", "payload": enc(EHR_BODY),
     "secrets": [enc(METRIPORT)], "headers": {"x-hub-signature": digest(METRIPORT, EHR_BODY)},
     "expect": {"ok": False, "code": "missing_header"}},
]

# Standard Webhooks: webhook-id, webhook-timestamp and webhook-signature ("v1,<base64>", several
# separated by spaces), HMAC-SHA256 keyed by the bytes the secret's base64 decodes to (after
# "whsec_" when it has that prefix; standard or URL-safe alphabet), over "<id>.<timestamp>.<body>".
def sw_sign(key: bytes, msg_id: str, t: int, payload: bytes) -> str:
    mac = hmac.new(key, f"{msg_id}.{t}.".encode() + payload, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def sw_headers(msg_id, t, signature):
    headers = {}
    if msg_id is not None:
        headers["webhook-id"] = msg_id
    if t is not None:
        headers["webhook-timestamp"] = str(t)
    if signature is not None:
        headers["webhook-signature"] = signature
    return headers


SW_PUBLISHED_SECRET = b"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SW_PUBLISHED_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SW_PUBLISHED_T = 1614265330
SW_PUBLISHED_BODY = b'{"test": 2432232314}'
SW_PUBLISHED_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
assert sw_sign(sw_secret, SW_PUBLISHED_ID, SW_PUBLISHED_T, SW_PUBLISHED_BODY) == SW_PUBLISHED_SIG
# A FollowUp endpoint secret: "whsec_" + standard base64 of 32 random bytes (these 32 are fixed).
FU_KEY = bytes((7 * i + 3) % 256 for i in range(32))
FU_SECRET = b"whsec_" + base64.b64encode(FU_KEY)
# Key bytes whose base64 has "+" and "/", to tell the two alphabets apart.
ALPHABET_KEY = bytes([0xfb, 0xff, 0xbf] * 8)
assert b"+" in base64.b64encode(ALPHABET_KEY) and b"/" in base64.b64encode(ALPHABET_KEY)
SW_ID = "dlv_01J9Z3"
sig = sw_sign(FU_KEY, SW_ID, T, BODY)
other_sig = sw_sign(b"another key of 32 bytes........!", SW_ID, T, BODY)


def sw_ok(index=0, t=T, msg_id=SW_ID):
    return {"ok": True, "secretIndex": index, "timestamp": t, "id": msg_id}


standard_vectors = [
    ("published Standard Webhooks test (whsec_ secret)", SW_PUBLISHED_BODY, [SW_PUBLISHED_SECRET],
     sw_headers(SW_PUBLISHED_ID, SW_PUBLISHED_T, SW_PUBLISHED_SIG), SW_PUBLISHED_T, None,
     sw_ok(0, SW_PUBLISHED_T, SW_PUBLISHED_ID)),
    ("published test, the secret's base64 without whsec_", SW_PUBLISHED_BODY,
     [SW_PUBLISHED_SECRET[len(b"whsec_"):]],
     sw_headers(SW_PUBLISHED_ID, SW_PUBLISHED_T, SW_PUBLISHED_SIG), SW_PUBLISHED_T, None,
     sw_ok(0, SW_PUBLISHED_T, SW_PUBLISHED_ID)),
    ("FollowUp secret: whsec_ + base64 of 32 bytes", BODY, [FU_SECRET],
     sw_headers(SW_ID, T, sig), T, None, sw_ok()),
    ("the key given as its bytes", BODY, [FU_KEY], sw_headers(SW_ID, T, sig), T, None, sw_ok()),
    ("whsec_ then URL-safe base64, unpadded", BODY,
     [b"whsec_" + base64.urlsafe_b64encode(ALPHABET_KEY).rstrip(b"=")],
     sw_headers(SW_ID, T, sw_sign(ALPHABET_KEY, SW_ID, T, BODY)), T, None, sw_ok()),
    ("whsec_ then standard base64 with + and /", BODY, [b"whsec_" + base64.b64encode(ALPHABET_KEY)],
     sw_headers(SW_ID, T, sw_sign(ALPHABET_KEY, SW_ID, T, BODY)), T, None, sw_ok()),
    ("the whole secret string is not the key (the t=,v1= scheme's key)", BODY, [FU_SECRET],
     sw_headers(SW_ID, T, sw_sign(FU_SECRET, SW_ID, T, BODY)), T, None,
     {"ok": False, "code": "no_matching_signature"}),
    ("a secret that is not base64 (not whsec_ either)", BODY, [b"my plain secret!"],
     sw_headers(SW_ID, T, sig), T, None, {"ok": False, "code": "invalid_secret"}),
    ("whsec_ with nothing after it", BODY, [b"whsec_"], sw_headers(SW_ID, T, sig), T, None,
     {"ok": False, "code": "invalid_secret"}),
    ("several signatures, v1a skipped, the last v1 matches", BODY, [FU_SECRET],
     sw_headers(SW_ID, T, f"v1a,{base64.b64encode(bytes(64)).decode()} {other_sig} {sig}"), T, None,
     sw_ok()),
    ("rotation: the second secret matches", BODY, [b"whsec_" + base64.b64encode(b"n" * 32), FU_SECRET],
     sw_headers(SW_ID, T, sig), T, None, sw_ok(1)),
    ("bytes that are not UTF-8", INVALID_UTF8, [FU_SECRET],
     sw_headers(SW_ID, T, sw_sign(FU_KEY, SW_ID, T, INVALID_UTF8)), T, None, sw_ok()),
    ("empty body", b"", [FU_SECRET], sw_headers(SW_ID, T, sw_sign(FU_KEY, SW_ID, T, b"")), T, None,
     sw_ok()),
    ("300 s old is within the default tolerance", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig),
     T + 300, None, sw_ok()),
    ("301 s old", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig), T + 301, None,
     {"ok": False, "code": "timestamp_too_old"}),
    ("301 s in the future", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig), T - 301, None,
     {"ok": False, "code": "timestamp_in_future"}),
    ("tolerance 0, one second late", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig), T + 1, 0,
     {"ok": False, "code": "timestamp_too_old"}),
    ("wrong secret", BODY, [b"whsec_" + base64.b64encode(b"w" * 32)], sw_headers(SW_ID, T, sig), T,
     None, {"ok": False, "code": "no_matching_signature"}),
    ("body changed by one byte", BODY.replace(b"Ada", b"Adb"), [FU_SECRET],
     sw_headers(SW_ID, T, sig), T, None, {"ok": False, "code": "no_matching_signature"}),
    ("webhook-id changed (it is signed)", BODY, [FU_SECRET], sw_headers("dlv_01J9Z4", T, sig), T,
     None, {"ok": False, "code": "no_matching_signature"}),
    ("webhook-timestamp changed (it is signed)", BODY, [FU_SECRET], sw_headers(SW_ID, T + 1, sig),
     T, None, {"ok": False, "code": "no_matching_signature"}),
    ("only a v1a signature", BODY, [FU_SECRET],
     sw_headers(SW_ID, T, f"v1a,{base64.b64encode(bytes(64)).decode()}"), T, None,
     {"ok": False, "code": "no_matching_signature"}),
    ("webhook-id missing", BODY, [FU_SECRET], sw_headers(None, T, sig), T, None,
     {"ok": False, "code": "missing_header"}),
    ("webhook-timestamp missing", BODY, [FU_SECRET], sw_headers(SW_ID, None, sig), T, None,
     {"ok": False, "code": "missing_header"}),
    ("webhook-signature missing", BODY, [FU_SECRET], sw_headers(SW_ID, T, None), T, None,
     {"ok": False, "code": "missing_header"}),
    ("webhook-timestamp not whole seconds", BODY, [FU_SECRET], sw_headers(SW_ID, f"{T}.5", sig),
     T, None, {"ok": False, "code": "malformed_header"}),
    ("a signature without its version", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig[3:]), T, None,
     {"ok": False, "code": "malformed_header"}),
    ("a v1 signature that is not 32 bytes", BODY, [FU_SECRET], sw_headers(SW_ID, T, sig[:-8] + "="),
     T, None, {"ok": False, "code": "malformed_header"}),
    ("a v1 signature in hex instead of base64", BODY, [FU_SECRET],
     sw_headers(SW_ID, T, "v1," + base64.b64decode(sig[3:]).hex()), T, None,
     {"ok": False, "code": "malformed_header"}),
]

standard_out = []
for name, payload, secrets, headers, now, tolerance, expect in standard_vectors:
    vector = {"name": name, "payload": enc(payload), "secrets": [enc(s) for s in secrets],
              "headers": headers, "now": now, "expect": expect}
    if tolerance is not None:
        vector["tolerance"] = tolerance
    standard_out.append(vector)

out = {
    "description": "Known-answer vectors for @followup/webhooks. Payloads and secrets are given as "
                   "{utf8} text or {hex} bytes; times are Unix seconds. Computed with Python's hmac "
                   "by scripts/make-vectors.py, independently of the package's code.",
    "hmac": hmac_vectors,
    "sign": sign_vectors,
    "verify": verify_out,
    "vendor": vendor_out,
    "standard": standard_out,
}
path = pathlib.Path(__file__).resolve().parent.parent / "vectors" / "known-answer.json"
path.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {path}: {len(hmac_vectors)} hmac, {len(sign_vectors)} sign, "
      f"{len(verify_out)} verify, {len(vendor_out)} vendor, {len(standard_out)} standard vectors")
