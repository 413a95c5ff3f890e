"""Ed25519 signature verification (RFC 8032 section 5.1.7), standard library only.

Owns: ``verify`` and ``public_key_from_pem``. The release is signed with the
``cryptography`` library (``cabinet.tools.release_sign``); this verifier lets the
engine check its signed manifest before it imports anything from the venv (whose
files that manifest covers) and lets a first install check a release before any
venv exists. Verification only: no secret is ever handled here. ``tests/test_release.py``
holds it to ``cryptography``'s own verify. Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib

_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)
#: The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): 32 key bytes follow.
_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")

_Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T)


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    return _P - x if (x & 1) != sign else x


def _add(a: _Point, b: _Point) -> _Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % _P
    bb = (y1 + x1) * (y2 + x2) % _P
    cc = 2 * t1 * t2 * _D % _P
    dd = 2 * z1 * z2 % _P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _mul(s: int, p: _Point) -> _Point:
    q: _Point = (0, 1, 1, 0)
    while s:
        if s & 1:
            q = _add(q, p)
        p = _add(p, p)
        s >>= 1
    return q


def _equal(a: _Point, b: _Point) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _decode(s: bytes) -> _Point | None:
    y = int.from_bytes(s, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_GY = 4 * pow(5, _P - 2, _P) % _P
_GX = _recover_x(_GY, 0)
assert _GX is not None
_G: _Point = (_GX, _GY, 1, _GX * _GY % _P)


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """True if ``signature`` (64 bytes) is the Ed25519 signature of ``message`` by
    ``public_key`` (32 bytes, RFC 8032 encoding); False for anything else,
    malformed input included (never raises)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode(public_key)
    r = _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    return _equal(_mul(s, _G), _add(r, _mul(h, a)))


def public_key_from_pem(text: str) -> bytes:
    """The 32 raw key bytes of an Ed25519 ``-----BEGIN PUBLIC KEY-----`` PEM (what
    ``cabinet release-key`` and ``openssl pkey -pubout`` write).

    Raises:
        ValueError: not a PEM Ed25519 public key.
    """
    lines = [ln.strip() for ln in text.strip().splitlines()]
    if len(lines) < 3 or lines[0] != "-----BEGIN PUBLIC KEY-----" or lines[-1] != "-----END PUBLIC KEY-----":
        raise ValueError("not a PEM public key (-----BEGIN PUBLIC KEY-----)")
    try:
        der = base64.b64decode("".join(lines[1:-1]), validate=True)
    except ValueError as e:
        raise ValueError(f"PEM body is not base64: {e}") from None
    if len(der) != 44 or not der.startswith(_SPKI_PREFIX):
        raise ValueError("not an Ed25519 public key")
    return der[len(_SPKI_PREFIX) :]


def public_key_pem(raw: bytes) -> str:
    """The PEM text of a 32-byte Ed25519 public key (inverse of ``public_key_from_pem``)."""
    b64 = base64.b64encode(_SPKI_PREFIX + raw).decode()
    return f"-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----\n"
