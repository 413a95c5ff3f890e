"""What SAS coin in (0x00), coin out (0x01) and jackpot (0x02) mean, read from a station's
committed state in bytes: a hand-built poll in, the reply bytes out.

Aristocrat Monaco (github tejvirc/Platform) ``Protocol/SAS/Aristocrat.Monaco.Sas/
SASMeterCollection.cs``: 0x00 ``TotalCoinIn`` = ``GamingMeters.WageredAmount``, 0x01
``TotalCoinOut`` = ``TotalEgmPaidAmt``, 0x02 ``TotalJackpot`` = ``TotalHandPaidAmt``, 0x1C =
``TotalEgmPaidGameWonAmt``, 0x1F = ``HandPaidGameWonAmt``, 0x22 ``TotalWonCredits`` =
``TotalPaidAmt``; ``Gaming/Aristocrat.Monaco.Gaming/Aristocrat.Monaco.Gaming.addin.xml``:
``TotalPaidAmt = TotalEgmPaidAmt + TotalHandPaidAmt``; ``Commands/GameEndedCommandHandler.cs``
meters a game's win at its end as EGM paid (``gameWin - handPaidGameWin``) or hand paid,
never both; ``Commands/RuntimeEvents/PrimaryEventHandler.cs``: a wager made during the
game (``AdditionalWager``, as insurance is) is a ``Wager``, counted in ``WageredAmount``.
So coin in - coin out - jackpot is what the machine kept.
"""

from __future__ import annotations

from cabinet.core.events import KeyChanged
from cabinet.core.settings import GameSettings
from cabinet.shell.host_view import SasStation, egm_view
from drivers.sas import bcd
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder
from drivers.sas.host_codec import general_poll, to_wire

from .helpers import Rig


def _ask(rig: Rig, message: bytes, denom: int = 1) -> bytes:
    """The reply bytes of the station-1 EGM to one hand-built message."""
    view = egm_view(
        rig.cab.s, 1, SasStation("loop://", accounting_denomination_minor=denom), "", rig.cab.rules.max_bet_minor
    )
    r = EgmResponder(1)
    r.update(view)
    out = r.receive(to_wire(general_poll(0)) + to_wire(message), 0)  # type: ignore[arg-type]
    got = [o for o in out if isinstance(o, bytes)]
    assert len(got) == 1, got
    return got[0]


def _meters_19(rig: Rig) -> tuple[int, ...]:
    """0x19 (nCompass ``LongPoll19Message.cpp``): coin in, coin out, drop, jackpot, games
    played, 4 BCD each."""
    reply = _ask(rig, bytes.fromhex("01 19"))
    assert reply[:2] == bytes.fromhex("01 19") and with_crc(reply[:-2]) == reply
    return tuple(bcd.decode(reply[2 + 4 * i : 6 + 4 * i]) for i in range(5))


def _kept_minor(rig: Rig) -> int:
    """What play left in the cabinet: every wager less everything play paid out, to the
    credit meter or by hand."""
    m = rig.meters()
    return m.coin_in_minor + m.insurance_in_minor - m.coin_out_minor - m.insurance_out_minor


def _jackpot_rig() -> tuple[Rig, int]:
    """Deal and stand at the table minimum until a round's win reaches the jackpot limit
    (1.00: any win); returns the rig in its handpay lockup and the jackpot."""
    rig = Rig(GameSettings(jackpot_limit_minor=100), seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    for _ in range(80):
        rig.press("deal")
        rig.play_out()
        if rig.cab.mode == "handpay":
            return rig, rig.cab.s.stations[0].pending_out_minor
    raise AssertionError("no jackpot in the seeded play")


def test_a_hand_paid_jackpot_is_in_jackpot_and_not_in_coin_out() -> None:
    rig, jackpot = _jackpot_rig()
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    m = rig.meters()
    assert m.jackpot_handpay_minor == jackpot > 0 and m.insurance_in_minor == 0
    coin_in, coin_out, drop, got_jackpot, games = _meters_19(rig)
    assert (coin_in, coin_out, got_jackpot) == (m.coin_in_minor, m.coin_out_minor - jackpot, jackpot)
    assert coin_in - coin_out - got_jackpot == _kept_minor(rig)
    assert (drop, games) == (10_000, m.games_played)
    # 0x2F codes 00 01 02 1C 1F and 0x6F codes 0000 0001 0002 0022 say the same
    sel = _ask(rig, with_crc(bytes.fromhex("01 2F 07 0000 00 01 02 1C 1F")))
    assert sel == with_crc(
        bytes.fromhex("01 2F 1B 0000")
        + b"".join(
            bytes((c,)) + bcd.encode(v, 4)
            for c, v in ((0x00, coin_in), (0x01, coin_out), (0x02, jackpot), (0x1C, coin_out), (0x1F, jackpot))
        )
    )
    ext = _ask(rig, with_crc(bytes.fromhex("01 6F 0A 0000 0000 0100 0200 2200")))
    assert ext == with_crc(
        bytes.fromhex("01 6F 22 0000")
        + b"".join(
            c.to_bytes(2, "little") + b"\x05" + bcd.encode(v, 5)
            for c, v in ((0x00, coin_in), (0x01, coin_out), (0x02, jackpot), (0x22, coin_out + jackpot))
        )
    )


def test_a_jackpot_waiting_for_its_key_is_in_no_meter_and_coin_out_never_goes_down() -> None:
    """Monaco meters a game's win at its end, after the handpay; here the jackpot waits in
    the lockup: neither coin out nor jackpot holds it, and the key moves it to jackpot."""
    rig, jackpot = _jackpot_rig()
    m = rig.meters()
    coin_in, coin_out, _, got_jackpot, _ = _meters_19(rig)
    assert (coin_out, got_jackpot) == (m.coin_out_minor - jackpot, 0)
    rig.cab.handle(KeyChanged(True))
    rig.cab.handle(KeyChanged(False))
    after = _meters_19(rig)
    assert (after[0], after[1], after[3]) == (coin_in, coin_out, jackpot)


def test_insurance_is_a_wager_in_coin_in_and_its_return_is_in_coin_out() -> None:
    """Insurance is a wager made during the round (Monaco ``PrimaryEventHandler.cs``
    ``AdditionalWager`` -> ``Wager`` -> ``WageredAmount``); what it returns is paid to the
    credit meter by the machine."""
    rig = Rig(seed=3)
    rig.note(10_000)
    rig.press("bet_up")
    for _ in range(200):
        rig.press("deal")
        while rig.cab.mode == "in_round":
            p = rig.cab.round.prompt
            rig.press("insure" if p.kind == "insurance" else "stand", p.seat)
        if rig.meters().insurance_out_minor:
            break
    m = rig.meters()
    assert m.insurance_in_minor > 0 and m.insurance_out_minor > 0 and m.jackpot_handpay_minor == 0
    coin_in, coin_out, _, jackpot, _ = _meters_19(rig)
    assert (coin_in, coin_out, jackpot) == (
        m.coin_in_minor + m.insurance_in_minor,
        m.coin_out_minor + m.insurance_out_minor,
        0,
    )
    assert coin_in - coin_out - jackpot == _kept_minor(rig)
