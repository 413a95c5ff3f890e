"""``cabinet run --stations N``: one table screen per station, or one shared wide
screen with a panel per station (``--screens shared``).

Owns: setting the journal's game to seat ``N`` players, or to ``--variant``
(through the operator menu, as an attendant would: ``ensure_stations``), where the station windows
sit when they share one display (``tile_positions``), each station's UI
command line (``ui_command``) and, headless, the demo players of every
station playing the one table together (``run_demos``). The processes
themselves are started and stopped by ``cabinet.tools.launcher``. Nothing
here imports pygame.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from cabinet.protocol.languages import station_languages

#: Called after the demo's cash-outs with the table watch, the sim control and each
#: station's ``DemoResult`` (``cabinet.tools.run_tickets``' ticket tour).
AfterCashOut = Callable[[Any, Any, list[Any]], None]
#: The station windows' size on one shared display (two columns fit 1920x1080).
TILE_SIZE = (960, 540)
#: The variant that seats more than one player (RULES.md: ``classic-multi``, 1-3 seats).
MULTI_VARIANT = "classic-multi"
#: A window's smallest and largest ``--size`` (the table's layout needs 320x240; 8K is the top).
MIN_SIZE, MAX_SIZE = (320, 240), (7680, 4320)


def size_refusal(size: str) -> str:
    """Why ``--size`` ``size`` (``"1280x720"``) cannot be used, in one line, or ``""``:
    not ``WIDTHxHEIGHT``, below ``MIN_SIZE`` or above ``MAX_SIZE`` in either side."""
    w, _, h = size.partition("x")
    if not (w.isdigit() and h.isdigit()):
        return f"cabinet run: --size {size!r}: give WIDTHxHEIGHT, e.g. 1280x720"
    if int(w) < MIN_SIZE[0] or int(h) < MIN_SIZE[1]:
        return f"cabinet run: --size {size} is too small: at least {MIN_SIZE[0]}x{MIN_SIZE[1]}"
    if int(w) > MAX_SIZE[0] or int(h) > MAX_SIZE[1]:
        return f"cabinet run: --size {size} is too large: at most {MAX_SIZE[0]}x{MAX_SIZE[1]}"
    return ""


def rounds_refusal(rounds: int) -> str:
    """The one line refusing ``--rounds`` ``rounds`` (below 1: the demo plays at least one)."""
    return f"cabinet run: --rounds must be 1 or more, got {rounds}"


#: ``--screens``: a screen per station, or one shared wide screen (``[display] screens``).
SCREENS = ("per-station", "shared")
#: The shared screen's window (32:9, as a 3840x1080 panel halved; fits one 1920 display).
SHARED_SIZE = (1920, 540)


def display_toml(display: str) -> str:
    """The ``cabinet.toml`` lines setting the cabinet's screens (``[display] screens``,
    ``cabinet.shell.config.DisplayConfig``): none for ``per-station``, the default.

    Raises:
        ValueError: ``display`` not one of ``SCREENS``.
    """
    if display not in SCREENS:
        raise ValueError(f"--screens {display!r}: expected one of {', '.join(SCREENS)}")
    return "" if display == "per-station" else f'[display]\nscreens = "{display}"\n'


def tile_positions(count: int, width: int, height: int, columns: int = 2) -> list[tuple[int, int]]:
    """Top-left corners (pixels) of ``count`` windows of ``width`` x ``height`` tiled
    left to right, then top to bottom, ``columns`` to a row (station 1 top left).

    Raises:
        ValueError: ``count`` not 1-3 or a size not positive.
    """
    if not 1 <= count <= 3 or width <= 0 or height <= 0:
        raise ValueError(f"tile {count} windows of {width}x{height}: expected 1-3 positive-sized windows")
    cols = max(1, min(columns, count))
    return [((i % cols) * width, (i // cols) * height) for i in range(count)]


def station_language(setting: str, station: int) -> str:
    """Station ``station``'s language of ``cabinet run --language``: one for
    every station (``"es"``), or one per station (``"en,es,en"``; a station past the
    list takes the last). Checked by ``cabinet run`` (``check_station_languages``) and,
    with its territory, by the UI it is given to (``ui.i18n``)."""
    parts = station_languages(setting)
    return parts[min(station, len(parts)) - 1] if parts else ""


def ui_command(
    python: str,
    sock: Path,
    station: int,
    count: int,
    size: str,
    frames: Path,
    sim_sock: Path | None,
    shared: bool = False,
) -> list[str]:
    """The ``python -m ui`` command line of station ``station``'s screen (of ``count``):
    its own station for keys and touches; with several stations, its own-station
    layout (``--own-station``: its spots, meters and buttons large, the others small),
    or with ``shared`` the one shared wide screen (``--screens shared``: a panel per
    station, the keys first for ``station``)."""
    argv = [
        python,
        "-m",
        "ui",
        "--socket",
        str(sock),
        "--size",
        size,
        "--screenshot-dir",
        str(frames),
        "--station",
        str(station),
    ]
    if shared:
        argv += ["--screens", "shared"]
    elif count > 1:
        argv.append("--own-station")
    if sim_sock is not None:
        argv += ["--sim-socket", str(sim_sock)]
    else:
        argv.append("--no-sound")
    return argv


def shot_takers(
    shots: list[Any], count: int, shared: bool
) -> tuple[list[Callable[[str], Any]], list[Callable[[str, str], Any]]]:
    """Each station's ``(settled, grab)`` screenshot takers, from the launcher's
    ``Shots`` of each UI: its own screen's, or with ``shared`` the one UI's, each
    station's pictures named for it (``station2-03-settled-round.png``)."""
    if not shared:
        return [sh.settled for sh in shots], [sh.grab for sh in shots]
    one = shots[0]
    prefixes = [f"station{n}-" for n in range(1, count + 1)]
    return (
        [functools.partial(one.settled, prefix=pre) for pre in prefixes],
        [functools.partial(one.grab, prefix=pre) for pre in prefixes],
    )


def ensure_stations(
    sock: Path,
    sim_sock: Path,
    stations: int | None,
    say: Callable[[str], None],
    variant: str | None = None,
    pin: Any = None,
) -> bool:
    """Make the engine's game ``variant`` seating ``stations`` players, by the operator menu.

    Leaves whatever an earlier run left open first (``DemoPlayer.tidy_up``);
    more than one station switches the game to ``classic-multi`` (the only
    variant with several seats); ``None`` keeps the table's. ``pin`` (a
    ``cabinet.tools.run_settings.PinPlan``, checked against the journal before the
    run started) is the technician PIN typed on the Settings page; ``None``: the
    demo's. Returns True when the station count changed: the engine must then be
    restarted, as after a settings change on the cabinet, to open the new
    stations' devices.

    Raises:
        DemoError: the menu refused (a station being removed still holds
            credits) or the table did not answer.
        OSError: the engine's sockets cannot be reached.
    """
    from cabinet.tools.demo_player import DemoPlayer
    from cabinet.tools.table_client import SimControl, TableWatch

    watch = TableWatch(sock, name="station-setup").start()
    sim = SimControl(sim_sock)
    try:
        snap = watch.snapshot
        assert snap is not None
        before = len(snap.stations)
        if before == (stations or before) and snap.variant == (variant or snap.variant):
            return False
        player = DemoPlayer(watch, sim, rounds=0, say=say)
        if pin is not None:
            player.pin, player.factory_pin = pin.pin, pin.factory
        player.tidy_up()
        want = variant or (MULTI_VARIANT if (stations or 1) > 1 else player.snap.variant)
        player.switch_variant(want, stations)
        if stations is not None:
            watch.wait_for(lambda s: len(s.stations) == stations, 5.0, f"{stations} station(s)")
        return len(player.snap.stations) != before
    finally:
        sim.close()
        watch.close()


def station_count(sock: Path) -> int:
    """How many stations the engine's table has now (from its snapshot).

    Raises:
        DemoError, OSError: the engine did not answer.
    """
    from cabinet.tools.table_client import TableWatch

    watch = TableWatch(sock, name="station-count").start()
    try:
        assert watch.snapshot is not None
        return max(1, len(watch.snapshot.stations))
    finally:
        watch.close()


def run_demo(
    sock: Path,
    sim_sock: Path,
    rounds: int,
    variant: str | None,
    shot: Callable[[str], Any],
    grab: Callable[[str, str], Any],
    stop: threading.Event,
    box: dict[str, Any],
    after_cash_out: AfterCashOut | None = None,
) -> None:
    """One station: the demo player plays ``rounds`` rounds (switching the game to
    ``variant`` first), cashes out (then ``after_cash_out`` with the watch, the sim
    control and its result) and tours the menu; ``box["result"]`` gets its
    ``DemoResult``, or ``box["error"]`` why it failed."""
    from cabinet.tools.demo_player import DemoPlayer
    from cabinet.tools.table_client import DemoError, SimControl, TableWatch

    watch = sim = None
    try:
        watch = TableWatch(sock, authenticate=True).start()
        sim = SimControl(sim_sock)
        want = variant or watch.snapshot.variant  # type: ignore[union-attr]
        future = strategy_future(want) if rounds else Future()
        player = DemoPlayer(
            watch,
            sim,
            rounds=rounds,
            variant=variant,
            strategy=future,
            shot=shot,
            grab=grab,
            stop=stop,
            say=lambda text: print(text, flush=True),
        )
        then = after_cash_out
        box["result"] = player.run(None if then is None else lambda: then(watch, sim, [player.result]))
    except DemoError as e:
        box["error"] = str(e)
    except Exception as e:  # reported by the main thread, never a silent thread death
        box["error"] = f"{type(e).__name__}: {e}"
    finally:
        if sim is not None:
            sim.close()
        if watch is not None:
            watch.close()


def strategy_future(variant: str) -> Future[Any]:
    """The exact basic strategy of ``variant``, derived (or read from the cache) on a
    daemon thread: a run that ends first does not wait for it."""
    import platformdirs

    from cabinet.shell.paths import APP
    from cabinet.tools.demo_strategy import load_strategy

    future: Future[Any] = Future()

    def derive() -> None:
        try:
            future.set_result(load_strategy(variant, Path(platformdirs.user_cache_dir(APP))))
        except Exception as e:
            future.set_exception(e)

    threading.Thread(target=derive, name="strategy", daemon=True).start()
    return future


def run_demos(
    sock: Path,
    sim_sock: Path,
    count: int,
    rounds: int,
    shots: list[Callable[[str], Any]],
    grabs: list[Callable[[str, str], Any]],
    stop: threading.Event,
    box: dict[str, Any],
    strategy: Future[Any],
    after_cash_out: AfterCashOut | None = None,
) -> None:
    """Headless ``--stations N``: one demo player per station plays the one table.

    Station 1's player leaves what an earlier run left open; then every player
    inserts its own note and plays ``rounds`` rounds at its own station (its own
    panel, acceptor, printer and console message, read from one shared
    authenticated ``TableWatch``: the engine takes four displays, three of them
    the station screens); then each cashes out in turn (one printer prints at a
    time), ``after_cash_out`` (if given) gets the watch, the sim control and every
    station's ``DemoResult``, and station 1's player tours the operator menu. ``box["result"]`` gets
    station 1's ``DemoResult`` and ``box["results"]`` every station's; on failure
    ``box["error"]`` says why (a player's failure as soon as it happens: ``play_station``).
    """
    from cabinet.tools.demo_player import DemoPlayer
    from cabinet.tools.table_client import DemoError, SimControl, TableWatch

    watch = sim = None
    try:
        watch = TableWatch(sock, authenticate=True).start()
        sim = SimControl(sim_sock)
        lock = threading.Lock()

        def say_for(n: int) -> Callable[[str], None]:
            def say(text: str) -> None:
                with lock:  # one whole line at a time: the players print from threads
                    print(f"station {n} {text}", flush=True)

            return say

        players = [
            DemoPlayer(
                watch,
                sim,
                rounds=rounds,
                strategy=strategy,
                station_no=n,
                shot=shots[n - 1],
                grab=grabs[n - 1],
                stop=stop,
                say=say_for(n),
            )
            for n in range(1, count + 1)
        ]
        players[0].tidy_up()
        threads = [
            threading.Thread(target=play_station, args=(p, box, stop), name=f"demo-{p.station_no}", daemon=True)
            for p in players
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if box.get("errors"):
            return
        for p in reversed(players):
            p.cash_out()
        if after_cash_out is not None:
            after_cash_out(watch, sim, [p.result for p in players])
        players[0].maintenance_tour()
        box["results"] = [p.result for p in players]
        box["result"] = players[0].result
    except DemoError as e:
        box["error"] = str(e)
    except Exception as e:
        box["error"] = f"{type(e).__name__}: {e}"
    finally:
        if sim is not None:
            sim.close()
        if watch is not None:
            watch.close()


def play_station(player: Any, box: dict[str, Any], stop: threading.Event) -> None:
    """One station's ``DemoPlayer.play_rounds()`` on a table several players share.

    A failure is never a silent thread death: it goes to ``box["errors"]`` as
    ``"station N: why"`` (what the player waited for, for a ``DemoError``), the first
    one also to ``box["error"]`` at once, and ``stop`` is set so the other players
    stop and ``cabinet run`` ends saying it (their ``"stopped"`` comes after).
    """
    from cabinet.tools.table_client import DemoError

    try:
        player.play_rounds()
    except Exception as e:
        why = str(e) if isinstance(e, DemoError) else f"{type(e).__name__}: {e}"
        line = f"station {player.station_no}: {why}"
        box.setdefault("errors", []).append(line)
        box.setdefault("error", line)
        stop.set()
