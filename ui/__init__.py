"""The table UI process: draws engine snapshots, sends player intents.

Start it with::

    python -m ui --socket PATH [--size WxH] [--fullscreen] [--portrait]
                 [--station N] [--screenshot-dir DIR] [--no-sound] [--language LANG]

Modules: ``__main__`` (arguments, pygame start), ``app`` (loop, pacing,
screenshots), ``client`` (socket, hello, reconnect), ``input`` (pure
event -> intent adapter), ``render`` (pure ``draw(surface, snapshot,
now_ms, anim, connected, show_help)``), ``layout`` (logical 1920x1080 /
1080x1920 -> any display), ``widgets``, ``cards``, ``chips``, ``money``,
``theme``, ``assets`` (bundled DejaVu fonts), ``i18n`` (the screen's language:
gettext catalogs in ``locale/``), ``said`` (the engine's texts said in it), ``animation`` (tweens from
snapshot diffs and cues), ``tween``, ``motion`` (the settlement: lost stakes
swept to the rack, wins paid beside the stake, then collected into the credit
meter), ``settle_draw`` (drawing it), ``celebration`` (a win celebration scaled
to the win), ``sound`` (synthesised, silent without a device),
``scenes/`` (attract, help, maintenance, overlays).

Screenshots on demand: the engine sends ``Cue(name="screenshot",
data={"path": "/abs/file.png"})`` and the UI saves the next frame there
(atomically); ``--screenshot-dir DIR`` also saves ``<seq>-<mode>[-<overlay>].png``
on every mode or overlay change. ``ui.app.save_screenshot`` and
``ui.render.draw`` serve headless tools directly.

Cues understood (all optional; anything else is ignored): ``screenshot``
{path}; ``bill_stacked`` / ``voucher_accepted`` / ``credits_added`` (chip
sound); ``win``, ``blackjack`` (fanfares); ``sound`` {name: card|chip|win|
blackjack|big_win}. Card, flip, chip and settlement motion and their sounds come
from snapshot diffs, so they work with no cues at all.

The UI imports only ``cabinet.protocol.ipc`` and ``cabinet.protocol.snapshot`` from the engine.
"""
