"""``python -m ui``: the table UI process.

Usage::

    python -m ui --socket /run/cabinet/ui.sock [--size WxH] [--fullscreen]
                 [--portrait] [--station N] [--own-station] [--screenshot-dir DIR] [--no-sound]
                 [--sim-socket PATH] [--display-wait SECONDS] [--language LANG]
                 [--screens shared|per-station]

Windowed (1280x720 unless ``--size``) for development; ``--fullscreen``
takes the whole display with no cursor (KMSDRM on the cabinet);
``--display-wait`` keeps trying a display that comes up late (``ui.display``).
``--screens shared`` (or ``CABINET_SCREENS=shared`` in the environment; without
either, the engine's ``[display] screens`` setting) draws one shared wide screen
with a panel per station (``ui.shared_screen``; 1920x540 windowed unless ``--size``):
Tab moves the keys and dev keys to the next station's panel, a touch in a panel
focuses it. Imports
only ``cabinet.protocol.ipc``/``cabinet.protocol.snapshot`` from the engine side.

Signals: SIGTERM (and SIGINT) end the UI cleanly. With ``--screenshot-dir``,
SIGUSR1 saves ``DIR/shot-NNN.png`` (NNN = 001, 002... per signal) once the
animations have settled, and prints ``screenshot DIR/shot-NNN.png``.
``--sim-socket`` enables the dev keys of ``ui.devkeys`` (simulated devices
only; they never send intents).

Language: ``--language`` (default: the ``CABINET_UI_LANGUAGE``
environment variable, which the station's ``/etc/cabinet/ui-stationN.env`` sets, else
``en``): ``en``, ``es``, or with a territory for the number format (``es_ES``). An
unknown one is a configuration error (exit status 2, the key and what is allowed).
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import time

T0 = time.monotonic()


def parse_size(text: str) -> tuple[int, int]:
    """``"1920x1080"`` -> ``(1920, 1080)``.

    Raises:
        argparse.ArgumentTypeError: not two positive integers joined by ``x``.
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1920x1080, got {text!r}") from None
    if w <= 0 or h <= 0:
        raise argparse.ArgumentTypeError("size must be positive")
    return w, h


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m ui", description="Blackjack cabinet table UI")
    ap.add_argument("--socket", required=True, help="the engine's Unix socket path")
    ap.add_argument(
        "--size",
        type=parse_size,
        default=None,
        help="window size WxH (default 1280x720; with --fullscreen the display's own size)",
    )
    ap.add_argument("--fullscreen", action="store_true", help="full screen, no cursor (the cabinet)")
    ap.add_argument(
        "--portrait", action="store_true", help="portrait layout (rotated in software when the window is landscape)"
    )
    ap.add_argument("--station", type=int, default=1, choices=(1, 2, 3), help="station for keyboard intents")
    ap.add_argument(
        "--own-station",
        action="store_true",
        help="this window is its --station's own "
        "screen: its spots, meters and buttons large, the other players' hands small",
    )
    ap.add_argument("--screenshot-dir", default=None, help="save a PNG here on every mode/overlay change")
    ap.add_argument("--no-sound", action="store_true", help="stay silent")
    ap.add_argument(
        "--sim-socket",
        default=None,
        help="the engine's sim control socket: enables the dev "
        "keys F2-F9 and Shift+button (simulated notes, vouchers, doors, key, printer, panel)",
    )
    ap.add_argument(
        "--display-wait",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="keep trying to open the display this long when it is not there yet "
        "(a late KMSDRM display on the cabinet); default 0: fail at once",
    )
    ap.add_argument(
        "--language",
        default=None,
        metavar="LANG",
        help="the screen's default language: en or es, optionally with a territory for "
        "numbers and money (es_ES); default $CABINET_UI_LANGUAGE, else en",
    )
    ap.add_argument(
        "--screens",
        choices=("shared", "per-station"),
        default=os.environ.get("CABINET_SCREENS") or None,
        help="shared: one wide screen with a panel per station (Tab or a touch picks "
        "the station the keys act for); default: $CABINET_SCREENS, else the "
        "engine's [display] screens setting",
    )
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap


def language_setting(arg: str | None, environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """The screen's language: ``--language``, else ``$CABINET_UI_LANGUAGE``, else ``en``,
    checked.

    Raises:
        ConfigError: a language the table does not speak (``ui.i18n.parse_language``).
    """
    from ui import i18n

    if arg is not None:
        i18n.parse_language(arg, "--language", "python -m ui")
        return arg
    env = environ.get("CABINET_UI_LANGUAGE", "").strip()
    if not env:
        return i18n.DEFAULT
    i18n.parse_language(env, "CABINET_UI_LANGUAGE", "environment (/etc/cabinet/ui-stationN.env)")
    return env


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from confspec import ConfigError

    try:
        language = language_setting(args.language)
    except ConfigError as e:
        print(f"table UI: {e}", file=sys.stderr)
        return 2
    if args.screens not in (None, "shared", "per-station"):
        print(f"table UI: CABINET_SCREENS={args.screens!r}: give shared or per-station", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO, format="%(asctime)s ui %(levelname)s %(message)s"
    )
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    from ui.app import App
    from ui.client import EngineClient
    from ui.display import DisplayUnavailable, open_display
    from ui.input import KEY_HELP_TEXT
    from ui.shared_screen import SHARED_KEY_HELP_TEXT
    from ui.sound import Sounds

    if args.fullscreen:
        size = args.size or (0, 0)
    else:
        size = args.size or ((720, 1280) if args.portrait else (1920, 540) if args.screens == "shared" else (1280, 720))
    try:
        window = open_display(size, args.fullscreen, args.display_wait)
    except DisplayUnavailable as e:
        print(f"table UI: {e}", file=sys.stderr)
        return 1
    pygame.font.init()
    pygame.display.set_caption(
        f"Blackjack table: station {args.station}"
        if args.own_station
        else "Blackjack table: shared screen"
        if args.screens == "shared"
        else "Blackjack table"
    )
    pygame.event.set_blocked([pygame.MOUSEMOTION, pygame.FINGERMOTION, pygame.MOUSEWHEEL])
    sounds = Sounds(enabled=not args.no_sound)
    client = EngineClient(args.socket)
    app = App(
        window,
        client,
        station=args.station,
        screenshot_dir=args.screenshot_dir,
        portrait=args.portrait,
        sounds=sounds,
        flip=pygame.display.flip,
        own_station=args.own_station,
        update=pygame.display.update,
        wall_clock=lambda: time.strftime("%H:%M"),
        language=language,
        screens=args.screens or "",
    )

    def first_frame() -> None:
        gc.freeze()  # latency: start-up's objects stay; the collector skips them
        print(f"first frame after {(time.monotonic() - T0) * 1000:.0f} ms", flush=True)

    app.on_first_frame = first_frame
    print(
        f"table UI: engine socket {args.socket}, station {args.station}, "
        f"{window.get_width()}x{window.get_height()}, sound {'on' if sounds.available else 'off'}, "
        f"language {app.language.code} ({app.language.locale})"
    )
    print(KEY_HELP_TEXT)
    if args.screens == "shared":
        print(SHARED_KEY_HELP_TEXT)
    if args.sim_socket:
        from ui.devkeys import DEV_KEY_HELP_TEXT, DevKeys

        app.devkeys = DevKeys(args.sim_socket, station=args.station)
        app.devkeys.start()
        print(DEV_KEY_HELP_TEXT)
    sys.stdout.flush()
    _install_signals(app, args.screenshot_dir)
    try:
        app.run()
    except KeyboardInterrupt:
        pass
    finally:
        if app.devkeys is not None:
            app.devkeys.stop()
        pygame.quit()
    return 0


def _install_signals(app: object, screenshot_dir: str | None) -> None:
    """SIGTERM/SIGINT stop the loop; SIGUSR1 asks for a settled screenshot (see module doc)."""
    from ui.app import App

    assert isinstance(app, App)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda _s, _f: app.stop())
    if screenshot_dir and hasattr(signal, "SIGUSR1"):
        count = [0]

        def shot(_s: int, _f: object) -> None:
            count[0] += 1
            path = os.path.join(screenshot_dir, f"shot-{count[0]:03d}.png")
            app.request_screenshot(path)

        signal.signal(signal.SIGUSR1, shot)
        app.on_settled_shot = lambda path: print(f"screenshot {path}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
