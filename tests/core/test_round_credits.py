"""RULES.md "Double, split and insurance are offered only when the station's credits
cover the extra stake": a blackjack paid 3:2 at once is on the credit meter, so it counts
(at the American table spot 1's blackjack was paid, the
meter showed $17.50, and spot 2's $10 double stayed dark)."""

from __future__ import annotations

from cabinet.game import Decision

from .helpers import start

# spot 1 A, spot 2 2, dealer up 9 (no check), spot 1 K (blackjack), spot 2 6, dealer hole 7;
# then the double's card and the dealer's draws
SHOE = ["AS", "2C", "9H", "KD", "6D", "7S", "9C", "TH", "TC"]


def test_a_blackjack_paid_at_once_covers_a_double_on_the_next_spot():
    rnd, _ = start("american", SHOE, bets=[[1000, 1000]], available=[500])
    assert rnd.prompt is not None and rnd.prompt.spot == 2
    assert Decision.DOUBLE in rnd.legal_decisions()
    ev = rnd.decide("double")
    (h2,) = [h for sp, n, h in rnd.hands() if sp.spot == 2]
    assert h2.doubled and h2.stake_minor == 2000
    assert rnd.wagered_minor(1) == 3000 and any(type(e).__name__ == "HandDoubled" for e in ev)


def test_without_the_blackjack_the_same_credits_do_not_cover_it():
    shoe = ["5S", "2C", "9H", "KD", "6D", "7S", "9C", "TH", "TC"]
    rnd, _ = start("american", shoe, bets=[[1000, 1000]], available=[500])
    assert rnd.prompt is not None and rnd.prompt.spot == 1
    rnd.decide("stand")
    assert Decision.DOUBLE not in rnd.legal_decisions()
