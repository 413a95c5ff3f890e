"""Every scenario file (SCENARIOS.md) passes: the shared ones beside the
project (``../shared/scenarios``) and the copies and additions in
``tests/scenarios``; and ``cabinet replay`` behaves as documented."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.tools.replay import ScenarioError, match_expect, run_scenario

ROOT = Path(__file__).resolve().parents[2]
DIRS = [ROOT.parent / "shared" / "scenarios", ROOT / "tests" / "scenarios"]
FILES = sorted({p.name: p for d in DIRS if d.is_dir() for p in d.glob("*.json")}.values())


def test_the_shared_scenarios_are_all_here():
    names = {p.name for p in FILES}
    assert len(FILES) >= 11
    assert "classic-blackjack-pays-3-2.json" in names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario(path):
    data = json.loads(path.read_text())
    if "expect_error" in data:
        with pytest.raises(ScenarioError) as e:
            run_scenario(data)
        assert data["expect_error"].lower() in str(e.value).lower()
    else:
        out = run_scenario(data)
        assert match_expect(data.get("expect", {}), out) == []
        # money: every seat's net is returned minus wagered
        for seat in out["seats"]:
            assert seat["net"] == seat["returned"] - seat["wagered"]


def test_match_expect_reports_mismatches_with_their_path():
    out = {"spots": [{"hands": [{"outcome": "win"}]}], "prompts": []}
    assert match_expect({"spots": [{"hands": [{"outcome": "lose"}]}]}, out) == [
        'spots[0].hands[0].outcome: expected "lose", got "win"'
    ]
    assert match_expect({"prompts": ["x"]}, out) == ['prompts: expected ["x"], got []']


def _replay(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "cabinet.tools.cli", "replay", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def test_replay_prints_the_documented_output(tmp_path):
    # the example of SCENARIOS.md "Input"
    f = tmp_path / "example.json"
    f.write_text(
        json.dumps(
            {
                "variant": "american",
                "seats": [{"bets": [1000]}],
                "shoe": ["8S", "AH", "8D", "KS"],
                "decisions": ["insure"],
            }
        )
    )
    r = _replay(str(f))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out == {
        "variant": "american",
        "dealer": {"cards": ["AH", "KS"], "total": 21, "blackjack": True},
        "spots": [
            {
                "seat": 1,
                "spot": 1,
                "insurance": {"stake": 500, "returned": 1500},
                "hands": [
                    {
                        "cards": ["8S", "8D"],
                        "stake": 1000,
                        "total": 16,
                        "blackjack": False,
                        "doubled": False,
                        "from_split": False,
                        "outcome": "lose",
                        "returned": 0,
                    }
                ],
            }
        ],
        "seats": [{"seat": 1, "wagered": 1500, "returned": 1500, "net": 0}],
        "prompts": ["insurance seat 1 spot 1"],
        "cards_left_unused": 0,
    }


@pytest.mark.parametrize(
    "scenario,word",
    [
        ({"shoe": ["ZZ", "9H", "KD"]}, "unknown card"),
        ({"shoe": ["AS", "9H", "AS"]}, "copies"),
        ({"shoe": ["TS", "9H", "7D"], "decisions": ["stand"]}, "ran out"),
        ({"shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand", "hit"]}, "left over"),
        ({"shoe": ["TS", "9H", "7D", "9C"], "decisions": ["split"]}, "not a pair"),
        ({"shoe": ["TS", "9H", "7D", "9C"], "decisions": []}, "decisions: ran out"),
        ({"seats": [{"bets": [50]}]}, "table limits"),
        ({"variant": "pontoon"}, "unknown variant"),
        ({"rules": {"decks": 0}}, "decks"),
        ({"colour": "red"}, "unknown field"),
    ],
)
def test_replay_errors_exit_2_with_one_line(tmp_path, scenario, word):
    data = {"variant": "classic", "seats": [{"bets": [1000]}], "shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}
    data.update(scenario)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    r = _replay(str(f))
    assert r.returncode == 2
    assert r.stdout == ""  # nothing half-printed
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "bad.json" in lines[0]


def test_replay_check_flags_a_wrong_expectation(tmp_path):
    f = tmp_path / "wrong.json"
    f.write_text(
        json.dumps(
            {
                "variant": "classic",
                "seats": [{"bets": [1000]}],
                "shoe": ["TS", "7H", "8D", "TC"],
                "decisions": ["stand"],
                "expect": {"seats": [{"net": 0}]},
            }
        )
    )
    r = _replay("--check", str(f))
    assert r.returncode == 1
    assert "seats[0].net: expected 0, got 1000" in r.stderr


def test_check_tells_false_from_zero_and_reports_a_wrong_expected_error(tmp_path):
    assert match_expect({"blackjack": 0}, {"blackjack": False}) == ["blackjack: expected 0, got false"]
    f = tmp_path / "err.json"
    f.write_text(
        json.dumps(
            {
                "variant": "classic",
                "seats": [{"bets": [1000]}],
                "shoe": ["KS", "7H", "TD", "5C"],
                "decisions": ["split"],
                "expect_error": "banana",
            }
        )
    )
    r = _replay("--check", str(f))
    assert r.returncode == 1 and "expected an error containing 'banana'" in r.stderr


def test_rules_may_not_change_the_variant():
    with pytest.raises(ScenarioError, match="top-level"):
        run_scenario(
            {"variant": "classic", "seats": [{"bets": [1000]}], "shoe": ["TS"], "rules": {"variant": "american"}}
        )


def test_a_file_that_is_not_text_is_a_one_line_error(tmp_path):
    f = tmp_path / "bin.json"
    f.write_bytes(b"\xff\xfe\x00")
    r = _replay(str(f))
    assert r.returncode == 2 and r.stderr.strip().endswith("not UTF-8 text")


# -- bad input is a one-line error with status 2, never a traceback ---------------------

BASE = {"variant": "classic", "seats": [{"bets": [1000]}], "shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}


def _one_line_error(r, name):
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(name + ": "), r.stderr
    return lines[0]


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_json_nested_too_deeply_for_the_parser_is_a_one_line_error(tmp_path, check):
    f = tmp_path / "deep.json"
    f.write_text("[" * 2000 + "]" * 2000)
    line = _one_line_error(_replay(*check, str(f)), str(f))
    assert line == f"{f}: not JSON: nested too deeply"


@pytest.mark.parametrize(
    "text,key",
    [
        (
            '{"variant": "american", "variant": "classic", "seats": [{"bets": [1000]}], '
            '"shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}',
            "variant",
        ),
        (
            '{"variant": "classic", "seats": [{"bets": [1000], "bets": [2000]}], '
            '"shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}',
            "bets",
        ),
        (
            '{"variant": "classic", "rules": {"decks": 1, "decks": 2}, "seats": [{"bets": [1000]}], '
            '"shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}',
            "decks",
        ),
    ],
)
def test_a_repeated_key_is_refused_naming_the_key(tmp_path, text, key):
    f = tmp_path / "dup.json"
    f.write_text(text)
    line = _one_line_error(_replay(str(f)), str(f))
    assert line == f"{f}: not JSON: duplicate key {key!r} in one object"


@pytest.mark.parametrize("value", [5, None, ["split"], "", "  "])
@pytest.mark.parametrize("check", [[], ["--check"]])
def test_a_malformed_expect_error_is_bad_input_not_a_check_failure(tmp_path, value, check):
    f = tmp_path / "ee.json"
    f.write_text(json.dumps(BASE | {"expect_error": value}))
    line = _one_line_error(_replay(*check, str(f)), str(f))
    assert line == f"{f}: expect_error: must be a word the error message contains"


@pytest.mark.parametrize(
    "scenario,message",
    [
        (
            {"rules": {"double_totals": "all"}},
            "rules: double_totals: must be a list of totals (4-21; empty for any total), got 'all'",
        ),
        (
            {"rules": {"chip_values_minor": "500"}},
            "rules: chip_values_minor: must be a list of amounts in minor units, got '500'",
        ),
        (
            {"rules": {"dealer_hits_soft_17": False}},
            "rules: dealer_hits_soft_17: may not be overridden; the dealer stands on every 17 "
            "in all three games (RULES.md)",
        ),
        (
            {"rules": {"name": "House Rules"}},
            'rules: name: may not be overridden; the name comes with the top-level "variant" field',
        ),
        ({"rules": None}, "rules: must be an object of RuleSet fields"),
        ({"rules": []}, "rules: must be an object of RuleSet fields"),
        ({"seats": [{"bets": [1000], "seat": "x"}]}, "seat 1: \"seat\" must be a whole seat number, got 'x'"),
        ({"seats": [{"bets": [1000], "seat": True}]}, 'seat 1: "seat" must be a whole seat number, got True'),
        ({"seats": [{"bets": [1000], "stake": 5}]}, "seat 1: unknown field 'stake'; fields are bets, seat"),
    ],
)
def test_bad_rules_and_seats_name_the_problem(tmp_path, scenario, message):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(BASE | scenario))
    assert _one_line_error(_replay(str(f)), str(f)) == f"{f}: {message}"


def test_the_unknown_rules_field_error_lists_exactly_the_fields_that_are_accepted():
    with pytest.raises(ScenarioError) as e:
        run_scenario(BASE | {"rules": {"colour": "red"}})
    head, listed = str(e.value).split("; a scenario may override ")
    assert head == "rules: unknown field 'colour'"
    fields = listed.split(", ")
    assert fields == sorted(fields) and len(fields) == 22
    assert not {"variant", "name", "dealer_hits_soft_17"} & set(fields)
    # every listed field is accepted (here with the preset's own value: no change)
    from cabinet.game import CLASSIC

    preset_values = CLASSIC.to_dict()
    plain = run_scenario(BASE)
    assert plain["seats"] == [{"seat": 1, "wagered": 1000, "returned": 0, "net": -1000}]
    for name in fields:
        assert run_scenario(BASE | {"rules": {name: preset_values[name]}}) == plain, name
    # and every field the error leaves out is refused
    for name in ("variant", "name", "dealer_hits_soft_17"):
        with pytest.raises(ScenarioError, match=f"^rules: {name}: may not be overridden"):
            run_scenario(BASE | {"rules": {name: preset_values[name]}})


def test_replay_ran_out_of_decisions_names_them_in_the_singular():
    """ "ran out after 1 decision"."""
    scen = {
        "variant": "classic",
        "seats": [{"seat": 1, "bets": [100]}],
        "shoe": ["10S", "6H", "2C", "3D", "4C", "5C", "6C"],
        "decisions": ["hit"],
    }
    with pytest.raises(ScenarioError, match=r"ran out after 1 decision;"):
        run_scenario(scen)


@pytest.mark.timeout(60)
def test_replay_of_an_endless_file_stops_with_one_line_and_status_2():
    """``cabinet replay /dev/zero`` gives a clear error and exit 2, fast."""
    r = subprocess.run(
        [sys.executable, "-m", "cabinet.tools.cli", "replay", "/dev/zero"], capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "larger than" in r.stderr, r.stderr
