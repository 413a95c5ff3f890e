"""The engine's start on an installed cabinet (``cabinet-engine.service``):

    /opt/cabinet/.venv/bin/python -I -S -B /opt/cabinet/systemd/cabinet-boot.py engine ...

``-I``: no user site, no ``PYTHON*`` variables, no script folder on the path; ``-S``:
no ``site-packages`` and none of its ``.pth`` files yet; ``-B``: no ``.pyc`` written.
Only the program check (``cabinet.shell.program_check``, standard library only) is
imported from the venv before it has checked the venv against the release's signed
manifest; then ``boot`` puts ``site-packages`` on the path and runs ``cabinet``.
"""

import os
import sys

venv = os.path.dirname(os.path.dirname(sys.executable))     # .venv/bin/python: no -S, no venv
sys.path.append(f"{venv}/lib/python{sys.version_info[0]}.{sys.version_info[1]}/site-packages")
from cabinet.shell.program_check import boot  # noqa: E402  (after the path is set)

boot()
from cabinet.tools.cli import main  # noqa: E402  (only once the venv is checked)

sys.exit(main(sys.argv[1:]))
