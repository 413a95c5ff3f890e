"""Every scenario file (SCENARIOS.md) passes: the shared ones beside the
project (``../shared/scenarios``) and the copies and additions in
``tests/scenarios``; and ``cabinet replay`` behaves as documented."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.replay import ScenarioError, match_expect, run_scenario

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
        'spots[0].hands[0].outcome: expected "lose", got "win"']
    assert match_expect({"prompts": ["x"]}, out) == ['prompts: expected ["x"], got []']


def _replay(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cabinet.cli", "replay", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)


def test_replay_prints_the_documented_output(tmp_path):
    # the example of SCENARIOS.md "Input"
    f = tmp_path / "example.json"
    f.write_text(json.dumps({"variant": "american", "seats": [{"bets": [1000]}],
                             "shoe": ["8S", "AH", "8D", "KS"], "decisions": ["insure"]}))
    r = _replay(str(f))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out == {
        "variant": "american",
        "dealer": {"cards": ["AH", "KS"], "total": 21, "blackjack": True},
        "spots": [{"seat": 1, "spot": 1, "insurance": {"stake": 500, "returned": 1500},
                   "hands": [{"cards": ["8S", "8D"], "stake": 1000, "total": 16,
                              "blackjack": False, "doubled": False, "from_split": False,
                              "outcome": "lose", "returned": 0}]}],
        "seats": [{"seat": 1, "wagered": 1500, "returned": 1500, "net": 0}],
        "prompts": ["insurance seat 1 spot 1"],
        "cards_left_unused": 0,
    }


@pytest.mark.parametrize("scenario,word", [
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
])
def test_replay_errors_exit_2_with_one_line(tmp_path, scenario, word):
    data = {"variant": "classic", "seats": [{"bets": [1000]}],
            "shoe": ["TS", "9H", "7D", "9C"], "decisions": ["stand"]}
    data.update(scenario)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    r = _replay(str(f))
    assert r.returncode == 2
    assert r.stdout == ""                              # nothing half-printed
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "bad.json" in lines[0]


def test_replay_check_flags_a_wrong_expectation(tmp_path):
    f = tmp_path / "wrong.json"
    f.write_text(json.dumps({"variant": "classic", "seats": [{"bets": [1000]}],
                             "shoe": ["TS", "7H", "8D", "TC"], "decisions": ["stand"],
                             "expect": {"seats": [{"net": 0}]}}))
    r = _replay("--check", str(f))
    assert r.returncode == 1
    assert "seats[0].net: expected 0, got 1000" in r.stderr


def test_check_tells_false_from_zero_and_reports_a_wrong_expected_error(tmp_path):
    assert match_expect({"blackjack": 0}, {"blackjack": False}) == [
        "blackjack: expected 0, got false"]
    f = tmp_path / "err.json"
    f.write_text(json.dumps({"variant": "classic", "seats": [{"bets": [1000]}],
                             "shoe": ["KS", "7H", "TD", "5C"], "decisions": ["split"],
                             "expect_error": "banana"}))
    r = _replay("--check", str(f))
    assert r.returncode == 1 and "expected an error containing 'banana'" in r.stderr


def test_rules_may_not_change_the_variant():
    with pytest.raises(ScenarioError, match="top-level"):
        run_scenario({"variant": "classic", "seats": [{"bets": [1000]}], "shoe": ["TS"],
                      "rules": {"variant": "american"}})


def test_a_file_that_is_not_text_is_a_one_line_error(tmp_path):
    f = tmp_path / "bin.json"
    f.write_bytes(b"\xff\xfe\x00")
    r = _replay(str(f))
    assert r.returncode == 2 and r.stderr.strip().endswith("not UTF-8 text")
