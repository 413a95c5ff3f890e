"""The variant's rules in words, generated from its ``RuleSet``.

Owns: ``rules_text(rules)`` for the help screen and the par sheet, and the
felt texts. Pure. Nothing here is typed per variant: every line reads a
``RuleSet`` field, so the help can never disagree with the game.
"""

from __future__ import annotations

from cabinet.game import RuleSet
from cabinet.protocol.money import fmt_money

TABLE_TEXTS = ["BLACKJACK PAYS 3 TO 2", "DEALER MUST STAND ON ALL 17",
               "INSURANCE PAYS 2 TO 1"]


def rules_text(rules: RuleSet, symbol: str = "$") -> list[str]:
    """The rules of ``rules`` as short lines for the help screen."""
    decks = "one deck" if rules.decks == 1 else f"{rules.decks} decks"
    shuffle = ("shuffled before every round" if rules.shuffle_every_round
               else f"reshuffled when the cut card at {rules.penetration_percent} % is reached")
    lines = [
        rules.name,
        f"Played with {decks}, {shuffle}.",
        "Beat the dealer's hand without going over 21.",
        "Cards 2-10 count their value, J Q K count 10, an Ace counts 1 or 11.",
        "Blackjack (an Ace and a ten-value card as the first two cards) pays 3 to 2,",
        "  beats every other 21 and pushes against a dealer Blackjack.",
        "Other wins pay 1 to 1. A tie (push) returns the bet.",
        "Dealer must draw to 16 and stand on all 17s, soft 17 included.",
        "A hand of 21 stands automatically.",
    ]
    if rules.dealer_hole_card:
        lines.append("The dealer takes one card face up and one face down (hole card).")
    else:
        lines.append("The dealer takes one card; the second is drawn when it is needed.")
    peek = [n for n, on in (("an Ace", rules.peek_on_ace), ("a ten-value card", rules.peek_on_ten))
            if on]
    if peek:
        lines.append(f"With {' or '.join(peek)} showing, the dealer checks for Blackjack.")
    if not rules.peek_on_ten:
        lines.append("If the dealer makes Blackjack after you hit, split or double,")
        lines.append("  your entire bet is lost.")
    if rules.insurance:
        lines.append("Insurance is offered when the dealer shows an Ace: it costs half the")
        lines.append("  bet and pays 2 to 1 if the dealer has Blackjack. No even money.")
    if rules.double_totals:
        totals = ", ".join(str(t) for t in sorted(rules.double_totals))
        lines.append(f"Double down on a first two cards totalling {totals}: one more card.")
    else:
        lines.append("Double down on any first two cards: the bet doubles, one more card.")
    lines.append("Double after a split: " + ("allowed." if rules.double_after_split
                                             else "not allowed."))
    by = "cards of the same rank" if rules.split_by == "rank" else "cards of the same value"
    lines.append(f"Split two {by} into two hands, once (no re-splitting).")
    if rules.split_by == "value":
        lines.append("  Any two ten-value cards may be split.")
    lines.append("Split Aces get one card each." if rules.split_aces_one_card
                 else "Split Aces are played like any other hand.")
    lines.append("After a split, an Ace and a ten-value card count as 21, not Blackjack.")
    if rules.max_hand_cards:
        lines.append(f"A hand of {rules.max_hand_cards} cards stands automatically.")
    lines.append("No surrender.")
    lines.append(f"Table limits: {fmt_money(rules.min_bet_minor, symbol)} to "
                 f"{fmt_money(rules.max_bet_minor, symbol)} per spot; doubles, splits and")
    lines.append("  insurance may go over the maximum.")
    if rules.max_seats > 1:
        lines.append(f"Up to {rules.max_seats} players; {rules.bet_timer_s} s to bet and "
                     f"{rules.decision_timer_s} s per decision at a shared table.")
    if rules.max_spots_per_seat > 1:
        lines.append(f"Bet on up to {rules.max_spots_per_seat} spots; spot 1 plays first.")
    lines.append("Malfunctions void all plays and pays.")
    return lines
