"""``cabinet rng-dump``: raw output of the production random path, for the lab.

Owns: the two dump formats the RNG bench (``bench/rng.py``) and an outside
test lab feed to dieharder, ent and the NIST SP 800-22 suite. Both draw from
``secrets.SystemRandom`` exactly as the shoe does (RULES.md "Shuffling and
randomness"); nothing here is seeded and nothing here is used by the engine.

Formats:

``--bytes N FILE`` (raw binary; dieharder ``-g 201 -f FILE`` or ``-g 200`` on
stdin, ``ent FILE``, NIST STS "binary" input): N bytes made of values drawn by
``SystemRandom().randrange(M)``, the very call ``cabinet.game.shoe.fisher_yates``
makes (``random.Random.randrange`` -> ``_randbelow_with_getrandbits``: draw
``k = M.bit_length()`` bits with ``getrandbits(k)``, reject while ``>= M``).
The shoe's bounds are products of the Fisher-Yates ranges, not powers of 2,
so a dump of them would not be a uniform bit stream; with ``M = 2**w``
(``--scaled M``, default ``2**64``) every value is ``w`` uniform bits and the
path is the same code with the same rejection (here exactly half of the
``k = w + 1``-bit raw draws are rejected). Each value is written as ``w``
bits, most significant first, into one continuous bit stream (``w = 8``:
one byte per value; ``w = 64``: 8 bytes big-endian per value). ``N = 0``
writes until the reader closes the pipe (dieharder ``-g 200``).

``--shuffles N FILE`` (text): N shoes of ``--decks D`` decks (default 1; the
games use 1 and 4), each shuffled by ``fisher_yates`` itself from a fresh
``SystemRandom``, one shoe a line: ``52*D`` card indices in deal order,
separated by single spaces, ending in ``\\n``. Index ``i`` names card
``fresh_cards(D)[i]``: ``i % 52`` is the card (``cabinet.game.cards.ALL_CARDS``
order) and ``i // 52`` the deck copy, so every line is a permutation of
``0 .. 52*D-1``.

Errors: a bad argument is a usage error (status 2); a file that cannot be
written is reported with its path (status 1). Nothing else is touched.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import BinaryIO

from cabinet.game.shoe import fisher_yates

DEFAULT_SCALE = 1 << 64
"""``--scaled`` default: 64-bit values, 8 bytes each."""

_CHUNK_VALUES = 8192
"""Values packed per write."""


def scale_bits(m: int) -> int:
    """Bits per value for ``--scaled M``.

    Raises:
        ValueError: ``M`` is not a power of 2 between ``2`` and ``2**64``.
    """
    if m < 2 or m & (m - 1) or m > 1 << 64:
        raise ValueError(f"--scaled must be a power of 2 from 2 to 2**64, got {m}")
    return m.bit_length() - 1


def write_bytes(out: BinaryIO, nbytes: int, m: int = DEFAULT_SCALE, rng: secrets.SystemRandom | None = None) -> int:
    """Write ``nbytes`` bytes (0: until the reader goes away) of ``rng.randrange(m)`` values.

    Args:
        out: a binary stream.
        nbytes: bytes to write; ``0`` for no limit (ends on ``BrokenPipeError``).
        m: power of 2 (see ``scale_bits``); each value gives ``log2(m)`` bits.
        rng: ``secrets.SystemRandom()`` when ``None`` (tests may pass a seeded
            ``random.Random``).

    Returns:
        Bytes written.

    Raises:
        ValueError: ``m`` is not an allowed power of 2, or ``nbytes < 0``.
        BrokenPipeError: only when ``nbytes > 0`` and the reader left early.
    """
    if nbytes < 0:
        raise ValueError(f"--bytes must be 0 or more, got {nbytes}")
    w = scale_bits(m)
    randrange = (rng if rng is not None else secrets.SystemRandom()).randrange
    written = 0
    acc = 0  # bit accumulator: ``nacc`` pending bits, most significant first
    nacc = 0
    try:
        while nbytes == 0 or written < nbytes:
            buf = bytearray()
            for _ in range(_CHUNK_VALUES):
                acc = (acc << w) | randrange(m)
                nacc += w
                if nacc >= 64:  # keep the accumulator small: emit its whole bytes
                    whole = nacc // 8
                    nacc -= whole * 8
                    buf += (acc >> nacc).to_bytes(whole, "big")
                    acc &= (1 << nacc) - 1
            chunk = bytes(buf)
            if nbytes:
                chunk = chunk[: nbytes - written]
            out.write(chunk)
            written += len(chunk)
        out.flush()
    except BrokenPipeError:
        if nbytes:
            raise
    return written


def write_shuffles(out: BinaryIO, count: int, decks: int = 1, rng: secrets.SystemRandom | None = None) -> int:
    """Write ``count`` shuffled shoes, one permutation of card indices a line.

    Args:
        out: a binary stream.
        count: shoes to write (at least 1).
        decks: 1-8 (the format in the module docstring).
        rng: ``secrets.SystemRandom()`` when ``None``; a fresh one per shoe.

    Returns:
        Lines written.

    Raises:
        ValueError: ``count < 1`` or ``decks`` outside 1-8.
    """
    if count < 1:
        raise ValueError(f"--shuffles must be 1 or more, got {count}")
    if not 1 <= decks <= 8:
        raise ValueError(f"--decks must be 1-8, got {decks}")
    n = 52 * decks
    for _ in range(count):
        order = list(range(n))
        fisher_yates(order, rng if rng is not None else secrets.SystemRandom())
        out.write((" ".join(map(str, order)) + "\n").encode("ascii"))
    out.flush()
    return count


def _int(text: str) -> int:
    """``--scaled`` accepts ``256``, ``0x100`` or ``2**8``."""
    t = text.replace(" ", "")
    if "**" in t:
        base, _, exp = t.partition("**")
        return int(int(base, 0) ** int(exp, 0))
    return int(t, 0)


def main(argv: Sequence[str]) -> int:
    """``cabinet rng-dump (--bytes N | --shuffles N) FILE``; returns the exit status."""
    p = argparse.ArgumentParser(
        prog="cabinet rng-dump",
        description="Write raw output of the production random path (secrets.SystemRandom "
        "through the shoe's randrange) for dieharder, ent and NIST SP 800-22, "
        "or permutations dealt by the shoe's Fisher-Yates.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--bytes", type=int, metavar="N", help="N bytes of raw binary (0: until the reader closes the pipe)"
    )
    what.add_argument(
        "--shuffles", type=int, metavar="N", help="N shuffled shoes, one line of space-separated card indices each"
    )
    p.add_argument(
        "--scaled",
        type=_int,
        default=DEFAULT_SCALE,
        metavar="M",
        help="with --bytes: values drawn by randrange(M), M a power of 2 up to "
        "2**64, packed as log2(M) bits each (default 2**64)",
    )
    p.add_argument(
        "--decks",
        type=int,
        default=1,
        metavar="D",
        help="with --shuffles: decks per shoe, 1-8 (default 1; the games use 1 and 4)",
    )
    p.add_argument("file", metavar="FILE", help="output file, '-' for stdout")
    args = p.parse_args(list(argv))
    try:
        if args.bytes is not None:
            scale_bits(args.scaled)
            if args.bytes < 0:
                p.error(f"--bytes must be 0 or more, got {args.bytes}")
            if args.bytes == 0 and args.file != "-":
                p.error("--bytes 0 (no limit) needs FILE '-' (a pipe)")
        elif args.shuffles < 1 or not 1 <= args.decks <= 8:
            p.error("--shuffles must be 1 or more and --decks 1-8")
    except ValueError as e:
        p.error(str(e))
    try:
        if args.file == "-":
            out = sys.stdout.buffer
            if args.bytes is not None:
                write_bytes(out, args.bytes, args.scaled)
            else:
                write_shuffles(out, args.shuffles, args.decks)
        else:
            with open(args.file, "wb") as f:
                if args.bytes is not None:
                    write_bytes(f, args.bytes, args.scaled)
                else:
                    write_shuffles(f, args.shuffles, args.decks)
    except BrokenPipeError:
        return 0
    except OSError as e:
        print(f"cabinet rng-dump: {args.file}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0
