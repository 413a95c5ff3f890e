"""Settlements for the motion and celebration tests ("The felt"): each a
``Settlement`` of the snapshot before the result and the settled one, and the
frames the goldens take of them (``MOTION_CASES``, ms after the result arrived)."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from cabinet.protocol.snapshot import DealerView, Snapshot, SpotView, StationView
from tests.ui.fixtures import AMERICAN_SETTLED, classic, hand, multi
from ui import motion

R = msgspec.structs.replace


def unsettled(s: Snapshot) -> Snapshot:
    """``s`` a moment before its result: the same table, no outcome, nothing returned."""
    return R(
        s,
        seq=s.seq - 1,
        mode="in_round",
        stations=[
            R(
                st,
                spots=[
                    R(
                        sp,
                        insurance_returned_minor=None,
                        hands=[R(h, outcome=None, returned_minor=None) for h in sp.hands],
                    )
                    for sp in st.spots
                ],
            )
            for st in s.stations
        ],
    )


def _classic_one(outcome: str, cards: list[str], total: str, stake: int, returned: int, **kw: object) -> Snapshot:
    return classic(
        seq=60,
        message="",
        dealer=DealerView(cards=["TS", "8D"], total_text="18"),
        stations=[
            StationView(
                station=1,
                credits_minor=20_000 + returned,
                bet_minor=0,
                win_minor=returned,
                spots=[
                    SpotView(
                        spot=1,
                        bet_minor=stake,
                        hands=[hand(cards, stake, total, outcome=outcome, returned_minor=returned, **kw)],
                    )
                ],
                lamps=["bet_up", "bet_down", "deal", "cash_out"],
            )
        ],
    )


CLASSIC_WIN = _classic_one("win", ["TH", "9C"], "19", 500, 1_000)
CLASSIC_BJ = _classic_one("blackjack", ["AS", "KD"], "BLACKJACK", 1_000, 2_500, blackjack=True)
CLASSIC_LOSE = _classic_one("lose", ["TH", "6C"], "16", 500, 0)
CLASSIC_PUSHED = _classic_one("push", ["TH", "8C"], "18", 500, 500)
#: an even-money win of the table's maximum bet: big by its amount
CLASSIC_MAX_WIN = _classic_one("win", ["TH", "9C"], "19", 10_000, 20_000)

#: a split of $5 with both hands doubled and won (4 times the bet), and a spot lost
AMERICAN_BIG = R(
    AMERICAN_SETTLED,
    seq=70,
    message="",
    dealer=DealerView(cards=["6D", "TC", "9S"], total_text="BUST"),
    stations=[
        StationView(
            station=1,
            credits_minor=60_000,
            bet_minor=0,
            win_minor=4_000,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=500,
                    chips_minor=[500, 500, 500, 500],
                    hands=[
                        hand(
                            ["8S", "3D", "KH"],
                            1_000,
                            "21",
                            from_split=True,
                            doubled=True,
                            outcome="win",
                            returned_minor=2_000,
                        ),
                        hand(
                            ["8H", "2C", "9D"],
                            1_000,
                            "19",
                            from_split=True,
                            doubled=True,
                            outcome="win",
                            returned_minor=2_000,
                        ),
                    ],
                ),
                SpotView(
                    spot=3,
                    bet_minor=100,
                    chips_minor=[100],
                    hands=[hand(["TC", "6S", "9H"], 100, "BUST", outcome="bust", returned_minor=0)],
                ),
            ],
            lamps=["chip", "place", "rebet", "new_game", "cash_out"],
            selected_chip_minor=500,
        )
    ],
)

#: three stations: a win, a doubled win (two stacks, paid beside), a loss
MULTI_DOUBLED = multi(
    seq=80,
    message="Station 1 wins $5.00 \u00b7 Station 2 wins $50.00 \u00b7 Station 3 loses",
    dealer=DealerView(cards=["TC", "7S"], total_text="17"),
    stations=[
        StationView(
            station=1,
            credits_minor=10_500,
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
            credits_minor=15_000,
            win_minor=10_000,
            message="You win $50.00",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_500,
                    chips_minor=[2_500, 2_500],
                    hands=[hand(["6H", "5D", "9C"], 5_000, "20", doubled=True, outcome="win", returned_minor=10_000)],
                )
            ],
            lamps=["chip", "rebet", "cash_out"],
        ),
        StationView(
            station=3,
            credits_minor=9_900,
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

#: the dealer's Blackjack: the hand lost, its insurance paid 2:1 beside the insurance line
MULTI_INSURANCE_PAID = multi(
    seq=90,
    message="Dealer has Blackjack",
    dealer=DealerView(cards=["AS", "KH"], total_text="BLACKJACK"),
    stations=[
        StationView(
            station=1,
            credits_minor=20_750,
            insurance_minor=1_250,
            win_minor=3_750,
            message="Dealer has Blackjack: $37.50 back",
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_500,
                    chips_minor=[2_500],
                    insurance_minor=1_250,
                    insurance_returned_minor=3_750,
                    hands=[hand(["TC", "8D"], 2_500, "18", outcome="lose", returned_minor=0)],
                )
            ],
            lamps=["chip", "place", "clear", "deal", "cash_out"],
            selected_chip_minor=500,
        )
    ],
)
#: the dealer peeked, no Blackjack: the insurance is lost while the hand plays on
INSURANCE_LOST_AT_PEEK = multi(
    seq=95,
    mode="in_round",
    message="Hit or stand?",
    dealer=DealerView(cards=["AS"], face_down=1, total_text="11"),
    stations=[
        StationView(
            station=1,
            credits_minor=20_000,
            bet_minor=2_500,
            insurance_minor=1_250,
            spots=[
                SpotView(
                    spot=1,
                    bet_minor=2_500,
                    chips_minor=[2_500],
                    insurance_minor=1_250,
                    insurance_returned_minor=0,
                    hands=[hand(["TC", "6D"], 2_500, "16", active=True)],
                )
            ],
            lamps=["hit", "stand", "double"],
        )
    ],
)
#: the next round begun: a bet placed after the settlement (the settled hands are gone)
AFTER_NEXT_BET = R(
    AMERICAN_SETTLED,
    seq=AMERICAN_SETTLED.seq + 5,
    message="Place your bets",
    dealer=DealerView(),
    stations=[
        StationView(
            station=1,
            credits_minor=51_750,
            bet_minor=500,
            selected_chip_minor=500,
            spots=[
                SpotView(spot=1, bet_minor=500, chips_minor=[500]),
                SpotView(spot=2, bet_minor=0),
                SpotView(spot=3, bet_minor=0),
            ],
            lamps=["chip", "place", "undo", "clear", "deal", "cash_out"],
        )
    ],
)

#: when the payout of a lone win (no loss before it) has landed, ms after the result
PAID_MS = motion.SETTLE_DELAY_MS + motion.PAY_MS


@dataclass(frozen=True)
class MotionCase:
    """One golden frame: ``settled`` drawn ``at_ms`` after it replaced ``unsettled(settled)``."""

    name: str
    settled: Snapshot
    at_ms: int


MOTION_CASES = [
    # AMERICAN_SETTLED: the bust is swept first, then the blackjack paid, then the collect
    MotionCase("motion_mid_sweep", AMERICAN_SETTLED, motion.SETTLE_DELAY_MS + motion.SWEEP_MS // 2),
    MotionCase(
        "motion_mid_payout", AMERICAN_SETTLED, motion.SETTLE_DELAY_MS + motion.SWEEP_MS - 120 + motion.PAY_MS // 4
    ),
    MotionCase(
        "motion_paid_beside_doubled",
        MULTI_DOUBLED,
        motion.SETTLE_DELAY_MS + motion.SWEEP_MS - 120 + 2 * motion.PAY_STAGGER_MS + motion.PAY_MS + 400,
    ),
    MotionCase(
        "motion_mid_collect",
        AMERICAN_SETTLED,
        motion.SETTLE_DELAY_MS + motion.SWEEP_MS - 120 + motion.PAY_MS + motion.HOLD_MS + motion.COLLECT_MS // 2,
    ),
    MotionCase(
        "motion_insurance_paid",
        MULTI_INSURANCE_PAID,
        motion.SETTLE_DELAY_MS + motion.SWEEP_MS - 120 + motion.PAY_MS + 300,
    ),
    MotionCase("celebration_small", CLASSIC_WIN, PAID_MS + 300),
    MotionCase("celebration_blackjack", CLASSIC_BJ, PAID_MS + 500),
    MotionCase("celebration_big", AMERICAN_BIG, motion.SETTLE_DELAY_MS + motion.SWEEP_MS - 120 + 1_200),
]
