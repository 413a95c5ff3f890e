"""RNG lab bench: dieharder, ent and NIST SP 800-22 over a fresh production dump.

Writes one fresh dump with ``cabinet rng-dump --bytes N --scaled 2**64`` (values
of ``secrets.SystemRandom().randrange(2**64)``: the shoe's own ``randrange``
call, see ``cabinet/rng_dump.py``) and runs over it:

- **dieharder** (Debian package ``dieharder``), ``-g 201 -f DUMP``: each test
  of the ``-a`` battery run on its own (``-d N`` at its default settings, not
  ``-a``'s sweep of ntuple values), with ``psamples`` lowered where a test
  would read past the end of the dump (a rewound file repeats data and makes a
  test fail for the wrong reason; every test is checked for "rewound" in its
  output). ``diehard_sums`` is left out, as ``-a`` does (dieharder: "Do Not
  Use"). All under ``nice -n 10``. dieharder calls a result WEAK when its
  p-value is below 0.005 or above 0.995, so about 1 % of the results are weak
  by chance; FAILED is p below 1e-6 or above 1 - 1e-6.
- **ent** (Debian package ``ent``) over the whole dump: entropy, the
  chi-square of the byte counts and how often a random file exceeds it, mean,
  Monte Carlo pi, serial correlation.
- **NIST SP 800-22** with ``sp80022suite`` from PyPI (a C extension around
  NIST's own STS C source: the reference code, fast; ``nistrng`` 1.2.3, the
  other candidate on PyPI, is a NumPy rewrite whose overlapping-template test
  raised a broadcast error under NumPy 2.4 and whose cumulative sums warned of
  int8 overflow on a 10**6-bit sequence, so it was not used):
  all 15 tests, the NIST parameters (block frequency M=128, templates m=9,
  linear complexity M=500, serial m=16, approximate entropy m=10) over
  ``--nist-sequences`` sequences of 10**6 bits from the start of the dump,
  each bit taken most significant first. The package returns one p-value per
  test: for the tests with several (cumulative sums 2, serial 2, random
  excursions 8, variant 18, non-overlapping templates 148) it is their minimum,
  so that is Sidak-adjusted, ``1 - (1 - p_min)**K`` (conservative where the K
  statistics are dependent, as the 148 template counts are). A sequence passes a test
  at ``p >= 0.01``; NIST's acceptance is a pass proportion of at least
  ``0.99 - 3*sqrt(0.99*0.01/k)`` of the k sequences (96 of 100), and its
  uniformity check (chi-square of the p-values in 10 bins) at ``>= 0.0001``.
  The random excursion tests apply only to sequences with at least 500 cycles.
  The package ships no template file: the 148 aperiodic 9-bit templates are
  generated here in NIST's order and written where its C code looks.

Writes ``bench/results/rng.txt`` (a summary, then every dieharder result line
and ent's report). Takes about 20-30 min of one core on the 2-core bench
machine with the default 1 GiB dump (writing the dump is most of it: the
production path gives ~4 MB/s).

Run::

    apt-get install -y dieharder ent
    .venv/bin/pip install -e '.[bench]'   # sp80022suite 0.0.8 (builds with gcc)
    .venv/bin/python bench/rng.py [--mbytes 1024] [--nist-sequences 100]
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NICE = ["nice", "-n", "10"]

DIEHARDER_TESTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17,
                   100, 101, 102, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209]
"""``dieharder -a``'s tests (``dieharder -l`` less 14, diehard_sums: "Do Not Use")."""

MB_PER_100_PSAMPLES = {
    0: 56, 1: 448, 2: 560, 3: 288, 4: 152, 5: 880, 6: 600, 7: 304, 8: 72, 9: 560,
    10: 56, 11: 48, 12: 48, 13: 968, 15: 88, 16: 584,
}
"""Measured input per test at the default 100 psamples (MB, from rewind counts on
an 8 MB file); tests not listed were measured to need less than the dump, or
are given ``-p`` from ``PSAMPLES``."""

PSAMPLES: dict[int, int] = {17: 10}
"""``-p`` set by hand: ``marsaglia_tsang_gcd`` (17) reads 10**7 pairs of 32-bit words per
psample (8 GB at 100) and is slow; 10 psamples read 800 MB."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def write_dump(path: Path, nbytes: int) -> float:
    """``cabinet rng-dump --bytes nbytes path`` (the CLI itself); returns seconds."""
    t0 = time.perf_counter()
    subprocess.run([*NICE, sys.executable, "-m", "cabinet.cli", "rng-dump", "--bytes",
                    str(nbytes), "--scaled", "2**64", str(path)], check=True, cwd=ROOT)
    return time.perf_counter() - t0


# --- dieharder ----------------------------------------------------------------------

_DH_LINE = re.compile(r"^\s*(\S+)\|\s*(\d+)\|\s*(\d+)\|\s*(\d+)\|\s*([0-9.]+)\|\s*(PASSED|WEAK|FAILED)")


def run_dieharder(dump: Path, mbytes: int,
                  tests: list[int]) -> tuple[list[str], list[str], float]:
    """Each test on its own over ``dump``; returns (result lines, notes, seconds)."""
    lines: list[str] = []
    notes: list[str] = []
    t0 = time.perf_counter()
    for d in tests:
        cmd = [*NICE, "dieharder", "-g", "201", "-f", str(dump), "-d", str(d)]
        p = PSAMPLES.get(d)
        need = MB_PER_100_PSAMPLES.get(d)
        if p is None and need is not None and need > 0.95 * mbytes:
            p = max(10, int(100 * 0.95 * mbytes / need))
        if p is not None:
            cmd += ["-p", str(p)]
            notes.append(f"-d {d}: -p {p} (a {mbytes} MB dump holds that many psamples)")
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        rew = re.search(r"rewound (\d+) times", out)
        if rew and int(rew.group(1)) > 0:
            # read past the end: run again with the psamples that fit (once)
            used = p if p is not None else 100
            p = max(5, int(used * 0.9 / (int(rew.group(1)) + 1)))
            notes.append(f"-d {d}: {used} psamples rewound the dump {rew.group(1)} times; "
                         f"run again with -p {p}")
            out = subprocess.run([*cmd[:cmd.index("-d") + 2], "-p", str(p)],
                                 capture_output=True, text=True).stdout
            rew = re.search(r"rewound (\d+) times", out)
            if rew and int(rew.group(1)) > 0:
                notes.append(f"-d {d}: still rewound {rew.group(1)} times (data reused)")
        got = [m.group(0).strip() for m in map(_DH_LINE.match, out.splitlines()) if m]
        if not got:
            notes.append(f"-d {d}: no result; output tail: {out[-300:]!r}")
        log(f"dieharder -d {d}: {len(got)} results in {time.perf_counter() - t:.0f} s "
            f"{sorted({g.split('|')[-1].strip() for g in got})}")
        lines += got
    return lines, notes, time.perf_counter() - t0


# --- ent ----------------------------------------------------------------------------

def run_ent(dump: Path) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = subprocess.run([*NICE, "ent", str(dump)], capture_output=True, text=True,
                         check=True).stdout
    return out.strip(), time.perf_counter() - t0


# --- NIST SP 800-22 -----------------------------------------------------------------

def aperiodic_templates(m: int) -> list[str]:
    """The aperiodic (non-self-overlapping) m-bit templates, in NIST's order.

    A template is aperiodic when no proper prefix equals the suffix of the
    same length (it cannot overlap a shifted copy of itself); NIST's
    ``templates/template9`` lists the 148 of length 9 in increasing order.
    """
    out = []
    for v in range(1 << m):
        b = format(v, f"0{m}b")
        if all(b[:k] != b[m - k:] for k in range(1, m)):
            out.append(" ".join(b))
    return out


_BITS = [bytes((x >> (7 - i)) & 1 for i in range(8)) for x in range(256)]


def to_bits(data: bytes) -> bytes:
    """One byte (0 or 1) per bit, most significant bit of each byte first."""
    return b"".join(_BITS[x] for x in data)



def _nist_tests() -> list[tuple[str, int, Callable[..., float], tuple[int, ...]]]:
    import sp80022suite as s
    return [
        ("frequency", 1, s.frequency, ()),
        ("block_frequency (M=128)", 1, s.block_frequency, (128,)),
        ("cumulative_sums", 2, s.cumulative_sums, ()),
        ("runs", 1, s.runs, ()),
        ("longest_run_of_ones", 1, s.longest_run_of_ones, ()),
        ("rank", 1, s.rank, ()),
        ("discrete_fourier_transform", 1, s.discrete_fourier_transform, ()),
        ("non_overlapping_template (m=9)", 148, s.non_overlapping_template_matchings, (9,)),
        ("overlapping_template (m=9)", 1, s.overlapping_template_matchings, (9,)),
        ("universal", 1, s.universal, ()),
        ("approximate_entropy (m=10)", 1, s.approximate_entropy, (10,)),
        ("random_excursions", 8, s.random_excursions, ()),
        ("random_excursions_variant", 18, s.random_excursions_variant, ()),
        ("serial (m=16)", 2, s.serial, (16,)),
        ("linear_complexity (M=500)", 1, s.linear_complexity, (500,)),
    ]


def _igamc_uniformity(pvalues: list[float]) -> float:
    """NIST's P-value_T: chi-square of the p-values in 10 bins, ``igamc(9/2, chi2/2)``."""
    bins = [0] * 10
    for p in pvalues:
        bins[min(int(p * 10), 9)] += 1
    e = len(pvalues) / 10
    chi2 = sum((b - e) ** 2 / e for b in bins)
    # upper regularised gamma Q(4.5, x/2) by its series (x small enough here)
    a, x = 4.5, chi2 / 2
    term = total = 1 / a
    n = 1
    while term > 1e-17 * total:
        term *= x / (a + n)
        total += term
        n += 1
    lower = total * math.exp(-x + a * math.log(x) - math.lgamma(a)) if x > 0 else 0.0
    return max(0.0, 1 - lower)


def run_nist(dump: Path, sequences: int) -> tuple[list[str], int, int, float]:
    """Returns (table lines, tests accepted, tests run, seconds)."""
    tests = _nist_tests()
    nbits = 10 ** 6
    per_test: dict[str, list[float]] = {name: [] for name, *_ in tests}
    skipped: dict[str, int] = {name: 0 for name, *_ in tests}
    t0 = time.perf_counter()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp, dump.open("rb") as f:
        (Path(tmp) / "templates").mkdir()
        (Path(tmp) / "templates" / "template9").write_text("\n".join(aperiodic_templates(9)) + "\n")
        os.chdir(tmp)  # the C code opens templates/template9 relative to the cwd
        try:
            for i in range(sequences):
                bits = to_bits(f.read(nbits // 8))
                for name, k, fn, args in tests:
                    try:
                        p = fn(*args, bits)
                    except ValueError:  # random excursions: fewer than 500 cycles
                        skipped[name] += 1
                        continue
                    per_test[name].append(1 - (1 - p) ** k if k > 1 else p)
                if (i + 1) % 10 == 0:
                    log(f"NIST: {i + 1}/{sequences} sequences")
        finally:
            os.chdir(here)
    lines = [f"{'test':34} {'pass':>9}  {'min pass':>8}  {'P-value_T':>9}  verdict"]
    accepted = 0
    for name, *_ in tests:
        ps = per_test[name]
        n = len(ps)
        passed = sum(p >= 0.01 for p in ps)
        floor = math.floor(n * (0.99 - 3 * math.sqrt(0.99 * 0.01 / n))) if n else 0
        unif = _igamc_uniformity(ps) if n >= 55 else float("nan")
        ok = n > 0 and passed >= floor and (unif != unif or unif >= 0.0001)
        accepted += ok
        extra = f" ({skipped[name]} sequences with < 500 cycles)" if skipped[name] else ""
        lines.append(f"{name:34} {passed:>4}/{n:<4}  {floor:>8}  {unif:>9.4f}  "
                     f"{'ok' if ok else 'REJECTED'}{extra}")
    return lines, accepted, len(tests), time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mbytes", type=int, default=1024, help="dump size in MiB (default 1024)")
    p.add_argument("--nist-sequences", type=int, default=100)
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/rng.txt")
    p.add_argument("--keep", type=Path, help="keep the dump at this path")
    p.add_argument("--dieharder-tests", type=lambda t: [int(x) for x in t.split(",")],
                   default=DIEHARDER_TESTS, metavar="N,N,...",
                   help="dieharder test numbers (default: all of -a, see dieharder -l)")
    args = p.parse_args()
    for tool in ("dieharder", "ent"):
        if shutil.which(tool) is None:
            print(f"bench/rng.py: {tool} is not installed (apt-get install -y dieharder ent)",
                  file=sys.stderr)
            return 2
    try:
        import sp80022suite  # noqa: F401
    except ImportError:
        print("bench/rng.py: pip install sp80022suite==0.0.8", file=sys.stderr)
        return 2
    mbytes = args.mbytes
    with tempfile.TemporaryDirectory(prefix="rng-bench-") as tmp:
        dump = args.keep or Path(tmp) / "dump.bin"
        nbytes = mbytes << 20
        log(f"writing a fresh {mbytes} MiB dump: cabinet rng-dump --bytes {nbytes} --scaled 2**64")
        gen_s = write_dump(dump, nbytes)
        log(f"dump written in {gen_s:.0f} s ({nbytes / gen_s / 1e6:.1f} MB/s)")
        ent_out, ent_s = run_ent(dump)
        log(f"ent: {ent_s:.0f} s")
        nist_lines, nist_ok, nist_n, nist_s = run_nist(dump, args.nist_sequences)
        log(f"NIST: {nist_ok}/{nist_n} tests accepted in {nist_s:.0f} s")
        dh_lines, dh_notes, dh_s = run_dieharder(dump, mbytes, args.dieharder_tests)
    verdicts = [ln.split("|")[-1].strip() for ln in dh_lines]
    weak, failed = verdicts.count("WEAK"), verdicts.count("FAILED")
    chi = re.search(r"Chi square distribution for (\d+) samples is ([0-9.]+), and randomly\s+"
                    r"would exceed this value ([0-9.<> ]+) percent", ent_out)
    summary = [
        "RNG bench (bench/rng.py): secrets.SystemRandom through the shoe's randrange",
        f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; python {sys.version.split()[0]}",
        f"dump: {mbytes} MiB, cabinet rng-dump --bytes {nbytes} --scaled 2**64, "
        f"written in {gen_s:.0f} s",
        "",
        f"dieharder 3.31.1 (-g 201 -f dump, each -a test alone at its defaults, nice -n 10; "
        f"{dh_s:.0f} s): {len(verdicts)} results, {verdicts.count('PASSED')} PASSED, "
        f"{weak} WEAK (expected ~{len(verdicts) / 100:.1f} at 1 %), {failed} FAILED",
        *(f"  note {n}" for n in dh_notes),
        f"ent ({ent_s:.0f} s): chi-square {chi.group(2) if chi else '?'} over "
        f"{chi.group(1) if chi else '?'} bytes, a random file exceeds it "
        f"{chi.group(3).strip() if chi else '?'} % of the time",
        f"NIST SP 800-22 (sp80022suite 0.0.8, {args.nist_sequences} x 10**6 bits; {nist_s:.0f} s): "
        f"{nist_ok}/{nist_n} tests accepted",
        "",
        "== NIST SP 800-22 ==", *nist_lines, "",
        "== ent ==", ent_out, "",
        "== dieharder ==", "        test_name   |ntup| tsamples |psamples|  p-value |Assessment",
        *dh_lines, "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(summary))
    print("\n".join(summary[:12]))
    return 0 if failed == 0 and nist_ok == nist_n else 1


if __name__ == "__main__":
    raise SystemExit(main())
