"""The par sheet: a Markdown report of one variant's return to player.

Owns: ``write_parsheet`` (report, chart PNG, text chart and JSON figures into
a directory), ``prepare_out_dir`` (that directory checked before the long
work), ``render_markdown`` and the short terminal summary ``summary_lines``.
Reads an ``Analysis`` and optionally a ``SimResult``; writes files only under
the directory it is given. Imports pygame only through ``chart``.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from cabinet.game.rules import RuleSet

from .analysis import Analysis
from .cd import CDAnalysis
from .chart import save_chart
from .dealer import OUTCOMES, dealer_table
from .simulate import FREQUENCIES, SimResult
from .strategy import UP_VALUES

METHOD_VERSION = "1"
"""Bumped whenever the analysis method changes its numbers."""


def software_version() -> str:
    """The installed ``blackjack-cabinet`` version, or ``"unknown"``."""
    try:
        return metadata.version("blackjack-cabinet")
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


def pct(x: float, places: int = 4) -> str:
    """``0.004017`` -> ``"0.4017 %"``."""
    return f"{x * 100:.{places}f} %"


def summary_lines(analysis: Analysis) -> list[str]:
    """What ``cabinet parsheet VARIANT`` prints on the terminal."""
    r = analysis.rules
    return [
        f"{r.name} ({r.variant}), {r.decks} deck(s), fresh shoe, one spot, basic strategy",
        f"RTP: {pct(analysis.rtp)}",
        f"House edge: {pct(analysis.house_edge)}",
        f"(exact analysis in {analysis.seconds:.1f} s)",
    ]


def cd_summary_lines(cd: CDAnalysis) -> list[str]:
    """What ``cabinet parsheet VARIANT --play cd`` prints (6 decimals of a percent)."""
    r = cd.rules
    return [
        f"{r.name} ({r.variant}), {r.decks} deck(s), fresh shoe, one spot, "
        f"composition-dependent play ({cd.post_split} after a split)",
        f"RTP: {pct(cd.rtp, 6)}",
        f"House edge: {pct(cd.house_edge, 6)}",
        f"(exact analysis in {cd.seconds:.1f} s)",
    ]


def insurance_return(analysis: Analysis) -> float | None:
    """The insurance wager's own return per unit of insurance wagered
    (1 + EV of the half-bet side wager / 0.5), averaged over the deals it is
    offered to; ``None`` when not offered."""
    up = analysis.ups.get(1)
    if up is None or up.insurance_ev is None:
        return None
    return 1.0 + up.insurance_ev / 0.5


def figures_rows(
    analysis: Analysis, cd: CDAnalysis | None, two: Analysis | None = None, cdp: CDAnalysis | None = None
) -> list[list[str]]:
    """Rows ``[figure, value, method, what it leaves out]`` of the report's
    table of figures: CD RTP (if given), CD with CDP after a split (``cdp``,
    if given), TD RTP, TD with separate two-card
    and multi-card tables (``two``, from ``analyse(..., two_tables=True)``,
    if given), insurance's own return."""
    rows = []
    if cd is not None:
        rows.append(
            [
                "RTP, composition-dependent play (CD)",
                f"{pct(cd.rtp, 6)} (house edge {pct(cd.house_edge, 6)})",
                "exact: every hand takes the best action for its exact cards (not only its "
                "total) against every up card, from the shoe less every card seen; after a "
                f"split each hand plays as the same cards would unsplit ({cd.post_split}, "
                "Farmer), limited to what a split hand may do",
                "post-split optimal play (CDP: using the other pair card; the other hand's "
                "cards); cards of other spots; insurance is taken only where it pays (never "
                "off a full shoe)",
            ]
        )
    if cdp is not None:
        rows.append(
            [
                "RTP, composition-dependent play, CDP after a split",
                f"{pct(cdp.rtp, 6)} (house edge {pct(cdp.house_edge, 6)})",
                "exact: as CD, but each split hand takes the best action for its own cards "
                "and the other pair card, limited to what a split hand may do (Farmer's CDP)",
                "the other split hand's cards (seen by the player, not used); cards of other spots",
            ]
        )
    rows.append(
        [
            "RTP, total-dependent basic strategy (TD)",
            f"{pct(analysis.rtp, 6)} (house edge {pct(analysis.house_edge, 6)})",
            "exact: the chart below (one action per total, soft/hard, pair and up card, "
            "whatever the number of cards), derived by coordinate ascent",
            "the hand's composition (the CD figure shows what it is worth); separate "
            "two-card and multi-card tables; cards of other spots",
        ]
    )
    if two is not None and two.hit_two_card is not None:
        cells = sorted(two.hit_two_card ^ two.strategy.hit, key=lambda k: (k[1], k[0], k[2]))
        diff = (
            ", ".join(
                f"{'soft' if soft else 'hard'} {t} v {_up(u)}: "
                f"{'hit' if (t, soft, u) in two.hit_two_card else 'stand'} with two cards, "
                f"{'hit' if (t, soft, u) in two.strategy.hit else 'stand'} with more"
                for t, soft, u in cells
            )
            or "none"
        )
        rows.append(
            [
                "RTP, total-dependent with two-card and multi-card tables",
                f"{pct(two.rtp, 6)} (house edge {pct(two.house_edge, 6)})",
                "exact: as TD, but two-card hands (split hands too) and hands of three or "
                f"more cards each have their own hit/stand table; they differ in {diff}",
                "the hand's composition; the cabinet's simulator and the chart below use the one-table TD strategy",
            ]
        )
    ins = insurance_return(analysis)
    if ins is not None:
        rows.append(
            [
                "Insurance, its own return",
                f"{pct(ins, 4)} per unit of insurance wagered",
                "exact: the half-bet side wager paying 2:1, averaged over every deal it is "
                "offered to (Ace up, no player blackjack), the three cards seen removed",
                "declined by both strategies (negative EV), so not in the RTPs above; a "
                "count of earlier rounds (a fresh shoe every round)",
            ]
        )
    return rows


def _rules_rows(r: RuleSet) -> list[tuple[str, str]]:
    dbl = (
        "any two cards"
        if not r.double_totals
        else "two-card totals " + ", ".join(str(t) for t in sorted(r.double_totals))
    )
    checks = [name for name, on in (("Ace", r.peek_on_ace), ("ten", r.peek_on_ten)) if on]
    return [
        ("Decks", f"{r.decks}, shuffled before every round"),
        (
            "Dealer second card",
            "hole card at the deal"
            if r.dealer_hole_card
            else "none at the deal; drawn at the check or when the dealer plays",
        ),
        ("Blackjack check", "on " + " and ".join(checks) if checks else "never"),
        (
            "Dealer blackjack after play",
            "takes the whole stake (doubles, splits) of every other hand"
            if not r.peek_on_ten
            else "cannot happen (checked)",
        ),
        ("Dealer soft 17", "hits" if r.dealer_hits_soft_17 else "stands"),
        ("Blackjack pays", "3:2"),
        ("Double", dbl + ("; after a split too" if r.double_after_split else "; not after a split")),
        (
            "Split",
            f"two cards of the same {r.split_by}, "
            f"{'once' if r.max_splits_per_spot == 1 else r.max_splits_per_spot} per spot",
        ),
        ("Split Aces", "one card each" if r.split_aces_one_card else "played on like any hand"),
        ("Card limit", f"{r.max_hand_cards} cards stand" if r.max_hand_cards else "none"),
        ("Insurance", "on an Ace up, half the bet, pays 2:1" if r.insurance else "none"),
        ("Surrender", "no"),
    ]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _up(u: int) -> str:
    return "A" if u == 1 else str(u)


def render_markdown(
    analysis: Analysis,
    sim: SimResult | None,
    chart_name: str,
    text_chart_name: str,
    cd: CDAnalysis | None = None,
    two: Analysis | None = None,
    cdp: CDAnalysis | None = None,
) -> str:
    """The par sheet as Markdown.

    Args:
        analysis: the exact analysis.
        sim: a simulation of the same variant and strategy, or ``None``.
        chart_name, text_chart_name: file names of the PNG and text charts,
            relative to the report.
        cd: the composition-dependent analysis of the same variant, or ``None``.
        two: its two-table TD analysis (``analyse(..., two_tables=True)``), or ``None``.
        cdp: its CD analysis with CDP after a split, or ``None``.
    """
    a, r = analysis, analysis.rules
    lines = [
        f"# Par sheet: {r.name} (`{r.variant}`)",
        "",
        f"Software: blackjack-cabinet {software_version()}, analysis method {METHOD_VERSION}.",
        "",
        "## Return to player",
        "",
        f"- **RTP: {pct(a.rtp)}**",
        f"- **House edge: {pct(a.house_edge)}**",
        "- per unit of initial bet, one spot playing alone, the total-dependent basic "
        "strategy below, a freshly shuffled shoe; insurance " + ("taken" if a.strategy.insurance else "declined") + ".",
        f"- exact combinatorial analysis, computed in {a.seconds:.1f} s.",
        "",
    ]
    lines += _table(["Figure", "Value", "Method", "What it leaves out"], figures_rows(a, cd, two, cdp))
    lines.append("")
    if cd is not None:
        rows = [
            [_up(u), f"{cd.ups[u].ev * 100:+.4f} %", f"{a.ups[u].ev * 100:+.4f} %" if u in a.ups else ""]
            for u in UP_VALUES
            if u in cd.ups
        ]
        lines += [
            "EV by up card per unit of initial bet, composition-dependent (CD) and total-dependent (TD) play:",
            "",
        ]
        lines += _table(["Up card", "CD", "TD"], rows) + [""]
    lines += ["## Rules (RULES.md)", ""]
    lines += _table(["Rule", "This game"], [[k, v] for k, v in _rules_rows(r)])
    lines += [
        "",
        "## Method",
        "",
        "Every initial hand (two player cards and the up card) is removed from the "
        "full shoe; every hand the player can reach by hitting is expanded with the "
        "exact probabilities of the remaining cards, and the dealer's final-total "
        "distribution is recomputed for each of those exact compositions. A dealer "
        "check is modelled by excluding the dealer-blackjack mass and charging the "
        "initial bet once; with no check (a ten up in `classic`) a dealer blackjack "
        "made at the end takes the whole stake of the hand. Splits are valued as "
        "twice one split hand started with the other pair card removed, which is "
        "exact for a total-dependent strategy (exchangeability and optional "
        "stopping); the tests confirm every kind of play against exhaustive play of "
        "the real round on tiny shoes to 1e-12.",
        "",
        "Approximations: none in the RTP of the stated strategy beyond float "
        "rounding (below 1e-10 %). The strategy is total-dependent and found by "
        "coordinate ascent (each state's action is the best response given all "
        "others, weighted by the probability of reaching it); a composition-"
        "dependent player does slightly better (the CD figure above, same "
        "model, every exact composition taking its best action). Multi-spot play is not modelled: "
        "other spots' unseen cards do not change a spot's EV off a fresh shuffle.",
        "",
    ]
    lines += ["## EV by up card", ""]
    rows = []
    for u in UP_VALUES:
        if u not in a.ups:
            continue
        res = a.ups[u]
        ins = "" if res.insurance_ev is None else f"{res.insurance_ev * 100:+.3f} %"
        rows.append([_up(u), f"{res.probability:.5f}", f"{res.ev * 100:+.4f} %", f"{res.dealer_blackjack:.5f}", ins])
    lines += _table(["Up card", "P(up)", "EV / initial bet", "P(dealer BJ)", "Insurance EV (offered hands)"], rows)
    lines += [
        "",
        "## Basic strategy",
        "",
        f"![Basic strategy chart]({chart_name})",
        "",
        f"Text version: [{text_chart_name}]({text_chart_name}).",
        "",
        "```",
        a.strategy.to_text().rstrip(),
        "```",
        "",
    ]
    lines += [
        "## Dealer outcome by up card",
        "",
        "Probability of the dealer's final result, from a fresh shoe less the up "
        "card (before any check; with a check the blackjack column ends the round "
        "at once).",
        "",
    ]
    table = dealer_table(a.counts)
    rows = [[_up(u)] + [f"{p:.4f}" for p in table[u]] for u in UP_VALUES if u in table]
    lines += _table(["Up"] + list(OUTCOMES), rows)
    lines += [
        "",
        "## EV of each first action, initial two-card hands",
        "",
        "Per unit of initial bet, in %, conditioned on no dealer blackjack when the "
        "dealer checks on that up card; after the first action the strategy above "
        "is followed. Empty: not allowed.",
        "",
    ]
    for action in ("stand", "hit", "double", "split"):
        rows = []
        for kind, label, row in a.strategy.rows():
            if action == "split" and kind != "pair":
                continue
            cells = []
            any_value = False
            for u in UP_VALUES:
                ev = a.ups[u].rows.get((kind, row)) if u in a.ups else None
                val = None if ev is None else getattr(ev, action)
                cells.append("" if val is None else f"{val * 100:+.2f}")
                any_value = any_value or val is not None
            if any_value:
                rows.append([f"{kind} {label}" if kind != "pair" else label] + cells)
        lines += [f"### {action.capitalize()}", ""]
        lines += _table(["Hand"] + [_up(u) for u in UP_VALUES], rows) + [""]
    lines += ["## Simulation of the real game code", ""]
    if sim is None:
        lines += ["Not run for this report.", ""]
    else:
        lo, hi = sim.ci95
        inside = "yes" if sim.contains(a.rtp) else "**no**"
        lines += _table(
            ["", "Exact", "Simulated"],
            [
                ["RTP", pct(a.rtp), f"{pct(sim.rtp)} (95 % CI {pct(lo)} - {pct(hi)})"],
                ["House edge", pct(a.house_edge), pct(-sim.mean)],
                ["Exact RTP inside the 95 % interval", "", inside],
                ["Rounds", "", f"{sim.rounds:,}"],
                ["Std. dev. per round (initial bets)", "", f"{sim.std:.4f}"],
                [
                    "Hold per total amount wagered",
                    "",
                    pct(-sim.net_minor / sim.wagered_minor if sim.wagered_minor else 0.0),
                ],
            ],
        )
        lines += ["", "Frequencies (share of rounds):", ""]
        lines += _table(["Event", "Share"], [[k.replace("_", " "), pct(sim.frequency(k), 3)] for k in FREQUENCIES])
        lines += ["", "Net result per round (in initial bets):", ""]
        lines += _table(["Net", "Share"], [[f"{k:+g}", pct(v, 4)] for k, v in sim.distribution()])
        lines.append("")
    return "\n".join(lines)


def parsheet_files(variant: str) -> list[str]:
    """Names of the files ``write_parsheet`` writes for ``variant``."""
    return [f"parsheet-{variant}.md", f"strategy-{variant}.png", f"strategy-{variant}.txt", f"parsheet-{variant}.json"]


def prepare_out_dir(out_dir: Path, variant: str) -> None:
    """Create ``out_dir`` (with its parents) and check the par sheet can be written there.

    Run it before the long work, so a bad directory fails in a moment
    instead of after the analysis and the simulation (``check_writable``
    on ``parsheet_files(variant)``).

    Raises:
        OSError: see ``check_writable``.
    """
    check_writable(out_dir, parsheet_files(variant))


def check_writable(out_dir: Path, names: list[str]) -> None:
    """Create ``out_dir`` (with its parents) and check files ``names`` can be written in it.

    Writes nothing but the directory itself (a probe file is created and
    removed at once).

    Args:
        out_dir: the directory; it may exist already.
        names: file names in it that will be written; those that exist
            already must be regular files that can be overwritten.

    Raises:
        OSError: with a short reason in ``strerror``: the directory cannot
            be created, is not a directory, cannot be written into, or a
            file exists and cannot be overwritten.
    """
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OSError(errno.ENOTDIR, "exists and is not a directory") from None
    except OSError as e:
        raise OSError(e.errno, f"cannot create the directory: {e.strerror or e}") from None
    try:
        with tempfile.TemporaryFile(dir=out_dir, prefix=".parsheet-probe-"):
            pass
    except OSError as e:
        raise OSError(e.errno, f"cannot write into the directory: {e.strerror or e}") from None
    for name in names:
        target = out_dir / name
        if target.exists() and (not target.is_file() or not os.access(target, os.W_OK)):
            raise OSError(errno.EACCES, f"{name} exists and cannot be overwritten")


def write_parsheet(
    analysis: Analysis,
    sim: SimResult | None,
    out_dir: Path,
    cd: CDAnalysis | None = None,
    two: Analysis | None = None,
    cdp: CDAnalysis | None = None,
) -> Path:
    """Write the par sheet of ``analysis`` (and ``cd``, its CD figures) into ``out_dir``.

    Files: ``parsheet-<variant>.md``, ``strategy-<variant>.png``,
    ``strategy-<variant>.txt`` and ``parsheet-<variant>.json`` (the figures).
    Callers with long work before this should call ``prepare_out_dir`` first.

    Returns:
        The path of the Markdown report.

    Raises:
        OSError: the directory or a file cannot be written.
    """
    v = analysis.rules.variant
    out_dir.mkdir(parents=True, exist_ok=True)
    report, png, text, figures_json = (out_dir / name for name in parsheet_files(v))
    chart = save_chart(analysis.strategy, f"{analysis.rules.name} ({v})", png)
    text.write_text(analysis.strategy.to_text())
    report.write_text(render_markdown(analysis, sim, chart.name, text.name, cd, two, cdp))
    figures: dict[str, Any] = {
        "variant": v,
        "software": software_version(),
        "method": METHOD_VERSION,
        "rtp": analysis.rtp,
        "house_edge": analysis.house_edge,
        "ev_by_up": {str(u): res.ev for u, res in analysis.ups.items()},
        "insurance_return": insurance_return(analysis),
        "cd": None
        if cd is None
        else {
            "post_split": cd.post_split,
            "rtp": cd.rtp,
            "house_edge": cd.house_edge,
            "ev_by_up": {str(u): res.ev for u, res in cd.ups.items()},
        },
        "cdp": None if cdp is None else {"rtp": cdp.rtp, "house_edge": cdp.house_edge},
        "td_two_tables": None
        if two is None
        else {
            "rtp": two.rtp,
            "house_edge": two.house_edge,
            "hit_two_card": sorted([t, s, u] for t, s, u in two.hit_two_card or ()),
            "hit_multi_card": sorted([t, s, u] for t, s, u in two.strategy.hit),
        },
        "strategy": analysis.strategy.to_dict(),
        "simulation": None if sim is None else sim.to_dict(),
    }
    figures_json.write_text(json.dumps(figures, indent=1) + "\n")
    return report
