"""Operator game settings: typed, validated, and turned into a ``RuleSet``.

Owns: ``GameSettings`` (what maintenance may change: variant, stations,
limits, chips, timers, credit and voucher limits, venue), its ranges (declared
once, as ``Annotated`` msgspec types that ``confspec.convert`` checks), its
cross-field checks, and ``MENU_SETTINGS``, the maintenance menu's steps for
each setting. Pure. Settings live in the journal and change only in
maintenance, between rounds (issue: engine "Settings"). The ranges state only
what the rules core (``RuleSet.validate``) and the cabinet already required, so
every journal written before them still decodes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_type_hints

import msgspec
from msgspec import Meta

from cabinet.core.errors import ConfigError
from cabinet.game import GameError, RuleSet, preset
from cabinet.protocol.money import fmt_money
from confspec import choices, convert

Variant = Literal["classic", "classic-multi", "american"]
VARIANTS: tuple[str, ...] = get_args(Variant)
#: The settings each game keeps for itself: ``None`` is that
#: game's RULES.md default; switching games never carries them over.
GAME_FIELDS = (
    "spots_per_station",
    "min_bet_minor",
    "max_bet_minor",
    "bet_step_minor",
    "chip_values_minor",
    "penetration_percent",
    "bet_timer_s",
    "decision_timer_s",
)

# -- the ranges (RULES.md "Default table settings", RuleSet.validate, the issues) --
Stations = Annotated[int, Meta(ge=1, le=3)]
Spots = Annotated[int, Meta(ge=1, le=3)]
BetMinor = Annotated[int, Meta(ge=1)]
StepMinor = Annotated[int, Meta(ge=2, multiple_of=2)]
ChipMinor = Annotated[int, Meta(ge=2, multiple_of=2)]
Penetration = Annotated[int, Meta(ge=50, le=85)]
TimerS = Annotated[int, Meta(ge=1, le=600)]
#: A bill the acceptor may take: whole currency units.
NoteMinor = Annotated[int, Meta(ge=100, multiple_of=100)]
LimitMinor = Annotated[int, Meta(ge=1)]
ExpiryDays = Annotated[int, Meta(ge=1, le=3650)]
RecallDepth = Annotated[int, Meta(ge=10, le=100)]
VenueName = Annotated[
    str, Meta(min_length=1, max_length=40, pattern=r"\S", description="1-40 characters, not all blank")
]
MachineNumber = Annotated[
    str, Meta(min_length=1, max_length=12, pattern=r"\S", description="1-12 characters, not all blank")
]
AddressLine = Annotated[str, Meta(max_length=40, description="0-40 characters")]
VolumePercent = Annotated[int, Meta(ge=0, le=100)]
#: Minutes between a player's session reminders; 0 = off.
RealityMinutes = Annotated[int, Meta(ge=0, le=240)]


class GameLimits(msgspec.Struct, kw_only=True, frozen=True, omit_defaults=True):
    """One game's own table settings (the ``GAME_FIELDS`` of ``GameSettings``);
    ``None`` takes the game's default from RULES.md "Default table settings"."""

    spots_per_station: Spots | None = None
    min_bet_minor: BetMinor | None = None
    max_bet_minor: BetMinor | None = None
    bet_step_minor: StepMinor | None = None
    chip_values_minor: tuple[ChipMinor, ...] | None = None
    penetration_percent: Penetration | None = None
    bet_timer_s: TimerS | None = None
    decision_timer_s: TimerS | None = None


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
        venue_address_1, venue_address_2: the venue's address lines, "" for none.
        volume_percent: the cabinet's sound volume, 0-100.
        attract_sound: the attract loop plays its sounds.
        reality_check_min: every this many minutes of a station's session, its
            player is shown the time played and the session's net ("reality check");
            0 = off. 0-240.
        recall_depth: rounds kept for game recall per station, 10-100.
        currency_symbol: shown before amounts.
        game_limits: the ``GAME_FIELDS`` saved for the games *not* in play,
            by variant; the flat fields are those of ``variant``.
            A journal written before this field loads with ``{}``: its flat
            limits stay with its game.
    """

    variant: Variant = "classic"
    stations: Stations = 1
    spots_per_station: Spots | None = None
    min_bet_minor: BetMinor | None = None
    max_bet_minor: BetMinor | None = None
    bet_step_minor: StepMinor | None = None
    chip_values_minor: tuple[ChipMinor, ...] | None = None
    penetration_percent: Penetration | None = None
    bet_timer_s: TimerS | None = None
    decision_timer_s: TimerS | None = None
    denominations_minor: Annotated[tuple[NoteMinor, ...], Meta(min_length=1)] = (100, 500, 1_000, 2_000, 5_000, 10_000)
    credit_limit_minor: LimitMinor = 300_000
    voucher_limit_minor: LimitMinor = 120_000
    jackpot_limit_minor: LimitMinor = 120_000
    voucher_expiry_days: ExpiryDays = 30
    venue_name: VenueName = "Demo Casino"
    machine_number: MachineNumber = "0001"
    recall_depth: RecallDepth = 10
    currency_symbol: str = "$"
    game_limits: dict[Variant, GameLimits] = {}
    venue_address_1: AddressLine = ""
    venue_address_2: AddressLine = ""
    volume_percent: VolumePercent = 70
    attract_sound: bool = True
    reality_check_min: RealityMinutes = 0

    def limits(self, variant: str) -> GameLimits:
        """The table settings of game ``variant`` (in play or saved for later)."""
        if variant == self.variant:
            return GameLimits(**{f: getattr(self, f) for f in GAME_FIELDS})
        saved: dict[str, GameLimits] = {v: lim for v, lim in self.game_limits.items()}
        return saved.get(variant, GameLimits())

    def with_variant(self, variant: str) -> GameSettings:
        """These settings with game ``variant`` in play: its own limits come back,
        the current game's are kept for it. Not validated here."""
        if variant == self.variant:
            return self
        saved: dict[str, GameLimits] = {v: lim for v, lim in self.game_limits.items()}
        saved[self.variant] = self.limits(self.variant)
        mine = saved.pop(variant, GameLimits())
        saved = {v: lim for v, lim in saved.items() if lim != GameLimits()}
        return msgspec.structs.replace(
            self, variant=variant, game_limits=saved, **{f: getattr(mine, f) for f in GAME_FIELDS}
        )

    def validate(self) -> RuleSet:
        """Check every field and build the ``RuleSet`` they describe.

        Returns:
            The variant's preset with these settings applied.

        Raises:
            ConfigError: naming the first field out of its range (the
                annotations above, ``confspec.convert``) or at odds with the
                game (one seat, one spot, no chips, one deck; the RuleSet's own
                checks).
        """
        convert(msgspec.to_builtins(self), GameSettings)  # the ranges and choices
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
        for name in ("min_bet_minor", "max_bet_minor", "bet_step_minor", "bet_timer_s", "decision_timer_s"):
            v = getattr(self, name)
            if v is not None:
                changes[name] = v
        if self.chip_values_minor is not None:
            if self.variant == "classic":
                raise ConfigError("chip_values_minor", "Classic Blackjack bets with Bet+/Bet-")
            changes["chip_values_minor"] = tuple(self.chip_values_minor)
        if self.penetration_percent is not None:
            if base.decks == 1:
                raise ConfigError("penetration_percent", f"{base.name} shuffles one deck before every round")
            changes["shuffle_every_round"] = False
            changes["penetration_percent"] = self.penetration_percent
        # the cross-field limits in the menu's words and money (the RuleSet says the same
        # with its field names): the operator sets them in the menu
        lo = base.min_bet_minor if self.min_bet_minor is None else self.min_bet_minor
        hi = base.max_bet_minor if self.max_bet_minor is None else self.max_bet_minor
        step = base.bet_step_minor if self.bet_step_minor is None else self.bet_step_minor
        sym = self.currency_symbol
        if step > 0 and lo % step:
            raise ConfigError("min_bet_minor", f"must be a multiple of the bet step {fmt_money(step, sym)}")
        if step > 0 and hi % step:
            raise ConfigError("max_bet_minor", f"must be a multiple of the bet step {fmt_money(step, sym)}")
        if lo > hi:
            raise ConfigError("min_bet_minor", f"{fmt_money(lo, sym)} is above the maximum bet {fmt_money(hi, sym)}")
        try:
            rules = base.replace(**changes) if changes else base
        except GameError as e:
            field = getattr(e, "field", "settings")
            raise ConfigError(field, str(e).split(": ", 1)[-1]) from None
        if self.credit_limit_minor < rules.min_bet_minor:
            raise ConfigError("credit_limit_minor", "is below the table minimum")
        return rules

    def rules_or_preset(self) -> RuleSet:
        """The ``RuleSet`` these settings put in force, or, while they do not
        validate yet (a draft in the menu), the game's own preset (for showing
        a default's value)."""
        try:
            return self.validate()
        except ConfigError:
            return preset(self.variant if self.variant in VARIANTS else "classic")

    def seats_in_play(self, rules: RuleSet) -> list[int]:
        """Station numbers that play: all stations on a multi-seat table, else station 1."""
        return list(range(1, min(self.stations, rules.max_seats) + 1))


#: The maintenance menu's Settings page, top to bottom: ``(field, label, steps)``.
#: ``steps`` ``None``: every value the field's annotation allows (its ``Literal``,
#: its small range, ``None`` first when optional: ``confspec.choices``); a tuple:
#: the steps offered, ``None`` being the game's default, each one inside the
#: field's range (tests/engine/test_settings_schema.py); a string: the value is
#: typed, ``money`` (an amount, "12.50"), ``money_list`` ("1,5,25"),
#: ``number`` or ``text``, and checked against the field's annotation.
MENU_SETTINGS: tuple[tuple[str, str, tuple[Any, ...] | str | None], ...] = (
    ("variant", "Game", None),
    ("stations", "Stations", None),
    ("spots_per_station", "Spots per station", None),
    ("min_bet_minor", "Minimum bet", "money"),
    ("max_bet_minor", "Maximum bet", "money"),
    ("bet_step_minor", "Bet step", "money"),
    ("chip_values_minor", "Chips", "money_list"),
    ("bet_timer_s", "Bet timer (s)", "number"),
    ("decision_timer_s", "Decision timer (s)", "number"),
    ("penetration_percent", "Cut card", (None, 50, 60, 70, 75, 80, 85)),
    ("credit_limit_minor", "Credit limit", "money"),
    ("voucher_limit_minor", "Voucher limit", "money"),
    ("jackpot_limit_minor", "Jackpot handpay limit", "money"),
    ("voucher_expiry_days", "Voucher expiry (days)", "number"),
    ("denominations_minor", "Bills accepted", "money_list"),
    ("venue_name", "Venue name", "text"),
    ("venue_address_1", "Venue address 1", "text"),
    ("venue_address_2", "Venue address 2", "text"),
    ("machine_number", "Machine number", "text"),
    ("recall_depth", "Recall depth (rounds)", "number"),
    ("volume_percent", "Volume (%)", "number"),
    ("attract_sound", "Attract sound", (True, False)),
    ("reality_check_min", "Reality check (min, 0 off)", "number"),
)
#: Settings that change the money rules: saved only with no credits on the cabinet
#: ("only with zero credits where it changes money rules").
MONEY_RULE_SETTINGS = frozenset(
    {
        "variant",
        "stations",
        "credit_limit_minor",
        "voucher_limit_minor",
        "jackpot_limit_minor",
        "voucher_expiry_days",
        "denominations_minor",
    }
)
#: The typed rows: field -> ``money``, ``money_list``, ``number`` or ``text``.
MENU_ENTRY: dict[str, str] = {k: s for k, _, s in MENU_SETTINGS if isinstance(s, str)}


def menu_choices() -> list[tuple[str, str, list[Any]]]:
    """``MENU_SETTINGS`` with every ``None`` steps filled from ``GameSettings``'
    annotations: ``[(field, label, [value, ...]), ...]``; a typed row has ``[]``."""
    types = get_type_hints(GameSettings, include_extras=True)
    out: list[tuple[str, str, list[Any]]] = []
    for key, label, steps in MENU_SETTINGS:
        if isinstance(steps, str):
            out.append((key, label, []))
            continue
        values = list(steps) if steps is not None else choices(types[key])
        assert values, f"{key}: its annotation allows too many values to list"
        out.append((key, label, values))
    return out
