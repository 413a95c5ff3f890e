"""The language chosen per station: the table's screens in Spanish.

Each snapshot carries its texts as the engine sends them: the plain English
``message`` and its ``Said`` parts (``cabinet.protocol.said``), built with the
engine's own templates; ``english_all`` of the parts is checked against the plain
text, so a fixture cannot drift from what the engine says. ``tests.ui.fixtures`` adds
``spanish_cases()`` to its ``CASES``: import that module first (this one uses its
snapshots).
"""

from __future__ import annotations

import msgspec

from cabinet.core.rules_text import rules_said
from cabinet.game import preset
from cabinet.protocol.said import Said, english, english_all, said
from cabinet.protocol.snapshot import HandpayView, Snapshot, SpotView, StationView
from tests.ui import fixtures as f
from tests.ui.fixtures_player import history_rows, with_history, with_reminder

#: the languages the player's button offers on these screens
BOTH = ("en", "es")


def _st(
    st: StationView, message: list[Said] | None = None, refusal: list[Said] | None = None, sym: str = "$", **kw: object
) -> StationView:
    """``st`` with its texts as the engine sends them (plain and ``Said``)."""
    changes: dict[str, object] = dict(kw)
    if message is not None:
        changes.update(message=english_all(message, sym), message_said=message)
    if refusal is not None:
        changes.update(refusal=": ".join(english(p, sym) for p in refusal), refusal_said=refusal)
    return msgspec.structs.replace(st, **changes)


def _snap(
    s: Snapshot, message: list[Said] | None = None, stations: list[StationView] | None = None, **kw: object
) -> Snapshot:
    changes: dict[str, object] = dict(kw)
    if message is not None:
        changes.update(message=english_all(message, s.currency_symbol), message_said=message)
    if stations is not None:
        changes["stations"] = stations
    return msgspec.structs.replace(s, **changes)


def _in_spanish(text: object) -> str:
    """A UI-side text (a refusal's words) as the Spanish screen computes it."""
    from ui import i18n

    i18n.use("es")
    try:
        return text() if callable(text) else str(text)
    finally:
        i18n.use(i18n.DEFAULT)


BETTING = _snap(f.CLASSIC_BETTING, [said("Place your bets")])
assert BETTING.message == f.CLASSIC_BETTING.message

INSURANCE = _snap(
    f.CLASSIC_INSURANCE,
    [said("Insurance? It costs {cost_minor}", cost_minor=250)],
    [_st(f.CLASSIC_INSURANCE.stations[0], [said("Insurance? It costs {cost_minor}", cost_minor=250)])],
)

AMERICAN_PLAY = _snap(
    f.AMERICAN_PLAY,
    [said("Spot {spot}: hit or stand?", spot=3)],
    [_st(f.AMERICAN_PLAY.stations[0], [said("Your move")])],
)

AMERICAN_INSURANCE = _snap(
    f.AMERICAN_INSURANCE,
    [said("Spot {spot}: insurance costs {cost_minor}", spot=1, cost_minor=250)],
    [_st(f.AMERICAN_INSURANCE.stations[0], [said("Insurance? It costs {cost_minor}", cost_minor=250)])],
)
assert AMERICAN_INSURANCE.message == f.AMERICAN_INSURANCE.message
assert AMERICAN_INSURANCE.stations[0].message == f.AMERICAN_INSURANCE.stations[0].message

# the round as the engine tells it: Blackjack on spot 1 (net $37.50), a push, a bust
AMERICAN_SETTLED = _snap(
    f.AMERICAN_SETTLED,
    [
        said("Spot {n} Blackjack, wins {amount_minor}", n=1, amount_minor=3_750),
        said("Spot {n} pushes", n=2),
        said("Spot {n} loses", n=3),
    ],
)
assert AMERICAN_SETTLED.message == "Spot 1 Blackjack, wins $37.50 \u00b7 Spot 2 pushes \u00b7 Spot 3 loses"

_MS = f.MULTI_SETTLED.stations
MULTI_SETTLED = _snap(
    f.MULTI_SETTLED,
    [
        said("Station {n} wins {amount_minor}", n=1, amount_minor=500),
        said("Station {n} wins {amount_minor}", n=2, amount_minor=2_500),
        said("Station {n} loses", n=3),
    ],
    [
        _st(_MS[0], [said("You win {amount_minor}", amount_minor=500)]),
        _st(_MS[1], [said("You win {amount_minor}", amount_minor=2_500)]),
        _st(_MS[2], [said("Dealer wins")]),
    ],
)
assert MULTI_SETTLED.message == f.MULTI_SETTLED.message
assert [st.message for st in MULTI_SETTLED.stations] == [st.message for st in _MS]
#: after a round every station's lamps are those the engine lights then
#: (Bet +, New game, Rebet, the chips, Cash out): in Spanish they were two rows of buttons
_AFTER = ["bet_up", "cash_out", "chip", "new_game", "rebet"]
AFTER_ROUND = _snap(
    MULTI_SETTLED, stations=[msgspec.structs.replace(st, lamps=_AFTER) for st in MULTI_SETTLED.stations]
)

_MP = f.MULTI_PLAY.stations
MULTI_PLAY = _snap(
    f.MULTI_PLAY, [said("Station {seat}: hit or stand?", seat=2)], [_MP[0], _st(_MP[1], [said("Your move")]), _MP[2]]
)

_TW = f.MULTI_TOLD_WHY.stations
TOLD_WHY = _snap(
    f.MULTI_TOLD_WHY,
    [said("Place your bets")],
    [
        _st(_TW[0], [said("Minimum bet {min_minor}", min_minor=500)]),
        _st(_TW[1], fault_said=[said("{num} {what_text}", num=300, what_text="Bill acceptor jam")]),
        _st(_TW[2], refusal=[said("Note returned"), said("credit limit {limit_minor}", limit_minor=100_000)]),
    ],
)
assert [st.message for st in TOLD_WHY.stations] == [st.message for st in _TW]
assert [st.refusal for st in TOLD_WHY.stations] == [st.refusal for st in _TW]

VOUCHER_REFUSED = _snap(
    f.CLASSIC_VOUCHER_REFUSED,
    [said("Press Bet + to bet, then Deal")],
    [_st(f.CLASSIC_VOUCHER_REFUSED.stations[0], refusal=[said("Voucher refused"), said("expired - see attendant")])],
)
assert VOUCHER_REFUSED.stations[0].refusal == f.CLASSIC_VOUCHER_REFUSED.stations[0].refusal

#: a new game in Spanish, nothing bet, the host link online (78-es-newgame)
NEW_GAME_HOST = _snap(
    BETTING,
    stations=[
        msgspec.structs.replace(
            BETTING.stations[0],
            bet_minor=0,
            spots=[SpotView(spot=1, bet_minor=0)],
            host_link="online",
            lamps=["bet_up", "cash_out"],
        )
    ],
)

ATTRACT = _snap(f.ATTRACT, [said("Insert cash or a voucher to play")])

# the engine's help: the rules of the real presets, line by line
HELP_CLASSIC = _snap(
    BETTING, help_lines=[english(x) for x in rules_said(preset("classic"))], help_said=rules_said(preset("classic"))
)
HELP_AMERICAN = _snap(f._american_help(), help_said=rules_said(preset("american")))
assert HELP_AMERICAN.help_lines == [english(x) for x in HELP_AMERICAN.help_said]

PRINTING = _snap(
    INSURANCE,
    overlay="printing",
    mode="cash_out",
    overlay_text="Printing ticket for $95.00",
    overlay_said=[said("Printing ticket for {amount_minor}", amount_minor=9_500)],
)
DOOR_OPEN = _snap(
    INSURANCE,
    overlay="door_open",
    mode="door_open",
    overlay_text="Door open: main, cashbox. Play is suspended.",
    overlay_said=[said("Door open: {doors_texts}. Play is suspended.", doors_texts="main, cashbox")],
)
assert english_all(DOOR_OPEN.overlay_said) == DOOR_OPEN.overlay_text
_JACKPOT = said("a win of {limit_minor} or more is paid by hand", limit_minor=120_000)
JACKPOT = _snap(
    INSURANCE,
    overlay="handpay",
    mode="handpay",
    handpay=HandpayView(
        amount_minor=153_750, reason=english(_JACKPOT), reason_said=[_JACKPOT], station=1, kind="jackpot", waiting=1
    ),
)

_NO_TICKET = said("no ticket: {why_text}", why_text="validation denied by the casino host")
NO_TICKET = _snap(
    INSURANCE,
    overlay="handpay",
    mode="handpay",
    handpay=HandpayView(
        amount_minor=2_500, reason=english(_NO_TICKET), reason_said=[_NO_TICKET], station=1, kind="cancelled_credits"
    ),
)


def spanish_cases() -> list[f.Case]:
    """Every Spanish screen: betting, play, insurance's cost, a settled win,
    refusals, HISTORY, the reality check, the help pages, attract, overlays; and one in
    ``es_ES`` (its own number format) for comparison."""
    from ui.refusals import refusal_text

    C = f.Case
    minimum = _in_spanish(lambda: refusal_text(TOLD_WHY, 1, "deal"))
    short = _in_spanish(lambda: refusal_text(BETTING, 1, "bet_up", "over the maximum"))
    return [
        C("es_classic_betting", BETTING, language="es", languages=BOTH, clock="21:50"),
        C("es_classic_insurance", INSURANCE, language="es", languages=BOTH),
        C("es_american_3_spots", AMERICAN_PLAY, language="es", languages=BOTH),
        C("es_american_insurance_cost", AMERICAN_INSURANCE, language="es", languages=BOTH),
        C("es_american_settled", AMERICAN_SETTLED, language="es", languages=BOTH),
        C("es_ES_american_settled", AMERICAN_SETTLED, language="es_ES", languages=BOTH),
        C("es_own_station_1_settled", MULTI_SETTLED, language="es", languages=BOTH, own_station=1, clock="21:48"),
        C("es_own_station_1_after_round", AFTER_ROUND, language="es", languages=BOTH, own_station=1, clock="21:48"),
        # station 2's turn, seen from station 3 ("Su turno" stood there)
        C("es_own_station_3_sees_2_play", MULTI_PLAY, language="es", languages=BOTH, own_station=3, clock="21:47"),
        C("es_classic_new_game_host_online", NEW_GAME_HOST, language="es", languages=BOTH),
        C("es_own_station_3_betting", f.MULTI_BETTING, language="es", languages=BOTH, own_station=3, clock="09:05"),
        C("es_own_station_2_play_split", MULTI_PLAY, language="es", languages=BOTH, own_station=2, clock="21:47"),
        C("es_multi_told_why", TOLD_WHY, language="es", languages=BOTH, notices={1: minimum}),
        C("es_refusal_table_maximum", BETTING, language="es", languages=BOTH, notices={1: short}),
        C("es_classic_voucher_refused", VOUCHER_REFUSED, language="es", languages=BOTH),
        C(
            "es_history_classic_10",
            with_history(BETTING, 1, history_rows()),
            language="es",
            languages=BOTH,
            clock="21:50",
        ),
        C("es_history_empty", with_history(BETTING, 1, []), language="es", languages=BOTH),
        C("es_reality_check_classic", with_reminder(BETTING, 1, 30, -1_250), language="es", languages=BOTH),
        C(
            "es_reality_check_own_station_2",
            with_reminder(MULTI_PLAY, 2, 65, 2_500),
            language="es",
            languages=BOTH,
            own_station=2,
        ),
        C(
            "es_service_called_classic",
            msgspec.structs.replace(BETTING, stations=[msgspec.structs.replace(BETTING.stations[0], service=True)]),
            language="es",
            languages=BOTH,
        ),
        C("es_help", HELP_CLASSIC, show_help=True, language="es", languages=BOTH),
        C("es_help_american_rules", HELP_AMERICAN, show_help=True, language="es", languages=BOTH),
        C("es_attract", ATTRACT, now_ms=3_500, language="es", languages=BOTH),
        C("es_overlay_printing", PRINTING, language="es", languages=BOTH),
        C("es_overlay_door_open", DOOR_OPEN, language="es", languages=BOTH),
        C("es_overlay_jackpot", JACKPOT, language="es", languages=BOTH),
        C("es_overlay_handpay_no_ticket", NO_TICKET, language="es", languages=BOTH),
        C("es_overlay_disconnected", INSURANCE, connected=False, language="es", languages=BOTH),
    ]
