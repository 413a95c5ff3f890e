"""The variant's rules in words, generated from its ``RuleSet``.

Owns: ``rules_text(rules)`` for the help screen and the par sheet, and the
felt texts. Pure. Nothing here is typed per variant: every line reads a
``RuleSet`` field, so the help can never disagree with the game.
"""

from __future__ import annotations

from cabinet.game import RuleSet
from cabinet.protocol.said import N_, Said, english, said

TABLE_TEXTS = [N_("BLACKJACK PAYS 3 TO 2"), N_("DEALER MUST STAND ON ALL 17"), N_("INSURANCE PAYS 2 TO 1")]


def rules_text(rules: RuleSet, symbol: str = "$") -> list[str]:
    """The rules of ``rules`` as short lines for the help screen."""
    return [english(line, symbol) for line in rules_said(rules)]


def rules_said(rules: RuleSet) -> list[Said]:
    """``rules_text`` as ``Said`` lines, one per line (each screen says them in
    its language); a line that starts with spaces continues the rule above it."""
    if rules.shuffle_every_round:
        played = (
            said("Played with one deck, shuffled before every round.")
            if rules.decks == 1
            else said("Played with {decks} decks, shuffled before every round.", decks=rules.decks)
        )
    elif rules.decks == 1:
        played = said(
            "Played with one deck, reshuffled when the cut card at {percent} is reached.",
            percent=f"{rules.penetration_percent} %",
        )
    else:
        played = said(
            "Played with {decks} decks, reshuffled when the cut card at {percent} is reached.",
            decks=rules.decks,
            percent=f"{rules.penetration_percent} %",
        )
    lines = [
        said(rules.name),
        played,
        said("Beat the dealer's hand without going over 21."),
        said("Cards 2-10 count their value, J Q K count 10, an Ace counts 1 or 11."),
        said("Blackjack (an Ace and a ten-value card as the first two cards) pays 3 to 2,"),
        said("  beats every other 21 and pushes against a dealer Blackjack."),
        said("Other wins pay 1 to 1. A tie (push) returns the bet."),
        said("Dealer must draw to 16 and stand on all 17s, soft 17 included."),
        said("A hand of 21 stands automatically."),
    ]
    if rules.dealer_hole_card:
        lines.append(said("The dealer takes one card face up and one face down (hole card)."))
    else:
        lines.append(said("The dealer takes one card; the second is drawn when it is needed."))
    if rules.peek_on_ace and rules.peek_on_ten:
        lines.append(said("With an Ace or a ten-value card showing, the dealer checks for Blackjack."))
    elif rules.peek_on_ace:
        lines.append(said("With an Ace showing, the dealer checks for Blackjack."))
    elif rules.peek_on_ten:
        lines.append(said("With a ten-value card showing, the dealer checks for Blackjack."))
    if not rules.peek_on_ten:
        lines.append(said("If the dealer makes Blackjack after you hit, split or double,"))
        lines.append(said("  your entire bet is lost."))
    if rules.insurance:
        lines.append(said("Insurance is offered when the dealer shows an Ace: it costs half the"))
        lines.append(said("  bet and pays 2 to 1 if the dealer has Blackjack. No even money."))
    if rules.double_totals:
        totals = ", ".join(str(t) for t in sorted(rules.double_totals))
        lines.append(said("Double down on a first two cards totalling {totals}: one more card.", totals=totals))
    else:
        lines.append(said("Double down on any first two cards: the bet doubles, one more card."))
    lines.append(
        said("Double after a split: allowed.")
        if rules.double_after_split
        else said("Double after a split: not allowed.")
    )
    lines.append(
        said("Split two cards of the same rank into two hands, once (no re-splitting).")
        if rules.split_by == "rank"
        else said("Split two cards of the same value into two hands, once (no re-splitting).")
    )
    if rules.split_by == "value":
        lines.append(said("  Any two ten-value cards may be split."))
    lines.append(
        said("Split Aces get one card each.")
        if rules.split_aces_one_card
        else said("Split Aces are played like any other hand.")
    )
    lines.append(said("After a split, an Ace and a ten-value card count as 21, not Blackjack."))
    if rules.max_hand_cards:
        lines.append(said("A hand of {cards} cards stands automatically.", cards=rules.max_hand_cards))
    lines.append(said("No surrender."))
    lines.append(
        said(
            "Table limits: {min_minor} to {max_minor} per spot; doubles, splits and",
            min_minor=rules.min_bet_minor,
            max_minor=rules.max_bet_minor,
        )
    )
    lines.append(said("  insurance may go over the maximum."))
    if rules.max_seats > 1:
        lines.append(
            said(
                "Up to {seats} players; {bet_s} s to bet and {decision_s} s per decision at a shared table.",
                seats=rules.max_seats,
                bet_s=rules.bet_timer_s,
                decision_s=rules.decision_timer_s,
            )
        )
    if rules.max_spots_per_seat > 1:
        lines.append(said("Bet on up to {spots} spots; spot 1 plays first.", spots=rules.max_spots_per_seat))
    lines.append(said("Malfunctions void all plays and pays."))
    return lines
