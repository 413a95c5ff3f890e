"""What the demo player decides, and where its basic strategy comes from.

Owns: ``DECISIONS`` (the panel buttons that answer a prompt), ``load_strategy``
(the exact ``cabinet.strategy.Strategy`` of a variant, cached as JSON) and
``choose`` (the decision for what the table shows). The decision is always a
``cabinet.strategy.Strategy`` lookup: the exact one once derived, else the
common printed chart (``cabinet.strategy.common``); hand totals are the rules
core's (``cabinet.game.hand_total``). Reads and writes only the cache file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from cabinet.game import Decision, hand_total, parse_card, parse_cards, preset
from cabinet.strategy.common import common_strategy
from cabinet.strategy.strategy import Strategy

#: The panel buttons that answer a prompt (their lamps say which are legal).
DECISIONS = ("hit", "stand", "double", "split", "insure", "decline")
_PLAY = ("hit", "stand", "double", "split")
#: Followed while no exact strategy is at hand.
COMMON = common_strategy()


def load_strategy(variant: str, cache_dir: Path | None) -> Strategy:
    """``cabinet.strategy.Strategy`` for ``variant``: from the JSON cache in
    ``cache_dir`` when there, else derived (about 10 s of one core) and cached.
    ``cache_dir=None`` never caches.

    Raises:
        KeyError: an unknown variant (``cabinet.game.preset``).
        OSError: the cache cannot be written.
    """
    from cabinet.strategy import analyse

    rules = preset(variant)
    key = hashlib.sha256(repr(rules).encode()).hexdigest()[:12]
    path = cache_dir / f"strategy-{variant}-{key}.json" if cache_dir else None
    if path is not None and path.exists():
        try:
            return Strategy.from_dict(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
    strategy = analyse(rules).strategy
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(strategy.to_dict()))
        tmp.replace(path)
    return strategy


def choose(hand_cards: list[str], dealer_cards: list[str], legal: frozenset[str], strategy: Strategy | None) -> str:
    """The button to press for the prompt on screen.

    Args:
        hand_cards: the cards of the hand asked about (the active one), as shown;
            unused at an insurance prompt.
        dealer_cards: the dealer's face-up cards as shown (the first is the up card;
            none counts as a ten).
        legal: the lit decision buttons (a subset of ``DECISIONS``).
        strategy: the exact strategy, or ``None`` for the common chart.

    Returns:
        one of ``legal``: ``insure``/``decline`` at an insurance prompt, else the
        strategy's play (``stand``, then the first lit button, when its play is dark).

    Raises:
        CardError: a card on screen that is not a card.
    """
    strat = strategy or COMMON
    if "insure" in legal or "decline" in legal:
        return "insure" if strat.insurance and "insure" in legal else "decline"
    cards = parse_cards(hand_cards)
    total, soft = hand_total(cards)
    up = parse_card(dealer_cards[0]).value if dealer_cards else 10
    pair = cards[0].value if "split" in legal and len(cards) == 2 else 0
    want = strat.choose(total, soft, pair, up, frozenset(Decision(a) for a in legal if a in _PLAY)).value
    return want if want in legal else ("stand" if "stand" in legal else sorted(legal)[0])
