"""``cabinet replay``: play one round from a fixed card order (SCENARIOS.md).

Owns: reading a scenario dict, running it on the real ``Round``, the output
dict, and matching an ``expect`` block. Pure except for ``main``, which reads
the file and prints.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cabinet.game import (
    BetError,
    CardError,
    GameError,
    IllegalDecision,
    Round,
    RuleSet,
    SeatBets,
    Shoe,
    ShoeExhausted,
    preset,
)
from cabinet.protocol.nesting import too_deep

KNOWN_KEYS = {"variant", "seats", "shoe", "decisions", "rules", "expect", "expect_error", "source"}

SEAT_KEYS = {"bets", "seat"}

#: The largest scenario file ``main`` reads; a scenario is a few hundred bytes,
#: and an endless input (``/dev/zero``, a pipe) must not be read forever.
MAX_SCENARIO_BYTES = 1 << 20

#: ``RuleSet`` fields a scenario may not override, and why.
FIXED_RULES = {
    "variant": 'the variant is chosen by the top-level "variant" field',
    "name": 'the name comes with the top-level "variant" field',
    "dealer_hits_soft_17": "the dealer stands on every 17 in all three games (RULES.md)",
}

#: ``RuleSet`` fields a scenario's ``rules`` block may override.
OVERRIDABLE_RULES = frozenset(f.name for f in dataclasses.fields(RuleSet)) - set(FIXED_RULES)


class ScenarioError(ValueError):
    """A scenario that cannot be played; the message names the problem and where it is."""


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def parse_scenario(text: str) -> Any:
    """Parse the JSON text of a scenario file, strictly.

    Args:
        text: the whole file, already decoded.

    Returns:
        The parsed JSON value (``run_scenario`` checks that it is an object).

    Raises:
        ScenarioError: not JSON (with line and column), nested too deeply
            for the parser, or an object that repeats a key (naming the key);
            the message starts with ``not JSON:``.
    """
    if too_deep(text):  # the same limit on every Python
        raise ScenarioError("not JSON: nested too deeply")
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicates)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"not JSON: line {e.lineno} column {e.colno}: {e.msg}") from None
    except _DuplicateKey as e:
        raise ScenarioError(f"not JSON: duplicate key {e.key!r} in one object") from None
    except RecursionError:
        raise ScenarioError("not JSON: nested too deeply") from None


def run_scenario(data: dict[str, Any]) -> dict[str, Any]:
    """Play a scenario and return the SCENARIOS.md output dict.

    Args:
        data: the parsed scenario (``variant``, ``seats``, ``shoe``,
            ``decisions``, optional ``rules``).

    Returns:
        ``{"variant", "dealer", "spots", "seats", "prompts", "cards_left_unused"}``,
        amounts in minor units.

    Raises:
        ScenarioError: unknown field or card, too many copies of a card, a
            bet outside the limits, an illegal decision, a shoe that runs out,
            decisions missing or left over.
    """
    if not isinstance(data, dict):
        raise ScenarioError("the scenario must be a JSON object")
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise ScenarioError(f"unknown field {unknown[0]!r}; fields are {', '.join(sorted(KNOWN_KEYS))}")
    for key in ("variant", "seats", "shoe"):
        if key not in data:
            raise ScenarioError(f"missing field {key!r}")
    if not isinstance(data["variant"], str):
        raise ScenarioError("variant: must be one of classic, classic-multi, american")
    if "expect" in data and not isinstance(data["expect"], dict):
        raise ScenarioError("expect: must be an object (a part of the output)")
    if "expect_error" in data and _expected_error(data) is None:
        raise ScenarioError("expect_error: must be a word the error message contains")
    try:
        rules = preset(data["variant"])
    except GameError as e:
        raise ScenarioError(f"variant: {str(e).split(': ', 1)[-1]}") from None
    overrides = data.get("rules", {})
    if not isinstance(overrides, dict):
        raise ScenarioError("rules: must be an object of RuleSet fields")
    for key in sorted(overrides):
        if key in FIXED_RULES:
            raise ScenarioError(f"rules: {key}: may not be overridden; {FIXED_RULES[key]}")
        if key not in OVERRIDABLE_RULES:
            raise ScenarioError(
                f"rules: unknown field {key!r}; a scenario may override {', '.join(sorted(OVERRIDABLE_RULES))}"
            )
    try:
        if overrides:
            rules = rules.replace(**overrides)
    except GameError as e:
        raise ScenarioError(f"rules: {e}") from None

    seats = data["seats"]
    if not isinstance(seats, list) or not seats:
        raise ScenarioError('seats: must be a non-empty list of {"bets": [...]}')
    seat_bets = []
    for i, s in enumerate(seats, 1):
        if not isinstance(s, dict) or not isinstance(s.get("bets"), list) or not all(_whole(b) for b in s["bets"]):
            raise ScenarioError(f'seat {i}: needs "bets": a list of whole minor units')
        extra = sorted(set(s) - SEAT_KEYS)
        if extra:
            raise ScenarioError(f"seat {i}: unknown field {extra[0]!r}; fields are {', '.join(sorted(SEAT_KEYS))}")
        number = s.get("seat", i)
        if not _whole(number):
            raise ScenarioError(f'seat {i}: "seat" must be a whole seat number, got {number!r}')
        seat_bets.append(SeatBets(number, tuple(s["bets"])))

    shoe_codes = data["shoe"]
    if not isinstance(shoe_codes, list):
        raise ScenarioError('shoe: must be a list of cards like "AS"')
    try:
        shoe = Shoe.from_codes(shoe_codes, rules.decks)
    except CardError as e:
        raise ScenarioError(f"shoe: {e}") from None

    decisions = data.get("decisions", [])
    if not isinstance(decisions, list):
        raise ScenarioError("decisions: must be a list")

    try:
        rnd = Round(rules, seat_bets, shoe)
    except BetError as e:
        raise ScenarioError(f"seats: {e}") from None

    prompts: list[str] = []
    used = 0
    try:
        rnd.start()
        while (prompt := rnd.prompt) is not None:
            prompts.append(prompt.text)
            if used == len(decisions):
                raise ScenarioError(
                    f"decisions: ran out after {used} decision{'' if used == 1 else 's'}; "
                    f"the engine asks {prompt.text} "
                    f"({', '.join(sorted(d.value for d in prompt.legal))})"
                )
            d = decisions[used]
            used += 1
            try:
                rnd.decide(d)
            except IllegalDecision as e:
                raise ScenarioError(f"decision {used} ({d!r}) at {prompt.text}: {e}") from None
    except ShoeExhausted as e:
        raise ScenarioError(f"shoe: {e}") from None
    if used < len(decisions):
        raise ScenarioError(
            f"decisions: {len(decisions) - used} left over after the round ended "
            f"(first unused: decision {used + 1}, {decisions[used]!r})"
        )

    out = rnd.result()
    out["prompts"] = prompts
    out["cards_left_unused"] = rnd.shoe.remaining
    return out


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _expected_error(data: Any) -> str | None:
    """The scenario's ``expect_error`` word; ``None`` when absent or not a non-empty string."""
    word = data.get("expect_error") if isinstance(data, dict) else None
    return word if isinstance(word, str) and word.strip() else None


def match_expect(expect: Any, actual: Any, path: str = "") -> list[str]:
    """Compare an ``expect`` block with output (SCENARIOS.md ``expect`` semantics).

    An object matches when each of its keys matches; a list matches a list of
    the same length element by element; anything else by equality.

    Returns:
        One line per mismatch, naming its path; empty when it matches.
    """
    where = path or "output"
    if isinstance(expect, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, got {json.dumps(actual)}"]
        out: list[str] = []
        for k, v in expect.items():
            if k not in actual:
                out.append(f"{where}.{k}: missing")
            else:
                out += match_expect(v, actual[k], f"{path}.{k}" if path else k)
        return out
    if isinstance(expect, bool) or isinstance(actual, bool):
        if expect is not actual:
            return [f"{where}: expected {json.dumps(expect)}, got {json.dumps(actual)}"]
        return []
    if isinstance(expect, list):
        if not isinstance(actual, list) or len(actual) != len(expect):
            return [f"{where}: expected {json.dumps(expect)}, got {json.dumps(actual)}"]
        out = []
        for i, (e, a) in enumerate(zip(expect, actual, strict=True)):
            out += match_expect(e, a, f"{path}[{i}]")
        return out
    if (
        expect != actual
        or type(expect) is not type(actual)
        and not (isinstance(expect, int | float) and isinstance(actual, int | float))
    ):
        return [f"{where}: expected {json.dumps(expect)}, got {json.dumps(actual)}"]
    return []


def main(paths: Sequence[str], check: bool = False) -> int:
    """Replay scenario files and print each outcome as JSON on standard output.

    Args:
        paths: scenario files.
        check: also compare with each file's ``expect`` / ``expect_error``;
            a mismatch is reported on standard error and gives status 1.

    Returns:
        0 on success, 1 when a ``check`` failed, 2 when a scenario cannot be
        played or read, or is over ``MAX_SCENARIO_BYTES`` (one line on standard
        error naming the problem and where).
    """
    status = 0
    for p in paths:
        try:
            with Path(p).open("rb") as f:
                raw = f.read(MAX_SCENARIO_BYTES + 1)
            if len(raw) > MAX_SCENARIO_BYTES:
                print(f"{p}: larger than {MAX_SCENARIO_BYTES // (1 << 20)} MiB: not a scenario", file=sys.stderr)
                return 2
            data = parse_scenario(raw.decode("utf-8"))
        except OSError as e:
            print(f"{p}: cannot read: {e.strerror or e}", file=sys.stderr)
            return 2
        except UnicodeDecodeError:
            print(f"{p}: not UTF-8 text", file=sys.stderr)
            return 2
        except ScenarioError as e:
            print(f"{p}: {e}", file=sys.stderr)
            return 2
        try:
            out = run_scenario(data)
        except ScenarioError as e:
            # A malformed expect_error is itself the error (run_scenario
            # refuses it): status 2 like any bad input, never a check failure.
            word = _expected_error(data) if check else None
            if word is not None:
                if word.lower() in str(e).lower():
                    print(f"{p}: ok (error as expected: {e})", file=sys.stderr)
                    continue
                print(f"{p}: expected an error containing {word!r}, got: {e}", file=sys.stderr)
                status = 1
                continue
            print(f"{p}: {e}", file=sys.stderr)
            return 2
        print(json.dumps(out, indent=2 if len(paths) == 1 else None))
        if check and isinstance(data, dict):
            if "expect_error" in data:
                print(
                    f"{p}: expected an error containing {data['expect_error']!r}, but the round played", file=sys.stderr
                )
                status = 1
            for line in match_expect(data.get("expect", {}), out):
                print(f"{p}: {line}", file=sys.stderr)
                status = 1
    return status
