"""Operator game settings: typed, validated, and turned into a ``RuleSet``.

Owns: ``GameSettings`` (what maintenance may change: variant, stations,
limits, chips, timers, credit and voucher limits, venue) and its checks.
Pure. Settings live in the journal and change only in maintenance, between
rounds (issue: engine "Settings").
"""

from __future__ import annotations

import msgspec

from cabinet.core.errors import ConfigError
from cabinet.game import GameError, RuleSet, preset

VARIANTS = ("classic", "classic-multi", "american")
#: The settings each game keeps for itself (issue 10.9): ``None`` is that
#: game's RULES.md default; switching games never carries them over.
GAME_FIELDS = ("spots_per_station", "min_bet_minor", "max_bet_minor", "bet_step_minor",
               "chip_values_minor", "penetration_percent", "bet_timer_s", "decision_timer_s")


class GameLimits(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """One game's own table settings (the ``GAME_FIELDS`` of ``GameSettings``);
    ``None`` takes the game's default from RULES.md "Default table settings"."""

    spots_per_station: int | None = None
    min_bet_minor: int | None = None
    max_bet_minor: int | None = None
    bet_step_minor: int | None = None
    chip_values_minor: tuple[int, ...] | None = None
    penetration_percent: int | None = None
    bet_timer_s: int | None = None
    decision_timer_s: int | None = None


class GameSettings(msgspec.Struct, kw_only=True, frozen=True):
    """Everything an operator may adjust. Money in minor units; ``None`` takes
    the variant's default from RULES.md "Default table settings".

    Attributes:
        variant: ``classic``, ``classic-multi`` or ``american``.
        stations: player stations (seats) in the cabinet, 1-3; a variant
            with one seat plays station 1 only.
        spots_per_station: betting spots (``american``: 1-3, default 3).
        min_bet_minor, max_bet_minor, bet_step_minor, chip_values_minor:
            table limits and chips.
        penetration_percent: ``None`` shuffles every round; 50-85 places a
            cut card (4-deck games only).
        bet_timer_s, decision_timer_s: multi-station timers, seconds.
        denominations_minor: bill denominations the acceptor may take.
        credit_limit_minor: bills and vouchers are refused above this.
        voucher_limit_minor: a cash-out above this is a handpay.
        jackpot_limit_minor: a round whose net win for a station reaches this is
            a jackpot handpay (research/cabinet-features.md E "Handpay and
            cancelled credits": the tax threshold, a setting).
        voucher_expiry_days: how long a printed voucher may be redeemed.
        venue_name, machine_number: printed on every voucher.
        recall_depth: rounds kept for game recall per station, 10-100.
        currency_symbol: shown before amounts.
        game_limits: the ``GAME_FIELDS`` saved for the games *not* in play,
            by variant (issue 10.9); the flat fields are those of ``variant``.
            A journal written before this field loads with ``{}``: its flat
            limits stay with its game.
    """

    variant: str = "classic"
    stations: int = 1
    spots_per_station: int | None = None
    min_bet_minor: int | None = None
    max_bet_minor: int | None = None
    bet_step_minor: int | None = None
    chip_values_minor: tuple[int, ...] | None = None
    penetration_percent: int | None = None
    bet_timer_s: int | None = None
    decision_timer_s: int | None = None
    denominations_minor: tuple[int, ...] = (100, 500, 1_000, 2_000, 5_000, 10_000)
    credit_limit_minor: int = 300_000
    voucher_limit_minor: int = 120_000
    jackpot_limit_minor: int = 120_000
    voucher_expiry_days: int = 30
    venue_name: str = "Demo Casino"
    machine_number: str = "0001"
    recall_depth: int = 10
    currency_symbol: str = "$"
    game_limits: dict[str, GameLimits] = {}

    def limits(self, variant: str) -> GameLimits:
        """The table settings of game ``variant`` (in play or saved for later)."""
        if variant == self.variant:
            return GameLimits(**{f: getattr(self, f) for f in GAME_FIELDS})
        return self.game_limits.get(variant, GameLimits())

    def with_variant(self, variant: str) -> GameSettings:
        """These settings with game ``variant`` in play: its own limits come back,
        the current game's are kept for it (issue 10.9). Not validated here."""
        if variant == self.variant:
            return self
        saved = {**self.game_limits, self.variant: self.limits(self.variant)}
        mine = saved.pop(variant, GameLimits())
        saved = {v: lim for v, lim in saved.items() if lim != GameLimits()}
        return msgspec.structs.replace(
            self, variant=variant, game_limits=saved,
            **{f: getattr(mine, f) for f in GAME_FIELDS})

    def validate(self) -> RuleSet:
        """Check every field and build the ``RuleSet`` they describe.

        Returns:
            The variant's preset with these settings applied.

        Raises:
            ConfigError: naming the first field out of range.
        """
        if self.variant not in VARIANTS:
            raise ConfigError("variant", f"{self.variant!r} is not one of {', '.join(VARIANTS)}")
        unknown = sorted(set(self.game_limits) - set(VARIANTS))
        if unknown:
            raise ConfigError("game_limits", f"{unknown[0]!r} is not one of {', '.join(VARIANTS)}")
        if not 1 <= self.stations <= 3:
            raise ConfigError("stations", f"must be 1-3, got {self.stations}")
        base = preset(self.variant)
        changes: dict[str, object] = {}
        if self.stations > base.max_seats and self.variant != "classic-multi":
            raise ConfigError("stations", f"{base.name} seats one player")
        if self.variant == "classic-multi":
            changes["max_seats"] = self.stations
        if self.spots_per_station is not None:
            if self.variant != "american" and self.spots_per_station != 1:
                raise ConfigError("spots_per_station", f"{base.name} has one spot per seat")
            changes["max_spots_per_seat"] = self.spots_per_station
        for name in ("min_bet_minor", "max_bet_minor", "bet_step_minor", "bet_timer_s",
                     "decision_timer_s"):
            v = getattr(self, name)
            if v is not None:
                changes[name] = v
        if self.chip_values_minor is not None:
            if self.variant == "classic":
                raise ConfigError("chip_values_minor", "Classic Blackjack bets with Bet+/Bet-")
            changes["chip_values_minor"] = tuple(self.chip_values_minor)
        if self.penetration_percent is not None:
            if base.decks == 1:
                raise ConfigError("penetration_percent",
                                  f"{base.name} shuffles one deck before every round")
            changes["shuffle_every_round"] = False
            changes["penetration_percent"] = self.penetration_percent
        try:
            rules = base.replace(**changes) if changes else base
        except GameError as e:
            field = getattr(e, "field", "settings")
            raise ConfigError(field, str(e).split(": ", 1)[-1]) from None
        if not self.denominations_minor or any(
                d <= 0 or d % 100 for d in self.denominations_minor):
            raise ConfigError("denominations_minor", "whole-currency notes, at least one")
        for name in ("credit_limit_minor", "voucher_limit_minor", "jackpot_limit_minor"):
            if getattr(self, name) <= 0:
                raise ConfigError(name, "must be positive")
        if self.credit_limit_minor < rules.min_bet_minor:
            raise ConfigError("credit_limit_minor", "is below the table minimum")
        if not 1 <= self.voucher_expiry_days <= 3650:
            raise ConfigError("voucher_expiry_days", "must be 1-3650 days")
        if not 10 <= self.recall_depth <= 100:
            raise ConfigError("recall_depth", "must be 10-100 rounds")
        if not self.venue_name.strip() or len(self.venue_name) > 40:
            raise ConfigError("venue_name", "must be 1-40 characters")
        if not self.machine_number.strip() or len(self.machine_number) > 12:
            raise ConfigError("machine_number", "must be 1-12 characters")
        return rules

    def rules_or_preset(self) -> RuleSet:
        """The ``RuleSet`` these settings put in force, or, while they do not
        validate yet (a draft in the menu), the game's own preset (for showing
        a default's value, issue 10.9)."""
        try:
            return self.validate()
        except ConfigError:
            return preset(self.variant if self.variant in VARIANTS else "classic")

    def seats_in_play(self, rules: RuleSet) -> list[int]:
        """Station numbers that play: all stations on a multi-seat table, else station 1."""
        return list(range(1, min(self.stations, rules.max_seats) + 1))
