"""RNG lab bench: dieharder, ent and NIST SP 800-22 over a fresh production dump.

Writes one fresh dump with ``cabinet rng-dump --bytes N --scaled 2**64`` (values
of ``secrets.SystemRandom().randrange(2**64)``: the shoe's own ``randrange``
call, see ``cabinet/tools/rng_dump.py``) and runs over it:

- **dieharder** (Debian package ``dieharder``), ``-g 201 -f DUMP``: each test
  of the ``-a`` battery run on its own at its default settings, with ``-a``'s
  ntuple sweep for the RGB tests (bit distribution 1-12, minimum distance and
  permutations 2-5, lagged sum 0-32), and psamples (or tsamples) lowered where
  a test would read past the end of the dump (``size_args``) (a rewound file repeats data and makes a
  test fail for the wrong reason; every run is checked for "rewound" in its
  output and run again with fewer if it was). ``diehard_sums`` is left out, as
  ``-a`` does (dieharder: "Do Not Use"). All under ``nice -n 10``. dieharder
  calls a result WEAK when its p-value is below 0.005 or above 0.995, so about
  1 % of the results are weak by chance (more than one result of a sweep comes
  from the same data); FAILED is p below 1e-6 or above 1 - 1e-6. Each WEAK
  test is run once more on fresh data (``cabinet rng-dump --bytes 0 -`` piped
  into ``-g 200``), dieharder's advice for an ambiguous result.
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
  uniformity check (chi-square of the p-values in 10 bins) at ``>= 0.0001``,
  done here for the tests with one p-value (the adjusted minimum of K
  dependent statistics is not uniform, so those are judged on the proportion
  only; NIST's own assess does it per statistic, which the package does not
  expose).
  The random excursion tests apply only to sequences with at least 500 cycles.
  The package ships no template file: the 148 aperiodic 9-bit templates are
  generated here in NIST's order and written where its C code looks.

Writes ``bench/results/rng.txt`` (a summary, then every dieharder result line
and ent's report). Takes about 25-30 min on the shared 2-core bench machine
with the default 1 GiB dump (writing the dump is a third of it: the production
path gives 2.5-4 MB/s).

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

DIEHARDER_TESTS = [
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
    13,
    15,
    16,
    17,
    100,
    101,
    102,
    200,
    201,
    202,
    203,
    204,
    205,
    206,
    207,
    208,
    209,
]
"""``dieharder -a``'s tests (``dieharder -l`` less 14, diehard_sums: "Do Not Use")."""

NTUPLES = {200: range(1, 13), 201: range(2, 6), 202: range(2, 6), 203: range(0, 33)}
"""The ntuple sweep ``-a`` runs for the RGB tests (rgb_bitdist 1-12, minimum
distance and permutations 2-5, lagged sum 0-32); the others run at their default."""


def size_args(d: int, n: int | None, dump_mb: int) -> list[str]:
    """``-p``/``-t`` so a test reads at most 90 % of the dump; ``[]`` where the
    default (100 psamples) fits (all but the three below, measured on 1 GiB).

    Input per psample at the default tsamples, measured from rewind counts on a
    small file: ``marsaglia_tsang_gcd`` 10**7 pairs of 32-bit words (80 MB);
    ``rgb_lagged_sum`` 10**6 x (lag + 1) words (4 MB x (lag + 1));
    ``rgb_bitdist`` about 1.1 MB x ntuple. Fewer psamples first, down to 30 (the
    final Kolmogorov-Smirnov test over very few p-values is itself unreliable:
    with 2 it often gives p = 1.0, which dieharder calls FAILED); below that,
    30 psamples of fewer tsamples.
    """
    size = {17: (10**7, 80.0)}.get(d)
    if d == 203 and n is not None:
        size = (10**6, 4.0 * (n + 1))
    elif d == 200 and n is not None:
        size = (10**5, 1.1 * n)
    room = 0.9 * dump_mb
    if size is None or size[1] * 100 <= room:
        return []
    tsamples, per_mb = size
    if per_mb * 30 <= room:
        return ["-p", str(int(room / per_mb))]
    return ["-p", "30", "-t", str(int(tsamples * room / (30 * per_mb)) // 1000 * 1000)]


#: No single tool run (the dump, ent, one dieharder test) takes longer than this (s).
BACKSTOP_S = 4 * 3600.0


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def write_dump(path: Path, nbytes: int) -> float:
    """``cabinet rng-dump --bytes nbytes path`` (the CLI itself); returns seconds."""
    t0 = time.perf_counter()
    subprocess.run(
        [*NICE, sys.executable, "-m", "cabinet", "rng-dump", "--bytes", str(nbytes), "--scaled", "2**64", str(path)],
        check=True,
        cwd=ROOT,
        timeout=BACKSTOP_S,
    )
    return time.perf_counter() - t0


# --- dieharder ----------------------------------------------------------------------

_DH_LINE = re.compile(r"^\s*(\S+)\|\s*(\d+)\|\s*(\d+)\|\s*(\d+)\|\s*([0-9.]+)\|\s*(PASSED|WEAK|FAILED)")


def _results(out: str) -> list[str]:
    return [m.group(0).strip() for m in map(_DH_LINE.match, out.splitlines()) if m]


def _dieharder(args: list[str], stdin: int | None = None, timeout: float = BACKSTOP_S) -> str:
    """dieharder's output; ``""`` when ``timeout`` (s) ran out (the run is killed)."""
    try:
        return subprocess.run(
            [*NICE, "dieharder", *args], capture_output=True, text=True, stdin=stdin, timeout=timeout
        ).stdout
    except subprocess.TimeoutExpired:
        return ""


def _with_p(spec: list[str], p: int) -> list[str]:
    """``spec`` with its ``-p`` (if any) replaced by ``-p p``."""
    out: list[str] = []
    it = iter(spec)
    for x in it:
        if x == "-p":
            next(it)
        else:
            out.append(x)
    return [*out, "-p", str(p)]


def run_dieharder(
    dump: Path, mbytes: int, tests: list[int], retest_budget_s: float = 300
) -> tuple[list[str], list[str], float]:
    """Each test (and ``-a``'s ntuple sweep) on its own over ``dump``.

    A test that still reads past the end (dieharder reports the file
    "rewound") runs again with the psamples that fit. Each WEAK result is run
    once more on fresh data, a live ``cabinet rng-dump --bytes 0 -`` stream into
    ``-g 200`` (as far as ``retest_budget_s`` allows), and both lines are kept.

    Returns:
        (result lines, notes, seconds).
    """
    lines: list[str] = []
    notes: list[str] = []
    weak: list[list[str]] = []
    t0 = time.perf_counter()
    for d in tests:
        for n in NTUPLES.get(d, [None]):
            spec = ["-d", str(d)] + ([] if n is None else ["-n", str(n)])
            extra = size_args(d, n, mbytes)
            if extra:
                spec += extra
                notes.append(f"{' '.join(spec)}: fewer samples so the test fits the dump")
            t = time.perf_counter()
            out = _dieharder(["-g", "201", "-f", str(dump), *spec])
            rew = re.search(r"rewound (\d+) times", out)
            got = _results(out)
            if rew and int(rew.group(1)) > 0 and got:
                used = int(got[0].split("|")[3])
                p = max(2, int(used * 0.9 / (int(rew.group(1)) + 1)))
                notes.append(
                    f"{' '.join(spec)}: {used} psamples rewound the dump {rew.group(1)} times; run again with -p {p}"
                )
                spec = _with_p(spec, p)
                out = _dieharder(["-g", "201", "-f", str(dump), *spec])
                got = _results(out)
                rew = re.search(r"rewound (\d+) times", out)
                if rew and int(rew.group(1)) > 0:
                    notes.append(f"{' '.join(spec)}: still rewound {rew.group(1)} times")
            if not got:
                notes.append(f"{' '.join(spec)}: no result; output tail: {out[-300:]!r}")
            verdicts = [g.split("|")[-1].strip() for g in got]
            log(
                f"dieharder {' '.join(spec)}: {len(got)} results in "
                f"{time.perf_counter() - t:.0f} s {sorted(set(verdicts))}"
            )
            lines += got
            if "WEAK" in verdicts:
                weak.append(spec)
    spent = 0.0
    for spec in weak:
        if spent > retest_budget_s:
            notes.append(f"{' '.join(spec)}: WEAK not re-tested (re-test budget spent)")
            continue
        t = time.perf_counter()
        gen = subprocess.Popen(
            [*NICE, sys.executable, "-m", "cabinet", "rng-dump", "--bytes", "0", "-"], stdout=subprocess.PIPE, cwd=ROOT
        )
        assert gen.stdout is not None
        try:
            out = _dieharder(
                ["-g", "200", *spec], stdin=gen.stdout.fileno(), timeout=max(30.0, retest_budget_s - spent)
            )
        finally:
            gen.stdout.close()
            gen.kill()
            gen.wait()
        got = _results(out)
        spent += time.perf_counter() - t
        if not got:
            notes.append(
                f"{' '.join(spec)}: WEAK re-test stopped at the re-test budget "
                f"(the fresh stream is slow); not re-tested"
            )
        log(
            f"dieharder {' '.join(spec)} re-test on a fresh stream: "
            f"{[g.split('|')[-1].strip() for g in got]} ({time.perf_counter() - t:.0f} s)"
        )
        lines += [f"{g}  (re-test of a WEAK on fresh data, -g 200)" for g in got]
    return lines, notes, time.perf_counter() - t0


# --- ent ----------------------------------------------------------------------------


def run_ent(dump: Path) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [*NICE, "ent", str(dump)], capture_output=True, text=True, check=True, timeout=BACKSTOP_S
    ).stdout
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
        if all(b[:k] != b[m - k :] for k in range(1, m)):
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
    nbits = 10**6
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
    for name, k, *_ in tests:
        ps = per_test[name]
        n = len(ps)
        passed = sum(p >= 0.01 for p in ps)
        floor = math.floor(n * (0.99 - 3 * math.sqrt(0.99 * 0.01 / n))) if n else 0
        # uniformity only where a p-value is one statistic's (a Sidak-adjusted
        # minimum of dependent ones is not uniform: it leans high)
        unif = _igamc_uniformity(ps) if n >= 55 and k == 1 else float("nan")
        ok = n > 0 and passed >= floor and (unif != unif or unif >= 0.0001)
        accepted += ok
        extra = f" ({skipped[name]} sequences with < 500 cycles)" if skipped[name] else ""
        lines.append(f"{name:34} {passed:>4}/{n:<4}  {floor:>8}  {unif:>9.4f}  {'ok' if ok else 'REJECTED'}{extra}")
    return lines, accepted, len(tests), time.perf_counter() - t0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mbytes", type=int, default=1024, help="dump size in MiB (default 1024)")
    p.add_argument("--nist-sequences", type=int, default=100)
    p.add_argument("--out", type=Path, default=ROOT / "bench/results/rng.txt")
    p.add_argument("--keep", type=Path, help="keep the dump at this path")
    p.add_argument(
        "--dieharder-tests",
        type=lambda t: [int(x) for x in t.split(",")],
        default=DIEHARDER_TESTS,
        metavar="N,N,...",
        help="dieharder test numbers (default: all of -a, see dieharder -l)",
    )
    args = p.parse_args()
    for tool in ("dieharder", "ent"):
        if shutil.which(tool) is None:
            print(f"bench/rng.py: {tool} is not installed (apt-get install -y dieharder ent)", file=sys.stderr)
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
    verdicts = [ln.split("|")[-1].strip() for ln in dh_lines if "re-test" not in ln]
    retests = [ln.split("|")[-1].split()[0] for ln in dh_lines if "re-test" in ln]
    weak, failed = verdicts.count("WEAK"), verdicts.count("FAILED")
    chi = re.search(
        r"Chi square distribution for (\d+) samples is ([0-9.]+), and randomly\s+"
        r"would exceed this value ([0-9.<> ]+) percent",
        ent_out,
    )
    summary = [
        "RNG bench (bench/rng.py): secrets.SystemRandom through the shoe's randrange",
        f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; python {sys.version.split()[0]}",
        f"dump: {mbytes} MiB, cabinet rng-dump --bytes {nbytes} --scaled 2**64, written in {gen_s:.0f} s",
        "",
        f"dieharder 3.31.1 (-g 201 -f dump, each -a test alone, -a's RGB ntuple sweeps, "
        f"nice -n 10; {dh_s:.0f} s): {len(verdicts)} results on the dump, "
        f"{verdicts.count('PASSED')} PASSED, {weak} WEAK (expected ~{len(verdicts) / 100:.1f} "
        f"at 1 %), {failed} FAILED; re-tests of the WEAK on fresh data: "
        f"{', '.join(retests) or 'none'}",
        *(f"  note {n}" for n in dh_notes),
        f"ent ({ent_s:.0f} s): chi-square {chi.group(2) if chi else '?'} over "
        f"{chi.group(1) if chi else '?'} bytes, a random file exceeds it "
        f"{chi.group(3).strip() if chi else '?'} % of the time",
        f"NIST SP 800-22 (sp80022suite 0.0.8, {args.nist_sequences} x 10**6 bits; {nist_s:.0f} s): "
        f"{nist_ok}/{nist_n} tests accepted",
        "",
        "== NIST SP 800-22 ==",
        *nist_lines,
        "",
        "== ent ==",
        ent_out,
        "",
        "== dieharder ==",
        "        test_name   |ntup| tsamples |psamples|  p-value |Assessment",
        *dh_lines,
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(summary))
    print("\n".join(summary[:12]))
    return 0 if failed == 0 and nist_ok == nist_n else 1


if __name__ == "__main__":
    raise SystemExit(main())
