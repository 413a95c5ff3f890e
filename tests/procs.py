"""Child processes in the tests and benches: every wait has a deadline that fires, and
its error says what the child printed.

``Child`` starts a process with stdout and stderr piped; one reader thread per stream
keeps its lines (the last ``KEEP_LINES`` of each), so a pipe never fills, a wait never
blocks on a ``readline()`` of a child that prints nothing, and what the child wrote to
stderr (a traceback, a one-line refusal, a "host offline" warning) is at hand when a
test fails. ``wait_for(pattern, deadline_s)`` returns the first new stdout line that
matches; it raises ``ChildTimeout`` when the deadline passes first and ``ChildExited``
when the child ends first, each with the tail of both streams.

Deadlines are backstops, not speed tests: they are set for a machine running the suite
on two workers beside other loads (a load average of 10 on 2 cores makes a 2 s start
take 10 s and more), so a healthy child never meets one.

Every ``Child`` started during a test is listed in ``started``; ``tests/conftest.py``
adds their output to the report of a test that fails, whatever the failed assertion.
"""

from __future__ import annotations

import collections
import contextlib
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TypeVar

#: Lines kept per stream (the oldest are dropped first).
KEEP_LINES = 2000
#: Lines of each stream an error shows.
TAIL_LINES = 40
#: The engine, the UI, the twins or the host twin up and saying so (``engine ready``,
#: ``first frame``, ``sim devices ready``, ``sas host ready``) on a loaded machine.
START_DEADLINE_S = 60.0
#: A child asked to stop (SIGTERM) has ended; then SIGKILL.
STOP_DEADLINE_S = 20.0

#: The children started since ``forget_started()`` (the conftest calls it per test; a
#: bench that starts thousands keeps the last 100).
started: collections.deque[Child] = collections.deque(maxlen=100)

T = TypeVar("T")


class ChildError(RuntimeError):
    """A child did not do what a test waited for; the message ends with its output."""


class ChildTimeout(ChildError, TimeoutError):
    """The deadline passed first."""


class ChildExited(ChildError):
    """The child ended first."""


class Child:
    """A process whose stdout and stderr are read on threads into ``lines``.

    Args:
        argv: the command.
        name: how errors call it ("engine", "ui", "sim-host").
        env, cwd: as ``subprocess.Popen``'s.
        stdin: ``subprocess.DEVNULL`` (default) or ``subprocess.PIPE``.
        start_new_session: its own session (a signal to the test's group misses it).
        merge_stderr: stderr into stdout, in the order written (``wait_for`` sees both).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        stdin: int = subprocess.DEVNULL,
        start_new_session: bool = False,
        merge_stderr: bool = False,
    ) -> None:
        self.name = name
        self.argv = [str(a) for a in argv]
        self.lines: dict[str, collections.deque[str]] = {
            "stdout": collections.deque(maxlen=KEEP_LINES),
            "stderr": collections.deque(maxlen=KEEP_LINES),
        }
        self._seen = 0  # stdout lines read so far (all of them, not only those kept)
        self._cursor = 0  # stdout lines ``wait_for`` has looked at
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            self.argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
            stdin=stdin,
            env=None if env is None else dict(env),
            cwd=cwd,
            text=True,
            errors="replace",
            start_new_session=start_new_session,
        )
        started.append(self)
        pipes = [("stdout", self.proc.stdout), ("stderr", self.proc.stderr)][: 1 if merge_stderr else 2]
        self._open = len(pipes)  # streams not at EOF yet
        for stream, pipe in pipes:
            assert pipe is not None
            threading.Thread(target=self._read, args=(stream, pipe), daemon=True, name=f"{name}-{stream}").start()

    # -- reading -----------------------------------------------------------------------------

    def _read(self, stream: str, pipe: IO[str]) -> None:
        try:
            for line in pipe:
                with self._cond:
                    self.lines[stream].append(line.rstrip("\n"))
                    if stream == "stdout":
                        self._seen += 1
                    self._cond.notify_all()
        except (OSError, ValueError):
            pass
        finally:
            with self._cond:
                self._open -= 1
                self._cond.notify_all()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def text(self, stream: str = "stdout") -> str:
        """What the child wrote to ``stream`` so far (its last ``KEEP_LINES`` lines)."""
        with self._cond:
            return "".join(line + "\n" for line in self.lines[stream])

    def tail(self, n: int = TAIL_LINES) -> str:
        """The last ``n`` lines of stdout and of stderr, labelled, and the exit status."""
        with self._cond:
            parts = []
            for stream in ("stdout", "stderr"):
                kept = list(self.lines[stream])[-n:]
                body = "\n".join(kept) if kept else "(nothing)"
                parts.append(f"--- {self.name} {stream} (last {len(kept)} lines) ---\n{body}")
        code = self.proc.poll()
        state = "still running" if code is None else f"exited with status {code}"
        return f"{self.name} (pid {self.proc.pid}) {state}\n" + "\n".join(parts)

    # -- waiting -----------------------------------------------------------------------------

    def wait_for(self, pattern: str | re.Pattern[str], deadline_s: float) -> str:
        """The first stdout line not looked at before that contains ``pattern`` (a string)
        or matches it (``re.search``).

        Raises:
            ChildTimeout: none within ``deadline_s`` seconds.
            ChildExited: the child closed its stdout (ended) without one.
        """

        def hit(line: str) -> bool:
            return pattern in line if isinstance(pattern, str) else bool(pattern.search(line))

        what = pattern if isinstance(pattern, str) else pattern.pattern
        deadline = time.monotonic() + deadline_s
        with self._cond:
            while True:
                kept = list(self.lines["stdout"])
                first = self._seen - len(kept)  # the number of kept[0] among all lines
                for i in range(max(self._cursor, first), self._seen):
                    if hit(kept[i - first]):
                        self._cursor = i + 1
                        return kept[i - first]
                self._cursor = self._seen
                if self._open == 0:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ChildTimeout(
                        f"{self.name} printed no line with {what!r} within {deadline_s:g} s\n{self.tail()}"
                    )
                self._cond.wait(min(left, 1.0))
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        raise ChildExited(f"{self.name} ended without a line with {what!r}\n{self.tail()}")

    def wait_exit(self, deadline_s: float) -> int:
        """The exit status, once the child ended and its output was read.

        Raises:
            ChildTimeout: still running after ``deadline_s`` seconds (it is left running:
                ``stop`` it).
        """
        try:
            code = self.proc.wait(deadline_s)
        except subprocess.TimeoutExpired:
            raise ChildTimeout(f"{self.name} still running after {deadline_s:g} s\n{self.tail()}") from None
        self._drain()
        return code

    def _drain(self, deadline_s: float = 5.0) -> None:
        """Let the readers take what the ended child left in its pipes (a grandchild
        that keeps a pipe open is not waited for longer than ``deadline_s``)."""
        with self._cond:
            self._cond.wait_for(lambda: self._open == 0, deadline_s)

    # -- ending ------------------------------------------------------------------------------

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL and reap."""
        if self.proc.poll() is None:
            self.signal(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(STOP_DEADLINE_S)
        self._drain(1.0)

    def stop(self, deadline_s: float = STOP_DEADLINE_S) -> int | None:
        """SIGTERM, wait up to ``deadline_s``, then SIGKILL; the exit status (its output
        read to the end)."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(deadline_s)
            except subprocess.TimeoutExpired:
                self.kill()
        self._drain()
        return self.proc.poll()

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_until(cond: Callable[[], T], deadline_s: float, what: str, *children: Child | None) -> T:
    """Poll ``cond`` every 50 ms until it returns something true, and return that.

    Raises:
        ChildTimeout: still false after ``deadline_s`` seconds, with ``children``'s output.
        ChildExited: one of ``children`` ended first.
    """
    deadline = time.monotonic() + deadline_s
    while True:
        got = cond()
        if got:
            return got
        for c in children:
            if c is not None and not c.running:
                raise ChildExited(f"{c.name} ended while waiting for {what}\n{c.tail()}")
        if time.monotonic() >= deadline:
            tails = "\n".join(c.tail() for c in children if c is not None)
            raise ChildTimeout(f"timed out after {deadline_s:g} s waiting for {what} (last: {got!r})\n{tails}")
        time.sleep(0.05)


def forget_started() -> None:
    """Start a new list of children (the conftest calls it before each test)."""
    started.clear()


def report(children: Sequence[Child] = ()) -> str:
    """The tails of ``children`` (default: every one in ``started``), for a failed test."""
    return "\n".join(c.tail() for c in (children or started))


def timeout_output(exc: subprocess.TimeoutExpired) -> str:
    """What a ``subprocess.run(..., timeout=)`` child printed before it was killed."""
    parts = []
    for stream, data in (("stdout", exc.stdout), ("stderr", exc.stderr)):
        text = data.decode(errors="replace") if isinstance(data, bytes) else (data or "")
        kept = text.splitlines()[-TAIL_LINES:]
        parts.append(f"--- {stream} (last {len(kept)} lines) ---\n" + ("\n".join(kept) or "(nothing)"))
    return f"{exc.cmd!r} timed out after {exc.timeout:g} s\n" + "\n".join(parts)
