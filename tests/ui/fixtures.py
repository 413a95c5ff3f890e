"""Fixture snapshots for the UI screenshot tests: every variant and screen.

Each fixture is a ``Case``: a ``Snapshot`` plus the UI-side state the frame
depends on (connected, help shown, ``now_ms``). Built by hand, as the engine
would send them.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from cabinet.protocol.snapshot import (
    DealerView,
    HandpayView,
    HandView,
    MaintenanceView,
    RecallView,
    Snapshot,
    SpotView,
    StationView,
    TimerView,
)

TEXTS = ["BLACKJACK PAYS 3 TO 2", "DEALER MUST STAND ON ALL 17", "INSURANCE PAYS 2 TO 1"]
CHIPS = [100, 500, 2_500, 10_000]
HELP = [
    "One deck, shuffled before every round.",
    "Blackjack pays 3 to 2; a win pays 1 to 1; a push returns your bet.",
    "The dealer draws on 16 or less and stands on every 17, soft 17 included.",
    "The dealer checks for Blackjack when the up card is an Ace.",
    "Insurance is offered when the dealer shows an Ace: it costs half your bet and pays 2 to 1.",
    "Double on 9, 10 or 11 with your first two cards; not after a split.",
    "Split two cards of the same rank once; King and Ten are not a pair.",
    "A hand of 11 cards stands. A hand that reaches 21 stands.",
    "After a split, Ace and a ten-value card count 21, not Blackjack.",
    "Bets from 1 to 100 credits of $1.00. Use BET + and BET \u2212, then DEAL.",
    "Malfunctions void all plays and pays.",
]


@dataclass(frozen=True)
class Case:
    """One screenshot: a snapshot and the UI state around it."""

    name: str
    snapshot: Snapshot
    now_ms: int = 1_000
    connected: bool = True
    show_help: bool = False
    own_station: int | None = None
    #: The time of day is always on a table screen, and the player's language
    #: button offers English and Spanish, as ``python -m ui`` draws them by default
    clock: str = "21:50"
    #: The screen's language, the languages its button offers, refusal notices
    language: str = "en"
    languages: tuple[str, ...] = ("en", "es")
    notices: dict[int, str] | None = None


def classic(**kw: object) -> Snapshot:
    base: dict[str, object] = dict(
        seq=10,
        mode="betting",
        variant="classic",
        variant_name="Classic Blackjack",
        credit_minor=100,
        table_texts=TEXTS,
        help_lines=HELP,
        min_bet_minor=100,
        max_bet_minor=10_000,
        spots_per_station=1,
    )
    base.update(kw)
    return Snapshot(**base)  # type: ignore[arg-type]


def multi(**kw: object) -> Snapshot:
    base: dict[str, object] = dict(
        seq=20,
        mode="betting",
        variant="classic-multi",
        variant_name="Classic BlackJack (multi-player table)",  # RULES.md's name
        table_texts=TEXTS,
        help_lines=HELP[:6],
        chip_values_minor=CHIPS,
        min_bet_minor=100,
        max_bet_minor=50_000,
        spots_per_station=1,
    )
    base.update(kw)
    return Snapshot(**base)  # type: ignore[arg-type]


def american(**kw: object) -> Snapshot:
    base: dict[str, object] = dict(
        seq=30,
        mode="betting",
        variant="american",
        variant_name="American Blackjack",
        table_texts=TEXTS,
        help_lines=HELP[:6],
        chip_values_minor=CHIPS,
        min_bet_minor=100,
        max_bet_minor=50_000,
        spots_per_station=3,
    )
    base.update(kw)
    return Snapshot(**base)  # type: ignore[arg-type]


def hand(cards: list[str], stake: int, total: str, **kw: object) -> HandView:
    return HandView(cards=cards, stake_minor=stake, total_text=total, **kw)  # type: ignore[arg-type]


CLASSIC_BETTING = classic(
    message="Place your bets",
    stations=[
        StationView(
            station=1,
            credits_minor=10_000,
            bet_minor=500,
            spots=[SpotView(spot=1, bet_minor=500)],
            lamps=["bet_up", "bet_down", "deal", "cash_out"],
        )
    ],
)

CLASSIC_INSURANCE = classic(
    seq=11,
    mode="in_round",
    message="Insurance?",
    dealer=DealerView(cards=["AS"], total_text="11"),
    stations=[
        StationView(
            station=1,
            credits_minor=9_500,
            bet_minor=500,
            message="Insurance? It costs 2 credits",
            spots=[SpotView(spot=1, bet_minor=500, hands=[hand(["TH", "9C"], 500, "19", active=True)])],
            lamps=["insure", "decline"],
        )
    ],
)

CLASSIC_ELEVEN = classic(
    seq=12,
    mode="in_round",
    message="",
    dealer=DealerView(cards=["9H"], total_text="9"),
    stations=[
        StationView(
            station=1,
            credits_minor=9_000,
            bet_minor=1_000,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=1_000,
                    hands=[
                        hand(
                            ["2S", "AH", "2D", "AC", "2C", "3H", "AD", "2H", "3S", "AS", "3D"], 1_000, "21", active=True
                        )
                    ],
                )
            ],
            lamps=[],
        )
    ],
)

CLASSIC_CHECKS = classic(
    seq=13,
    mode="in_round",
    message="Dealer checks for Blackjack",
    dealer=DealerView(cards=["AH"], face_down=0, total_text="soft 11"),
    stations=[
        StationView(
            station=1,
            credits_minor=9_250,
            bet_minor=500,
            insurance_minor=250,
            spots=[SpotView(spot=1, bet_minor=500, insurance_minor=250, hands=[hand(["6C", "AD"], 500, "soft 17")])],
        )
    ],
)

CLASSIC_PUSH = classic(
    seq=14,
    mode="betting",
    message="Push",
    dealer=DealerView(cards=["KS", "7D", "4H"], total_text="21"),
    stations=[
        StationView(
            station=1,
            credits_minor=12_345,
            bet_minor=500,
            win_minor=500,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=500,
                    hands=[hand(["9D", "2S", "JH"], 500, "21", outcome="push", returned_minor=500)],
                )
            ],
            lamps=["bet_up", "bet_down", "deal", "cash_out"],
        )
    ],
)

MULTI_BETTING = multi(
    message="Place your bets",
    timer=TimerView(kind="bet", seconds_left=12),
    stations=[
        StationView(
            station=1,
            credits_minor=25_000,
            bet_minor=3_100,
            ready=True,
            selected_chip_minor=2_500,
            spots=[SpotView(spot=1, bet_minor=3_100, chips_minor=[2_500, 500, 100])],
            lamps=["chip", "place", "clear", "cash_out"],
        ),
        StationView(
            station=2,
            credits_minor=4_000,
            bet_minor=0,
            selected_chip_minor=100,
            spots=[SpotView(spot=1, bet_minor=0)],
            lamps=["chip", "place", "cash_out"],
        ),
        StationView(
            station=3,
            credits_minor=123_456,
            bet_minor=10_000,
            selected_chip_minor=10_000,
            spots=[SpotView(spot=1, bet_minor=10_000, chips_minor=[10_000])],
            lamps=["chip", "place", "clear", "deal", "cash_out"],
        ),
    ],
)

MULTI_PLAY = multi(
    seq=21,
    mode="in_round",
    message="Station 2: your decision",
    timer=TimerView(kind="decision", seconds_left=4, station=2),
    dealer=DealerView(cards=["6D"], total_text="6"),
    stations=[
        StationView(
            station=1,
            credits_minor=21_900,
            bet_minor=3_100,
            spots=[
                SpotView(
                    spot=1, bet_minor=3_100, chips_minor=[2_500, 500, 100], hands=[hand(["TH", "7C"], 3_100, "17")]
                )
            ],
        ),
        StationView(
            station=2,
            credits_minor=3_000,
            bet_minor=1_000,
            message="Split hand 1",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=1_000,
                    chips_minor=[500, 500],
                    hands=[
                        hand(["8S", "3D"], 500, "11", from_split=True, active=True),
                        hand(["8H", "TC"], 500, "18", from_split=True),
                    ],
                )
            ],
            lamps=["hit", "stand", "double"],
        ),
        StationView(
            station=3,
            credits_minor=113_456,
            bet_minor=10_000,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=10_000,
                    chips_minor=[10_000],
                    hands=[hand(["AS", "KD"], 10_000, "BLACKJACK", blackjack=True)],
                )
            ],
        ),
    ],
)

MULTI_DEALER_BJ = multi(
    seq=22,
    mode="betting",
    message="Dealer has Blackjack",
    dealer=DealerView(cards=["AS", "KH"], total_text="BLACKJACK"),
    stations=[
        StationView(
            station=1,
            credits_minor=20_750,
            bet_minor=500,
            insurance_minor=250,
            win_minor=750,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=500,
                    chips_minor=[500],
                    insurance_minor=250,
                    hands=[hand(["TC", "8D"], 500, "18", outcome="lose", returned_minor=0)],
                )
            ],
            lamps=["chip", "place", "clear", "deal", "cash_out"],
            selected_chip_minor=500,
        )
    ],
)

AMERICAN_PLAY = american(
    seq=31,
    mode="in_round",
    message="",
    dealer=DealerView(cards=["TD"], face_down=1, total_text="10"),
    stations=[
        StationView(
            station=1,
            credits_minor=48_000,
            bet_minor=4_500,
            selected_chip_minor=500,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_000,
                    chips_minor=[1_000] if False else [500, 500, 500, 500],
                    hands=[
                        hand(["AS", "KH"], 1_000, "21", from_split=True),
                        hand(["AD", "9C"], 1_000, "soft 20", from_split=True),
                    ],
                ),
                SpotView(
                    spot=2,
                    bet_minor=2_000,
                    chips_minor=[500, 500],
                    hands=[hand(["7S", "4H", "9D"], 2_000, "20", doubled=True)],
                ),
                SpotView(spot=3, bet_minor=500, chips_minor=[500], hands=[hand(["5C", "8D"], 500, "13", active=True)]),
            ],
            lamps=["hit", "stand"],
        )
    ],
)

AMERICAN_SETTLED = american(
    seq=32,
    mode="betting",
    message="Place your bets",
    dealer=DealerView(cards=["TD", "QC"], total_text="20"),
    stations=[
        StationView(
            station=1,
            credits_minor=52_250,
            bet_minor=0,
            win_minor=6_250,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_500,
                    chips_minor=[2_500],
                    hands=[
                        hand(
                            ["AS", "KH"], 2_500, "BLACKJACK", blackjack=True, outcome="blackjack", returned_minor=6_250
                        )
                    ],
                ),
                SpotView(
                    spot=2,
                    bet_minor=1_000,
                    chips_minor=[500, 500],
                    hands=[hand(["QS", "JH"], 1_000, "20", outcome="push", returned_minor=1_000)],
                ),
                SpotView(
                    spot=3,
                    bet_minor=500,
                    chips_minor=[500],
                    hands=[hand(["9C", "7D", "8S"], 500, "BUST", outcome="bust", returned_minor=0)],
                ),
            ],
            lamps=["chip", "place", "rebet", "new_game", "cash_out"],
            selected_chip_minor=2_500,
        )
    ],
)

AMERICAN_EMPTY = american(
    seq=33,
    mode="betting",
    message="Place your bets",
    stations=[
        StationView(
            station=1,
            credits_minor=9_400,
            bet_minor=600,
            selected_chip_minor=100,
            spots=[SpotView(spot=1, bet_minor=600, chips_minor=[500, 100])],
            lamps=["chip", "place", "undo", "clear", "deal", "cash_out"],
        )
    ],
)

# Each station's own result on its console, the table line per station.
MULTI_SETTLED = multi(
    seq=23,
    mode="betting",
    message="Station 1 wins $5.00 \u00b7 Station 2 wins $25.00 \u00b7 Station 3 loses",
    dealer=DealerView(cards=["TC", "7S"], total_text="17"),
    stations=[
        StationView(
            station=1,
            credits_minor=10_500,
            bet_minor=0,
            win_minor=1_000,
            message="You win $5.00",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=500,
                    chips_minor=[500],
                    hands=[hand(["TS", "9H"], 500, "19", outcome="win", returned_minor=1_000)],
                )
            ],
            lamps=["chip", "rebet", "cash_out"],
        ),
        StationView(
            station=2,
            credits_minor=12_500,
            bet_minor=0,
            win_minor=5_000,
            message="You win $25.00",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_500,
                    chips_minor=[2_500],
                    hands=[hand(["KH", "8D"], 2_500, "18", outcome="win", returned_minor=5_000)],
                )
            ],
            lamps=["chip", "rebet", "cash_out"],
        ),
        StationView(
            station=3,
            credits_minor=9_900,
            bet_minor=0,
            message="Dealer wins",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=100,
                    chips_minor=[100],
                    hands=[hand(["9C", "6D"], 100, "15", outcome="lose", returned_minor=0)],
                )
            ],
            lamps=["chip", "rebet", "cash_out"],
        ),
    ],
)

# Told why: the minimum, an out-of-service station, a note returned.
MULTI_TOLD_WHY = multi(
    seq=24,
    mode="betting",
    message="Place your bets",
    min_bet_minor=500,
    stations=[
        StationView(
            station=1,
            credits_minor=10_000,
            bet_minor=100,
            selected_chip_minor=100,
            message="Minimum bet $5.00",
            spots=[SpotView(spot=1, bet_minor=100, chips_minor=[100])],
            lamps=["chip", "place", "clear", "cash_out"],
        ),
        StationView(
            station=2,
            credits_minor=4_000,
            bet_minor=0,
            fault="Out of service: 300 Bill acceptor jam - call attendant",
            spots=[SpotView(spot=1, bet_minor=0)],
            lamps=["cash_out"],
        ),
        StationView(
            station=3,
            credits_minor=95_000,
            bet_minor=0,
            selected_chip_minor=500,
            refusal="Note returned: credit limit $1,000.00",
            spots=[SpotView(spot=1, bet_minor=0)],
            lamps=["chip", "place", "cash_out"],
        ),
    ],
)

# Insurance says its cost; the dealer's lone Ace reads "1 or 11".
AMERICAN_INSURANCE = american(
    seq=34,
    mode="in_round",
    message="Spot 1: insurance costs $2.50",
    dealer=DealerView(cards=["AC"], face_down=1, total_text="1 or 11"),
    stations=[
        StationView(
            station=1,
            credits_minor=7_000,
            bet_minor=3_000,
            message="Insurance? It costs $2.50",
            spots=[
                SpotView(spot=1, bet_minor=500, chips_minor=[500], hands=[hand(["TS", "7S"], 500, "17")]),
                SpotView(spot=2, bet_minor=2_500, chips_minor=[2_500], hands=[hand(["9H", "8H"], 2_500, "17")]),
            ],
            lamps=["insure", "decline"],
        )
    ],
)


CLASSIC_VOUCHER_REFUSED = classic(
    seq=15,
    message="Press Bet + to bet, then Deal",
    stations=[
        StationView(
            station=1,
            credits_minor=2_000,
            bet_minor=0,
            refusal="Voucher refused: expired - see attendant",
            spots=[SpotView(spot=1, bet_minor=0)],
            lamps=["bet_up", "cash_out"],
        )
    ],
)


def _american_help() -> Snapshot:
    """The real rules text, whose long rules continue on indented lines."""
    from cabinet.core.rules_text import rules_text
    from cabinet.game import preset

    return american(
        help_lines=rules_text(preset("american")), stations=AMERICAN_EMPTY.stations, message="Place your bets"
    )


OVERLAY_BASE = CLASSIC_INSURANCE

_HINT = "Up/Down: choose   Select: open or change   Back: return   Key off: leave"
_ENTRY_HINT = "Up/Down: character   Select: type it   Back: cancel   Touch a key to type it"


def _maint(
    seq: int,
    page: str,
    title: str,
    lines: list[str],
    items: list[str] | None = None,
    selected: int = 0,
    hint: str = _HINT,
    level: str = "attendant",
    variant: str = "classic",
) -> Snapshot:
    return Snapshot(
        seq=seq,
        mode="maintenance",
        variant=variant,
        variant_name="Classic Blackjack",
        maintenance=MaintenanceView(
            page=page, title=title, lines=lines, items=items or [], selected=selected, hint=hint, level=level
        ),
    )


# The main menu at the attendant level (technician items marked)
MAINT = _maint(
    90,
    "main",
    "Maintenance",
    [
        "Game: Classic Blackjack · Rounds played: 412",
        "Power-ups: 3",
        "Level: attendant (items marked technician ask for the PIN)",
        "Program: blackjack-cabinet 0.1.0 · SHA-256 3f2a9b11...77e09c01",
    ],
    [
        "Meters",
        "Game recall",
        "Event log",
        "Bill history",
        "Diagnostics",
        "Settings (technician)",
        "Faults",
        "Voucher history",
        "Handpay history",
        "Host",
        "Change PIN (technician)",
        "Export audit report (technician)",
        "RAM clear (technician)",
    ],
    selected=2,
)

# The settings page (technician), typed rows, defaults shown in force
MAINT_SETTINGS = _maint(
    91,
    "settings",
    "Settings",
    ["Changes apply between rounds and are logged."],
    [
        "Game: classic",
        "Stations: 1 (default)",
        "Spots per station: 1 (default)",
        "Minimum bet: $5.00",
        "Maximum bet: $100.00 (default)",
        "Bet step: $1.00 (default)",
        "Chips: none (default)",
        "Bet timer (s): 30 s (default)",
        "Decision timer (s): 30 s (default), unused: one station",
        "Cut card: shuffle every round (default)",
        "Credit limit: $3,000.00 (default)",
        "Voucher limit: $1,200.00 (default)",
        "Jackpot handpay limit: $1,200.00 (default)",
        "Voucher expiry (days): 30 (default)",
        "Bills accepted: $1, $5, $10, $20, $50, $100 (default)",
        "Venue name: Demo Casino (default)",
        "Venue address 1: 12 HIGH ST",
        "Venue address 2: (none) (default)",
        "Machine number: 0001 (default)",
        "Recall depth (rounds): 10 (default)",
        "Volume (%): 70 (default)",
        "Attract sound: on (default)",
        "Save settings",
        "Discard changes",
    ],
    selected=3,
    level="technician",
)

# The RAM clear page, the technician without the door
MAINT_RAM_CLEAR = _maint(
    92,
    "ram_clear",
    "RAM clear",
    [
        "A RAM clear erases:",
        "- Station 1 credits $10.00",
        "- Station 2 credits $20.00",
        "- Station 3 credits $50.00",
        "- Pending handpays: none",
        "- Meters, game recall, bill history and the event log",
        "It keeps:",
        "- 1 outstanding voucher ($20.00), redeemable once",
        "- Its own record in the event log (dated, with what it erased)",
        "- The settings (save them again before play resumes), the PIN, the lifetime meters",
        "Needs the technician PIN and the main or logic door open. Now: technician, doors open: none.",
        "Refused: open the main or logic door first (credits and outstanding vouchers on the cabinet)",
    ],
    ["Confirm RAM clear"],
    level="technician",
    variant="classic-multi",
)

_DIGITS = [str(d) for d in range(10)] + ["Delete", "Enter", "Cancel"]
# The technician PIN typed on screen (dots), after a wrong one
MAINT_PIN = _maint(
    93,
    "main",
    "Technician PIN",
    ["Technician PIN", "> \u25cf\u25cf_", "Wrong PIN (1 of 3)"],
    _DIGITS,
    selected=4,
    hint=_ENTRY_HINT,
)
# Three wrong PINs: locked out
MAINT_PIN_LOCKED = _maint(
    94,
    "main",
    "Technician PIN",
    ["Technician PIN", "> _", "PIN entry locked: 57 s left"],
    _DIGITS,
    selected=11,
    hint=_ENTRY_HINT,
)
# A name typed with the keypad
MAINT_TEXT_ENTRY = _maint(
    95,
    "settings",
    "Settings: Venue name",
    ["Venue name (letters, digits, space)", "> LUCKY STAR BAR_"],
    [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "Space", ".", ",", "-", "&", "'", "/", "#", "Delete", "Enter", "Cancel"],
    selected=45,
    hint=_ENTRY_HINT,
    level="technician",
)
# The Meters page with the actual and par sheet RTP
MAINT_METERS = _maint(
    96,
    "meters",
    "Meters",
    [
        "Actual RTP since the last RAM clear: 97.84 % · lifetime: 98.91 % (coin out / coin in)",
        "Par sheet RTP of Classic Blackjack: 99.89 % (basic strategy)",
        "Station 1: credits $103.50",
        "  Coin in $4,125.00 · Coin out $4,036.00 · RTP 97.84 %",
        "  Insurance in $35.00 · out $60.00",
        "  Bills in $1,250.00 (31) · $5.00x12 $20.00x14 $100.00x5",
        "  Vouchers in $220.00 (4) · out $980.00 (9)",
        "  Handpaid $1,300.00 (1) · Jackpots handpaid $0.00 (0)",
        "  Voided returns $0.00 · reclaimed $0.00",
        "  Games 412: won 178, lost 201, pushed 33",
        "  Blackjacks 19 · Doubles 41 · Splits 12 · Insurance 7",
        "Power-ups 3 · Games since power-up 120 · since door close 44",
        "Door openings: cashbox 2, main 1",
        "RAM clears 1 · lifetime coin in $9,870.00 · coin out $9,762.50",
    ],
)
# The bill history, by denomination
MAINT_BILLS = _maint(
    97,
    "bills",
    "Bill history",
    [
        "Last 35 bills: $5.00 x20, $20.00 x8, $100.00 x7",
        "01-15 08:00  station 1  $20.00",
        "01-15 07:58  station 1  $5.00",
        "01-15 07:58  station 1  $100.00",
        "01-15 07:41  station 1  $5.00  (credited by the attendant)",
        "01-15 07:40  station 1  $20.00",
    ],
)
# The event log filtered to the menu's own events
MAINT_EVENTS = _maint(
    98,
    "events",
    "Event log: menu",
    [
        "01-15 08:00:12 · pin lockout · cabinet · attendant, locked 60 s",
        "01-15 08:00:10 · pin wrong · cabinet · attendant, 3 wrong in a row",
        "01-15 07:59:58 · maintenance page · cabinet · meters, attendant",
        "01-15 07:59:50 · maintenance enter · cabinet · attendant",
    ],
    hint="Select: next filter   Up/Down: pages   Back: return   Key off: leave",
)
# The export page after writing to a USB stick
MAINT_EXPORT = _maint(
    99,
    "export",
    "Export audit report",
    [
        "Meters per station, bills by denomination, handpays.",
        "Figures since the last export (last: 12-01 15:30).",
        "Written to a USB stick when one is mounted.",
        "Written to /media/cabinet/AUDIT/audit-0001-20270115-080000.csv",
    ],
    ["Write the audit report"],
    level="technician",
)

# A recalled round drawn as the table looked (american, a split and a double)
_RECALL = RecallView(
    round_id=412,
    station=1,
    index=2,
    count=10,
    when="01-15 08:00:00",
    dealer=DealerView(cards=["8C", "5S", "QH"], total_text="BUST"),
    table=StationView(
        station=1,
        credits_minor=12_000,
        bet_minor=2_000,
        win_minor=4_000,
        spots=[
            SpotView(
                spot=1,
                bet_minor=500,
                hands=[
                    HandView(
                        cards=["KS", "QC", "AS"],
                        stake_minor=1_000,
                        total_text="21",
                        outcome="win",
                        returned_minor=2_000,
                        doubled=True,
                        from_split=True,
                    ),
                    HandView(
                        cards=["KD", "9C", "AH"],
                        stake_minor=500,
                        total_text="20",
                        outcome="win",
                        returned_minor=1_000,
                        from_split=True,
                    ),
                ],
            ),
            SpotView(
                spot=2,
                bet_minor=500,
                hands=[
                    HandView(cards=["AH", "3H"], stake_minor=500, total_text="14", outcome="win", returned_minor=1_000)
                ],
            ),
        ],
    ),
    credits_before_minor=10_000,
    credits_after_minor=12_000,
    wagered_minor=2_000,
    returned_minor=4_000,
    steps=[
        "play seat 1 spot 1 hand 1: split",
        "play seat 1 spot 1 hand 1: double",
        "play seat 1 spot 1 hand 2: hit",
        "play seat 1 spot 1 hand 2: stand",
        "play seat 1 spot 2 hand 1: stand",
    ],
)
MAINT_RECALL = Snapshot(
    seq=100,
    mode="maintenance",
    variant="american",
    variant_name="American Blackjack",
    table_texts=["BLACKJACK PAYS 3 TO 2", "DEALER MUST STAND ON ALL 17", "INSURANCE PAYS 2 TO 1"],
    chip_values_minor=[100, 500, 2_500, 10_000],
    spots_per_station=3,
    maintenance=MaintenanceView(
        page="recall",
        title="Game recall",
        lines=["RECALL MODE"],
        items=[f"Round {412 - i}" for i in range(10)],
        selected=1,
        level="attendant",
        recall=_RECALL,
    ),
)

ATTRACT = classic(seq=1, mode="attract", message="", stations=[StationView(station=1, credits_minor=0)])


def _overlay(name: str, text: str = "", **kw: object) -> Snapshot:
    import msgspec

    return msgspec.structs.replace(OVERLAY_BASE, overlay=name, overlay_text=text, **kw)


CASES: list[Case] = [
    Case("classic_betting", CLASSIC_BETTING),
    Case("classic_insurance", CLASSIC_INSURANCE),
    Case("classic_eleven_cards", CLASSIC_ELEVEN),
    Case("classic_dealer_checks", CLASSIC_CHECKS),
    Case("classic_push", CLASSIC_PUSH),
    Case("multi_betting_3", MULTI_BETTING),
    Case("multi_play_split", MULTI_PLAY),
    Case("multi_dealer_blackjack", MULTI_DEALER_BJ),
    Case("american_3_spots", AMERICAN_PLAY),
    Case("american_settled", AMERICAN_SETTLED),
    Case("american_betting", AMERICAN_EMPTY),
    Case("overlay_door_open", _overlay("door_open", mode="door_open")),
    Case("overlay_tilt", _overlay("tilt", "Bill acceptor jammed (fault 21)", mode="tilt")),
    Case(
        "overlay_handpay",
        _overlay(
            "handpay",
            mode="handpay",
            handpay=HandpayView(
                amount_minor=125_000, reason="Ticket printer offline", validation_number="0012-3456-7890-1234"
            ),
        ),
    ),
    Case(
        "overlay_jackpot",
        _overlay(
            "handpay",
            "Handpay $1,537.50: call an attendant (a win of $1,200.00 or more is paid by hand); then 1 more handpay",
            mode="handpay",
            handpay=HandpayView(
                amount_minor=153_750,
                reason="a win of $1,200.00 or more is paid by hand",
                station=1,
                kind="jackpot",
                waiting=1,
            ),
        ),
    ),
    Case("overlay_printing", _overlay("printing", "Cashing out $95.00", mode="cash_out")),
    Case("overlay_ram_error", _overlay("ram_error", "Stored round failed its integrity check", mode="tilt")),
    Case("overlay_disconnected", CLASSIC_INSURANCE, connected=False),
    Case("help", CLASSIC_BETTING, show_help=True),
    Case("help_american_rules", _american_help(), show_help=True),
    Case("multi_settled_per_station", MULTI_SETTLED),
    Case("multi_told_why", MULTI_TOLD_WHY),
    Case("american_insurance_cost", AMERICAN_INSURANCE),
    Case("classic_voucher_refused", CLASSIC_VOUCHER_REFUSED),
    Case("overlay_tilt_station", _overlay("tilt", "900 Engine fault; Station 3: 402 Printer cover open", mode="tilt")),
    Case("attract", ATTRACT, now_ms=3_500),
    Case(
        "attract_multi_player",
        msgspec.structs.replace(  # the long name, clear of the shoe
            ATTRACT, variant="classic-multi", variant_name="Classic BlackJack (multi-player table)"
        ),
        now_ms=4_200,
        clock="16:05",
    ),
    # Each station's own screen (its spots, meters and buttons large, the others small)
    Case("own_station_2_play_split", MULTI_PLAY, own_station=2, clock="21:47"),
    Case("own_station_1_settled", MULTI_SETTLED, own_station=1, clock="21:48"),
    Case("own_station_3_betting", MULTI_BETTING, own_station=3, clock="09:05"),
    Case("maintenance", MAINT),
    Case("maintenance_settings", MAINT_SETTINGS),
    Case("maintenance_ram_clear", MAINT_RAM_CLEAR),
    Case("maintenance_pin", MAINT_PIN),
    Case("maintenance_pin_locked", MAINT_PIN_LOCKED),
    Case("maintenance_text_entry", MAINT_TEXT_ENTRY),
    Case("maintenance_meters", MAINT_METERS),
    Case("maintenance_bills", MAINT_BILLS),
    Case("maintenance_events", MAINT_EVENTS),
    Case("maintenance_export", MAINT_EXPORT),
    Case("maintenance_recall", MAINT_RECALL),
    # The key turned mid-round
    Case(
        "multi_maintenance_after_round",
        msgspec.structs.replace(MULTI_PLAY, message="Station 2: hit or stand? \u00b7 Maintenance after this round"),
    ),
    # The casino host link per station; station 2 disabled by the host
    Case(
        "classic_host_online",
        msgspec.structs.replace(
            CLASSIC_BETTING, stations=[msgspec.structs.replace(CLASSIC_BETTING.stations[0], host_link="online")]
        ),
    ),
    Case(
        "multi_host_disabled",
        msgspec.structs.replace(
            MULTI_BETTING,
            stations=[
                msgspec.structs.replace(MULTI_BETTING.stations[0], host_link="online"),
                msgspec.structs.replace(
                    MULTI_BETTING.stations[1],
                    host_link="online",
                    lamps=["cash_out"],
                    message="Play disabled by the casino host",
                ),
                msgspec.structs.replace(MULTI_BETTING.stations[2], host_link="offline"),
            ],
        ),
    ),
]

# The Diagnostics screens, as the cabinet core sends them
from tests.ui.fixtures_diagnostics import diagnostics_cases  # noqa: E402
from tests.ui.fixtures_pages import page_cases  # noqa: E402

CASES += [Case(name, snap) for name, snap in diagnostics_cases()]
CASES += [Case(name, snap) for name, snap in page_cases()]

# The player's own History panel
from tests.ui.fixtures_player import player_cases  # noqa: E402

CASES += [
    Case(name, snap, own_station=own, clock="21:50") for name, snap, own in player_cases(CLASSIC_BETTING, MULTI_PLAY)
]

# The table in Spanish
from tests.ui.fixtures_i18n import spanish_cases  # noqa: E402

CASES += spanish_cases()

# the storage tilt, the operator's confirmations and typed entries, made by the core
from tests.ui.fixtures_operator import operator_cases  # noqa: E402

CASES += [Case(name, snap, language=lang) for name, snap, lang in operator_cases()]
