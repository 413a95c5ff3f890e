"""The release key: ``cabinet release-key`` makes it, ``make release`` signs with it.

Owns: ``generate_key`` (an Ed25519 key pair: the private key PEM, 0600, for the
vendor's build machine and never the repository or a cabinet; the public key PEM,
given to ``cabinet install --public-key`` at a cabinet's first install) and ``sign``.
Uses ``cryptography`` (a maintained library; README "Releases"); checking a
signature needs only ``cabinet.shell.ed25519``. I/O: files.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def generate_key(private_path: Path, public_path: Path) -> str:
    """Write a new key pair; returns the public key PEM. The private key's folder is
    made if missing (owner-only, as ``~/.config/cabinet`` is on a fresh machine).

    Raises:
        FileExistsError: ``private_path`` exists (a release key is never overwritten).
        OSError: cannot write.
    """
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    private_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    public_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    public_path.write_text(public)
    return public


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key in the PEM file ``path``.

    Raises:
        OSError: unreadable; ValueError: not an unencrypted Ed25519 private key PEM.
    """
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError(f"{path}: not an Ed25519 private key")
    return key


def public_pem(key: Ed25519PrivateKey) -> str:
    """The public key PEM of ``key``."""
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def sign(key: Ed25519PrivateKey, data: bytes) -> bytes:
    """The 64-byte Ed25519 signature of ``data`` (what ``openssl pkeyutl -verify
    -rawin`` checks too)."""
    return key.sign(data)


def key_main(private: str, public: str) -> int:
    """``cabinet release-key``: exit status 0, or 1 with why."""
    try:
        generate_key(Path(private), Path(public))
    except FileExistsError:
        print(f"cabinet release-key: {private} exists: a release key is never overwritten", flush=True)
        return 1
    except OSError as e:
        print(f"cabinet release-key: {e}")
        return 1
    print(
        f"private key: {private} (keep it off the cabinet and out of the repository)\n"
        f"public key: {public} (cabinet install RELEASE --public-key {public} at first install)"
    )
    return 0
