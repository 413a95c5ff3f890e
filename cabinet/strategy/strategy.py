"""Basic strategy tables and the autoplayer's lookup.

Owns: ``Strategy`` (the total-dependent basic strategy of one variant, as
derived by ``analysis``), its JSON form, its text chart, and ``choose``, the
cheap per-decision lookup the simulator's autoplayer uses. Pure: no I/O;
imports only ``cabinet.game``.

The table is total-dependent: a decision depends on the hand's best total,
whether it is soft, whether it is a splittable pair (and of which value), and
the dealer's up card value (Ace = 1), never on the cards' composition.
Preference order at a prompt: split (if in the split table and legal), then
double (if in the double table and legal), then hit or stand from the hit
table. A double that is not legal (three cards, ``classic`` totals other than
9-11, no double after split) falls back to the hit table, which is how a
printed chart's "Dh"/"Ds" cells read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cabinet.game.events import Decision

UP_VALUES: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)
"""Up card values in chart column order (Ace last, as printed charts do)."""

HARD_ROWS: tuple[int, ...] = tuple(range(5, 21))
SOFT_ROWS: tuple[int, ...] = tuple(range(13, 21))
PAIR_ROWS: tuple[int, ...] = (1, 10, 9, 8, 7, 6, 5, 4, 3, 2)

_HIT, _STAND, _DOUBLE, _SPLIT = Decision.HIT, Decision.STAND, Decision.DOUBLE, Decision.SPLIT
_INSURE, _DECLINE = Decision.INSURE, Decision.DECLINE

StateKey = tuple[int, bool, int]
"""``(total, soft, up value)``: total 4-21, up value 1 (Ace) to 10."""
PairKey = tuple[int, int]
"""``(pair card value, up value)``, both 1-10."""


def _up_label(up: int) -> str:
    return "A" if up == 1 else str(up)


def _pair_label(v: int) -> str:
    return "A,A" if v == 1 else ("T,T" if v == 10 else f"{v},{v}")


@dataclass(frozen=True)
class Strategy:
    """A total-dependent basic strategy.

    Attributes:
        variant: the variant id it was derived for.
        hit: states where hitting beats standing (any number of cards).
        double: two-card states where doubling, when legal, is best.
        split: pairs to split when legal, by card value (a pair of tens is
            ten-valued cards; under ``split_by="rank"`` only same-rank tens
            are ever offered a split).
        insurance: take insurance when offered (RULES.md "Insurance").
    """

    variant: str
    hit: frozenset[StateKey]
    double: frozenset[StateKey]
    split: frozenset[PairKey]
    insurance: bool = False

    # -- the autoplayer ---------------------------------------------------------

    def choose(self, total: int, soft: bool, pair_value: int, up: int, legal: frozenset[Decision]) -> Decision:
        """The decision for a play prompt.

        Args:
            total: the hand's best total (4-21).
            soft: whether an Ace counts 11 in it.
            pair_value: the card value (1-10) when the hand is a two-card pair,
                else 0. Only used when ``SPLIT`` is in ``legal``.
            up: the dealer's up card value, 1 (Ace) to 10.
            legal: the decisions the round accepts now (``Round.legal_decisions``).

        Returns:
            ``SPLIT``, ``DOUBLE``, ``HIT`` or ``STAND``; always in ``legal``.
        """
        if pair_value and _SPLIT in legal and (pair_value, up) in self.split:
            return _SPLIT
        if _DOUBLE in legal and (total, soft, up) in self.double:
            return _DOUBLE
        return _HIT if (total, soft, up) in self.hit else _STAND

    def choose_insurance(self) -> Decision:
        """``INSURE`` or ``DECLINE`` for an insurance prompt."""
        return _INSURE if self.insurance else _DECLINE

    # -- chart ------------------------------------------------------------------

    def cell(self, kind: str, row: int, up: int) -> str:
        """One chart cell: ``H``, ``S``, ``Dh`` (double, else hit), ``Ds``
        (double, else stand) or ``P`` (split).

        Args:
            kind: ``"hard"``, ``"soft"`` or ``"pair"``.
            row: hard/soft total, or the pair card value (1-10).
            up: up card value 1-10.

        Raises:
            ValueError: an unknown ``kind``.
        """
        if kind == "pair":
            if (row, up) in self.split:
                return "P"
            total, soft = (12, True) if row == 1 else (2 * row, False)
            return self._total_cell(total, soft, up)
        if kind not in ("hard", "soft"):
            raise ValueError(f"kind must be hard, soft or pair, got {kind!r}")
        return self._total_cell(row, kind == "soft", up)

    def _total_cell(self, total: int, soft: bool, up: int) -> str:
        hit = (total, soft, up) in self.hit
        if (total, soft, up) in self.double:
            return "Dh" if hit else "Ds"
        return "H" if hit else "S"

    def rows(self) -> list[tuple[str, str, int]]:
        """Chart rows in print order: ``(section, label, row)`` for hard 5-20,
        soft 13-20 and pairs A,A then T,T down to 2,2."""
        out = [("hard", str(t), t) for t in HARD_ROWS]
        out += [("soft", f"A,{t - 11}", t) for t in SOFT_ROWS]
        out += [("pair", _pair_label(v), v) for v in PAIR_ROWS]
        return out

    def to_text(self) -> str:
        """The chart as fixed-width text, one section per block."""
        head = "       " + " ".join(f"{_up_label(u):>3}" for u in UP_VALUES)
        lines = [f"Basic strategy: {self.variant}", ""]
        section = ""
        for kind, label, row in self.rows():
            if kind != section:
                section = kind
                lines += ["", {"hard": "Hard totals", "soft": "Soft totals", "pair": "Pairs"}[kind], head]
            cells = " ".join(f"{self.cell(kind, row, u):>3}" for u in UP_VALUES)
            lines.append(f"{label:>6} {cells}")
        lines += [
            "",
            "Insurance: " + ("take" if self.insurance else "never"),
            "H hit, S stand, Dh double else hit, Ds double else stand, P split",
        ]
        return "\n".join(lines[:1] + lines[2:]) + "\n"

    # -- persistence ------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able form; ``from_dict`` restores it."""
        return {
            "variant": self.variant,
            "hit": sorted([t, s, u] for t, s, u in self.hit),
            "double": sorted([t, s, u] for t, s, u in self.double),
            "split": sorted([v, u] for v, u in self.split),
            "insurance": self.insurance,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Strategy:
        """Inverse of ``to_dict``.

        Raises:
            ValueError: a malformed dict.
        """
        try:
            return cls(
                variant=str(data["variant"]),
                hit=_states(data["hit"]),
                double=_states(data["double"]),
                split=frozenset((int(v), int(u)) for v, u in data["split"]),
                insurance=bool(data["insurance"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"strategy: malformed ({type(e).__name__}: {e})") from None


def _states(items: Iterable[Any]) -> frozenset[StateKey]:
    return frozenset((int(t), bool(s), int(u)) for t, s, u in items)
