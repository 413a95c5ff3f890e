"""The language chosen per station: every player text of a snapshot also
goes as ``Said`` parts (an English template and its arguments), which say exactly the
plain English text, so each screen can say it in its own language."""

from __future__ import annotations

import pytest

from cabinet.core import view
from cabinet.core.events import DoorChanged, NoteEscrowed, VoucherEscrowed
from cabinet.core.settings import GameSettings
from cabinet.protocol.said import Said, english, english_all, said
from cabinet.protocol.snapshot import Snapshot

from .helpers import Rig

SEEN: list[Snapshot] = []


@pytest.fixture(autouse=True)
def _record(monkeypatch):
    """Keep every snapshot the engine builds during the test."""
    SEEN.clear()
    real = view.build_snapshot

    def build(cab, seq):
        snap = real(cab, seq)
        SEEN.append(snap)
        return snap

    monkeypatch.setattr(view, "build_snapshot", build)
    yield


def _check(snap: Snapshot) -> int:
    """Assert the invariant on ``snap``; returns how many texts it checked."""
    sym = snap.currency_symbol
    n = 0

    def same(plain: str, parts: list[Said], joined: str) -> None:
        nonlocal n
        if plain:
            assert parts, f"{plain!r} has no Said parts"
            assert joined == plain
            n += 1

    same(snap.message, snap.message_said, english_all(snap.message_said, sym))
    for st in snap.stations:
        same(st.message, st.message_said, english_all(st.message_said, sym))
        same(st.refusal, st.refusal_said, ": ".join(english(p, sym) for p in st.refusal_said))
        if st.fault:
            assert (
                st.fault == "Out of service: " + "; ".join(english(p, sym) for p in st.fault_said) + " - call attendant"
            )
            n += 1
    if snap.overlay in ("door_open", "tilt", "printing"):
        sep = "; " if snap.overlay == "tilt" else " \u00b7 "
        same(snap.overlay_text, snap.overlay_said, sep.join(english(p, sym) for p in snap.overlay_said))
    assert [english(x, sym) for x in snap.help_said] == snap.help_lines
    if snap.handpay is not None and snap.handpay.reason_said:
        assert english_all(snap.handpay.reason_said, sym) == snap.handpay.reason
        n += 1
    return n


def _snap(rig: Rig) -> Snapshot:
    return rig.cab.snapshot(len(SEEN) + 1)


def _bet(rig: Rig, station: int, chip: int, spot: int = 1) -> None:
    rig.press("chip", station, chip)
    rig.press("place", station, spot)


def test_every_text_of_a_round_is_said_as_its_plain_english(stacked):
    """Attract, betting, insurance, play, results (one station, several
    spots, several stations), door, refusals: each text's Said parts say it exactly."""
    checked = 0
    # classic: attract, betting, a round played out
    rig = Rig()
    snaps = [_snap(rig)]
    rig.note(10_000)
    rig.press("bet_up")
    snaps.append(_snap(rig))
    rig.press("deal")
    snaps.append(_snap(rig))
    rig.play_out()
    snaps.append(_snap(rig))
    # a voucher and a note refused, the door opened and closed
    rig.cab.handle(VoucherEscrowed(1, "123456789012345678", None))
    snaps.append(_snap(rig))
    rig.cab.handle(DoorChanged("main", True))
    snaps.append(_snap(rig))
    rig.cab.handle(DoorChanged("main", False))
    snaps.append(_snap(rig))
    # american: insurance on spot 1, then each spot's result
    am = Rig(GameSettings(variant="american"))
    am.note(10_000)
    stacked.append(["10S", "9H", "AC", "7S", "8H", "5D", "2C", "3C"])
    _bet(am, 1, 500, 1)
    _bet(am, 1, 2_500, 2)
    am.press("deal")
    snaps.append(_snap(am))
    am.play_out()
    snaps.append(_snap(am))
    # multi: two stations, a note over the credit limit, below the minimum, each result
    mu = Rig(GameSettings(variant="classic-multi", stations=2, credit_limit_minor=100_000, min_bet_minor=500))
    mu.note(95_000, 2)
    mu.cab.handle(NoteEscrowed(2, 10_000, "x1"))
    mu.note(10_000, 1)
    _bet(mu, 1, 100)
    snaps.append(_snap(mu))
    _bet(mu, 1, 500)
    _bet(mu, 2, 500)
    mu.press("deal", 1)
    mu.press("deal", 2)
    snaps.append(_snap(mu))
    mu.play_out()
    snaps.append(_snap(mu))
    for snap in snaps + SEEN:
        checked += _check(snap)
    texts = {
        t
        for s in snaps
        for t in [s.message, *(st.message for st in s.stations), *(st.refusal for st in s.stations), s.overlay_text]
        if t
    }
    assert "Insurance? It costs $2.50" in texts or "Spot 1: insurance costs $2.50" in texts
    assert "Voucher refused: not issued here" in texts
    assert "Note returned: credit limit $1,000.00" in texts
    assert "Minimum bet $5.00" in texts
    assert any(t.startswith("Door open: main") for t in texts)
    assert any(t.startswith("Station 1 ") for t in texts), texts
    assert checked >= 12
    # every template the engine said is a msgid of the catalogs (marked for extraction)
    said_texts = {p.text for snap in snaps + SEEN for p in _parts(snap)}
    said_texts |= {
        v
        for snap in snaps + SEEN
        for p in _parts(snap)
        for k, v in p.args.items()
        if k.endswith("_text") and isinstance(v, str)
    }
    assert said_texts - _msgids() == set()
    assert len(said_texts) > 40


def _parts(snap: Snapshot) -> list[Said]:
    out = [*snap.message_said, *snap.overlay_said, *snap.help_said]
    for st in snap.stations:
        out += [*st.message_said, *st.refusal_said, *st.fault_said]
    if snap.handpay is not None:
        out += snap.handpay.reason_said
    return out


def _msgids() -> set[str]:
    from pathlib import Path

    from babel.messages.pofile import read_po

    with open(Path(__file__).resolve().parents[2] / "ui" / "locale" / "cabinet.pot", "rb") as fh:
        return {m.id for m in read_po(fh) if isinstance(m.id, str) and m.id}


def test_a_jackpots_reason_is_said_by_its_template():
    """The jackpot lockup's reason ("a win of $1.00 or more is paid by hand")
    goes as its template and the limit, so a Spanish screen says it too."""
    from tests.engine.test_machine_jackpot import _play_until_a_win

    rig = Rig(GameSettings(jackpot_limit_minor=100), seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    _play_until_a_win(rig)
    snap = _snap(rig)
    assert snap.handpay is not None and snap.handpay.kind == "jackpot"
    assert snap.handpay.reason == "a win of $1.00 or more is paid by hand"
    assert snap.handpay.reason_said == [said("a win of {limit_minor} or more is paid by hand", limit_minor=100)]
    assert _check(snap) >= 1


def test_every_no_ticket_and_print_handpay_reason_is_said_and_in_the_catalog():
    """Said in the screen's language too: a handpay for a ticket that could
    not print or got no validation from the host says its reason by template, so a
    Spanish screen reads it; each template is a msgid of the catalog."""
    from cabinet.core.events import PrintFinished
    from tests.engine.test_tito_core import TitoRig

    reasons = {}
    cases = [
        (
            "print failed",
            lambda r: r.cab.handle(PrintFinished(1, r.cab.s.stations[0].printing.validation_number, "failed")),
            {},
        ),
        ("denied", lambda r: r.command("validation_number", validation_number=""), {}),
        ("bad number", lambda r: r.command("validation_number", validation_number="12"), {}),
        ("timeout", lambda r: r.advance(10_100), {}),
    ]
    for name, act, kw in cases:
        rig = TitoRig(validation="none" if name == "print failed" else "system", **kw)
        rig.note(2_500)
        rig.press("cash_out")
        act(rig)
        snap = _snap(rig)
        assert snap.handpay is not None, name
        assert snap.handpay.reason_said, (name, snap.handpay.reason)
        assert english_all(snap.handpay.reason_said) == snap.handpay.reason
        reasons[name] = snap.handpay.reason_said[0]
    assert reasons["denied"] == said("no ticket: {why_text}", why_text="validation denied by the casino host")
    ids = _msgids()
    for p in reasons.values():
        assert p.text in ids, p.text
        assert all(v in ids for k, v in p.args.items() if k.endswith("_text")), p.args
