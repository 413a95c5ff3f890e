"""An optional mypyc-compiled copy of the package, for long simulations.

Copies ``cabinet/`` (the ``.py`` files) to ``OUT/cabinet`` and compiles there,
with mypyc, the modules a simulated round runs through: the rules core
(``cabinet.game`` but ``errors``, whose exceptions subclass built-in types) and
the simulator's ``strategy``, ``autoplay`` and ``simulate``. The compiled
modules are extension modules beside their sources; Python loads an extension
module before a ``.py`` of the same name, so::

    PYTHONPATH=build/compiled .venv/bin/cabinet simulate classic --rounds 10000000

(or ``cabinet simulate ... --compiled``) runs the same code compiled; without
it nothing changes: the package, the cabinet and the tests stay pure Python. The compiled modules make
the same decisions and draw the same cards (``bench/simulate_old_vs_new.py
--compiled`` checks the tallies), but refuse some ill-typed input with
``TypeError`` where the pure code gives its own error (a float bet, say): it is
for simulations, never for the cabinet.

``OUT/SOURCES.sha256`` holds the hash of the ``cabinet/`` sources it was built
from (``cabinet.strategy.compiled``); ``--check`` exits 1 when the copy is
missing or older than the sources.

Needs mypy (mypyc ships with it: ``pip install -e '.[compiled]'``) and a C
compiler with the Python headers. Run: ``.venv/bin/python bench/build_compiled.py
[--out build/compiled] [--check]``; about a minute.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cabinet.strategy.compiled import COMPILED_DIR, ROOT, STAMP, is_current, sources_hash

COMPILED = (
    "cabinet/game/cards.py",
    "cabinet/game/events.py",
    "cabinet/game/hand.py",
    "cabinet/game/round.py",
    "cabinet/game/rules.py",
    "cabinet/game/shoe.py",
    "cabinet/game/view.py",
    "cabinet/strategy/strategy.py",
    "cabinet/strategy/autoplay.py",
    "cabinet/strategy/simulate.py",
)
"""The modules compiled, as paths under the root."""


def build(out: Path) -> None:
    """Copy and compile into ``out`` (replacing what was there).

    Raises:
        SystemExit: mypyc failed (its output is shown) or the compiled modules
            do not load.
    """
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(
        ROOT / "cabinet", out / "cabinet", ignore=shutil.ignore_patterns("__pycache__", "*.so", "MANIFEST.sha256")
    )
    shutil.copy(ROOT / "pyproject.toml", out / "pyproject.toml")  # the [tool.mypy] settings
    mypyc = Path(sys.executable).with_name("mypyc")
    cmd = [str(mypyc) if mypyc.exists() else "mypyc", *COMPILED]
    proc = subprocess.run(cmd, cwd=out, capture_output=True, text=True, check=False, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"mypyc failed:\n{proc.stdout}\n{proc.stderr}")
    probe = "import cabinet.game.round as r, cabinet.strategy.simulate as s; print(r.__file__); print(s.__file__)"
    env = dict(os.environ, PYTHONPATH=str(out))
    files = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=out, capture_output=True, text=True, check=False, timeout=120
    ).stdout.split()
    if len(files) != 2 or not all(f.endswith(".so") for f in files):
        raise SystemExit(f"the compiled modules do not load from {out}: {files}")
    (out / STAMP).write_text(sources_hash() + "\n")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", type=Path, default=COMPILED_DIR)
    p.add_argument("--check", action="store_true", help="only say whether the copy is current")
    args = p.parse_args()
    if args.check:
        ok = is_current(args.out)
        print(f"{args.out}: {'current' if ok else 'missing or out of date'}")
        return 0 if ok else 1
    build(args.out)
    print(f"{args.out}: compiled {len(COMPILED)} modules; run with PYTHONPATH={args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
