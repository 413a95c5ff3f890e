"""The Game recall page's round as the table looked (research B
"Last-game recall"): a ``RecallEntry`` from the journal turned into the views the
table UI draws (dealer, the station's spots and hands), marked RECALL by the UI.

Owns: ``recall_view``. Pure: the entry's ``result`` is ``Round.result()`` (every
card face up: the round is over).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from cabinet.core.records import RecallEntry
from cabinet.protocol.snapshot import DealerView, HandView, RecallView, SpotView, StationView


def _total_text(h: dict[str, Any]) -> str:
    if h.get("blackjack"):
        return "BLACKJACK"
    total = int(h.get("total") or 0)
    return "BUST" if total > 21 else str(total)


def _hand(h: dict[str, Any]) -> HandView:
    return HandView(
        cards=list(h.get("cards", [])),
        stake_minor=int(h.get("stake") or 0),
        total_text=_total_text(h),
        outcome=h.get("outcome"),
        returned_minor=h.get("returned"),
        doubled=bool(h.get("doubled")),
        from_split=bool(h.get("from_split")),
        blackjack=bool(h.get("blackjack")),
    )


def recall_view(e: RecallEntry, index: int, count: int) -> RecallView:
    """``e`` (the ``index``-th newest of ``count`` rounds kept) as the table drew it."""
    d = e.result.get("dealer", {})
    dealer = DealerView(
        cards=list(d.get("cards", [])),
        total_text="BLACKJACK"
        if d.get("blackjack")
        else ("BUST" if int(d.get("total") or 0) > 21 else str(d.get("total", ""))),
    )
    spots = []
    for sp in e.result.get("spots", []):
        hands = [_hand(h) for h in sp.get("hands", [])]
        # the spot's own bet: its first hand's stake before any double
        first = (hands[0].stake_minor // 2 if hands[0].doubled else hands[0].stake_minor) if hands else 0
        ins = sp.get("insurance") or {}
        spots.append(
            SpotView(spot=int(sp["spot"]), bet_minor=first, hands=hands, insurance_minor=int(ins.get("stake") or 0))
        )
    win = e.returned_minor if not e.voided else 0
    table = StationView(
        station=e.station,
        credits_minor=e.credits_after_minor,
        bet_minor=e.wagered_minor,
        insurance_minor=e.insurance_minor,
        win_minor=win,
        spots=spots,
    )
    when = dt.datetime.fromtimestamp(e.wall_s).strftime("%m-%d %H:%M:%S") if e.wall_s else ""
    return RecallView(
        round_id=e.round_id,
        station=e.station,
        index=index,
        count=count,
        when=when,
        dealer=dealer,
        table=table,
        credits_before_minor=e.credits_before_minor,
        credits_after_minor=e.credits_after_minor,
        wagered_minor=e.wagered_minor,
        returned_minor=e.returned_minor,
        insurance_minor=e.insurance_minor,
        jackpot_handpay_minor=e.jackpot_handpay_minor,
        steps=list(e.steps),
        voided=e.voided,
    )
