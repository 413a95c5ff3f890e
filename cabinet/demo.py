"""Interim ``cabinet run``: deal a few rounds of each variant in the terminal.

Stands in until the engine and table UI processes land (issue 6); it uses
only the pure rules core and ``secrets.SystemRandom`` shuffles.
"""

from __future__ import annotations

from cabinet.game import Decision, Round, SeatBets, Shoe, hand_total, preset


def _choose(rnd: Round) -> Decision:
    prompt = rnd.prompt
    assert prompt is not None
    if prompt.kind == "insurance":
        return Decision.DECLINE
    si, hi = rnd._cursor
    total, soft = hand_total(rnd.spots[si].hands[hi].cards)
    if total in (10, 11) and Decision.DOUBLE in prompt.legal:
        return Decision.DOUBLE
    return Decision.HIT if total < 17 or (soft and total < 18) else Decision.STAND


def main(rounds: int = 3) -> int:
    """Print ``rounds`` rounds of each variant; returns 0."""
    for variant in ("classic", "classic-multi", "american"):
        rules = preset(variant)
        print(f"== {rules.name}")
        for _ in range(rounds):
            rnd = Round(rules, [SeatBets(1, (rules.min_bet_minor * 10,))], Shoe.shuffled(rules.decks))
            rnd.start()
            while rnd.prompt is not None:
                rnd.decide(_choose(rnd))
            res = rnd.result()
            hands = "; ".join(f"{' '.join(h['cards'])} {h['outcome']}"
                              for s in res["spots"] for h in s["hands"])
            print(f"  dealer {' '.join(res['dealer']['cards'])} ({res['dealer']['total']})"
                  f" | {hands} | net {res['seats'][0]['net'] / 100:+.2f}")
    return 0
