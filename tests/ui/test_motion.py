"""The felt: lost chips swept to the dealer, won chips paid beside the stake,
and a win celebration scaled to the win; the model without a display, the frames
as goldens (``tests/ui/fixtures_motion.py``) at 1920x1080, 1280x720 and 800x480."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pygame
import pytest

from cabinet.protocol.snapshot import DealerView
from tests.ui import fixtures_motion as fm
from tests.ui.fixtures import AMERICAN_SETTLED, CLASSIC_PUSH
from tests.ui.test_screenshots import GOLDEN, MAX_DIFF_SHARE, SIZES, diff_pixels
from ui import celebration, motion
from ui.animation import Animator
from ui.app import App
from ui.celebration import BIG, MEDIUM, SMALL, tier
from ui.layout import Layout
from ui.motion import AT_REST, FROM_RACK, GONE, HIDDEN, INSURANCE, TO_METER, TO_RACK
from ui.render import Renderer, station_geometry
from ui.settle_draw import on_felt_minor, spot_slots
from ui.sound import Sounds, synth
from ui.widgets import Painter

R = msgspec.structs.replace


def _settle(settled: msgspec.Struct, now_ms: int = 1_000) -> Animator:
    a = Animator()
    a.on_snapshot(fm.unsettled(settled), settled, now_ms)  # type: ignore[arg-type]
    return a


# -- which stacks move, where and when ----------------------------------------------


def test_a_loss_is_swept_to_the_rack_and_never_paid() -> None:
    """A lost stake slides from its circle to the dealer's rack and is gone;
    a loss never gets a payout nor goes to the credit meter."""
    a = _settle(fm.CLASSIC_LOSE, 1_000)
    (m,) = a.settles.values()
    assert (m.key, m.result, m.stake_minor, m.payout_minor) == ((1, 1, 0), "lose", 500, 0)
    assert m.sweep == motion.Tween(1_000 + motion.SETTLE_DELAY_MS, motion.SWEEP_MS)
    assert m.pay is None and m.collect is None
    start = m.sweep.start_ms
    assert m.stake_phase(start - 1) == (AT_REST, 0.0)
    assert m.stake_phase(start + motion.SWEEP_MS // 2) == (TO_RACK, 0.5)
    assert m.stake_phase(start + motion.SWEEP_MS) == (GONE, 1.0)
    assert all(m.payout_phase(t)[0] == HIDDEN for t in range(0, 10_000, 50))
    assert not a.celebrations(start + 100)


def test_a_win_is_paid_beside_the_stake_then_both_go_to_the_credit_meter() -> None:
    """An even-money win: the dealer pays 1:1 from the rack; the payout rests
    beside the stake ``HOLD_MS``, then stake and payout travel to the credit meter."""
    a = _settle(fm.CLASSIC_WIN, 0)
    (m,) = a.settles.values()
    assert (m.result, m.stake_minor, m.payout_minor, m.sweep) == ("win", 500, 500, None)
    assert m.pay == motion.Tween(motion.SETTLE_DELAY_MS, motion.PAY_MS)
    landed = m.pay.end_ms()
    assert m.collect == motion.Tween(landed + motion.HOLD_MS, motion.COLLECT_MS)
    assert m.payout_phase(motion.SETTLE_DELAY_MS - 1) == (HIDDEN, 0.0)
    assert m.payout_phase(motion.SETTLE_DELAY_MS + motion.PAY_MS // 2) == (FROM_RACK, 0.5)
    assert m.payout_phase(landed + 10) == (AT_REST, 0.0)  # beside the stake
    assert m.stake_phase(landed + 10) == (AT_REST, 0.0)  # still in its circle
    mid = landed + motion.HOLD_MS + motion.COLLECT_MS // 2
    assert m.stake_phase(mid) == (TO_METER, 0.5) and m.payout_phase(mid) == (TO_METER, 0.5)
    assert m.stake_phase(m.end_ms()) == (GONE, 1.0) == m.payout_phase(m.end_ms())


def test_blackjack_pays_3_to_2_and_a_push_goes_home_unpaid() -> None:
    """The payout beside a blackjack is 3:2 of the stake; a push is neither
    swept nor paid: its stake waits, then goes back to the credit meter."""
    (bj,) = _settle(fm.CLASSIC_BJ).settles.values()
    assert (bj.stake_minor, bj.payout_minor) == (1_000, 1_500)
    (push,) = _settle(CLASSIC_PUSH, 0).settles.values()
    assert (push.result, push.sweep, push.pay, push.payout_minor) == ("push", None, None, 0)
    assert push.collect == motion.Tween(motion.SETTLE_DELAY_MS + motion.PUSH_HOLD_MS, motion.COLLECT_MS)


def test_losses_are_swept_first_in_dealer_order_then_wins_paid() -> None:
    """The dealer takes the losing bets first, then pays, from the dealer's
    right to left (left to right on screen); each hand staggered."""
    a = _settle(fm.MULTI_DOUBLED, 0)
    m = {k[0]: v for k, v in a.settles.items()}
    assert m[3].sweep is not None and m[3].pay is None  # station 3 lost
    assert m[3].sweep.start_ms == motion.SETTLE_DELAY_MS
    assert m[1].pay is not None and m[2].pay is not None
    assert m[1].pay.start_ms >= m[3].sweep.end_ms() - 120  # paid once the loss is in
    assert m[2].pay.start_ms - m[1].pay.start_ms == motion.PAY_STAGGER_MS
    # the doubled stake moves whole (both stacks) and is paid its whole amount
    assert (m[2].stake_minor, m[2].payout_minor) == (5_000, 5_000)
    assert m[1].collect is not None and m[2].collect is not None
    assert m[1].collect.start_ms == m[2].pay.end_ms() + motion.HOLD_MS  # all paid, held, then home


def test_split_hands_and_doubled_stakes_each_have_their_own_slot() -> None:
    """Each split hand settles with its own stake and its own payout beside
    it; a doubled stake is two stacks summing to its amount."""
    a = _settle(fm.AMERICAN_BIG, 0)
    keys = sorted(a.settles)
    assert keys == [(1, 1, 0), (1, 1, 1), (1, 3, 0)]
    assert [a.settles[k].payout_minor for k in keys] == [1_000, 1_000, 0]
    sp = fm.AMERICAN_BIG.stations[0].spots[0]
    slots = spot_slots(sp, 1600, 900, 50, 640)
    assert [sum(sum(c) for c, _, _ in slots[j].stacks) for j in (0, 1)] == [1_000, 1_000]
    assert all(len(slots[j].stacks) == 2 for j in (0, 1))  # doubled: two stacks each
    x0, x1 = slots[0].stacks[0][1][0], slots[1].stacks[0][1][0]
    assert x0 < slots[0].beside[0] < x1 < slots[1].beside[0]  # payout beside its own stake


def test_insurance_is_swept_at_the_peek_and_paid_2_to_1_at_its_line() -> None:
    """Insurance lost at the dealer's peek is swept from the insurance line at
    once (the hand plays on); insurance won pays 2:1 beside it, the hand's loss swept."""
    a = _settle(fm.INSURANCE_LOST_AT_PEEK, 0)
    (m,) = a.settles.values()
    assert (m.key, m.result, m.stake_minor, m.pay) == ((1, 1, INSURANCE), "lose", 1_250, None)
    assert m.sweep is not None
    a = _settle(fm.MULTI_INSURANCE_PAID, 0)
    ins, lost = a.settles[(1, 1, INSURANCE)], a.settles[(1, 1, 0)]
    assert (ins.result, ins.payout_minor, ins.sweep) == ("win", 2_500, None)
    assert ins.pay is not None and lost.sweep is not None and lost.pay is None
    assert not a.wins  # net 0: insurance made up the loss, nothing to celebrate


def test_the_credit_meter_takes_each_stack_as_it_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    """The won and pushed money is on screen once: on the felt until its
    stacks reach the credit meter, then in the meter (which shows the engine's value
    once everything has arrived); a loss changes nothing there."""
    s = AMERICAN_SETTLED  # credits 52,250: the blackjack's 6,250 and the push's 1,000 in
    a = _settle(s, 0)
    st = s.stations[0]
    bj, push = a.settles[(1, 1, 0)], a.settles[(1, 2, 0)]
    assert bj.collect is not None and push.collect is not None
    assert on_felt_minor(st, a, 0) == 6_250 + 1_000
    assert on_felt_minor(st, a, bj.collect.start_ms + 10) == 6_250 + 1_000  # on their way
    assert on_felt_minor(st, a, push.collect.end_ms()) == 6_250  # the push is in
    assert on_felt_minor(st, a, bj.collect.end_ms()) == 0
    assert on_felt_minor(st, None, 0) == 0
    assert on_felt_minor(fm.CLASSIC_LOSE.stations[0], _settle(fm.CLASSIC_LOSE), 1_500) == 0
    texts: list[str] = []
    meter = Painter.meter

    def spy(self: Painter, rect: pygame.Rect, label: str, value: str, sub: str | None = None) -> None:
        if label == "CREDITS":
            texts.append(value)
        meter(self, rect, label, value, sub)

    monkeypatch.setattr(Painter, "meter", spy)
    r, frame = Renderer(), pygame.Surface((1920, 1080))
    for t in (0, push.collect.end_ms(), bj.collect.end_ms()):
        r.draw(frame, s, t, a)
    assert texts == ["$450.00", "$460.00", "$522.50"]


def test_the_dealer_settles_once_the_last_cards_have_landed() -> None:
    """A result that comes with the dealer's last cards (drawn, the hole card
    turned) is swept and paid only after those cards have slid in and turned."""
    s = AMERICAN_SETTLED
    before = R(fm.unsettled(s), dealer=DealerView(cards=["TD"], face_down=1, total_text="10"))
    s = R(s, dealer=DealerView(cards=["TD", "QC", "2S"], total_text="22"))
    a = Animator()
    a.on_snapshot(before, s, 1_000)
    landed = max(t.end_ms() for t in [*a.cards.values(), *a.flips.values()])
    assert landed > 1_000
    lost = a.settles[(1, 3, 0)]
    assert lost.sweep is not None and lost.sweep.start_ms == landed + motion.SETTLE_DELAY_MS


def test_a_result_without_its_return_is_never_paid() -> None:
    """A settled hand whose return the snapshot does not tell is drawn as a
    push (its stake goes home), a lost one swept; no payout is guessed."""
    unknown = R(
        fm.CLASSIC_WIN,
        stations=[
            R(
                fm.CLASSIC_WIN.stations[0],
                spots=[
                    R(
                        fm.CLASSIC_WIN.stations[0].spots[0],
                        hands=[R(fm.CLASSIC_WIN.stations[0].spots[0].hands[0], returned_minor=None)],
                    )
                ],
            )
        ],
    )
    (m,) = _settle(unknown).settles.values()
    assert (m.result, m.payout_minor, m.pay) == ("push", 0, None)
    lost = R(
        unknown,
        stations=[
            R(
                unknown.stations[0],
                spots=[
                    R(unknown.stations[0].spots[0], hands=[R(unknown.stations[0].spots[0].hands[0], outcome="bust")])
                ],
            )
        ],
    )
    (m,) = _settle(lost).settles.values()
    assert m.result == "lose" and m.sweep is not None


def test_the_next_rounds_result_moves_even_when_the_ui_missed_the_rounds_between() -> None:
    """The UI keeps only the newest snapshot; when it sees one result right
    after the previous round's (the bets and the deal between unseen), the new result
    still sweeps, pays and celebrates, from its own start."""
    a = _settle(fm.CLASSIC_WIN, 0)
    nxt = R(fm.CLASSIC_BJ, seq=fm.CLASSIC_WIN.seq + 9)
    assert a.on_snapshot(fm.CLASSIC_WIN, nxt, 9_000) == ["blackjack"]
    (m,) = a.settles.values()
    assert m.payout_minor == 1_500 and m.pay is not None and m.pay.start_ms == 9_000 + motion.SETTLE_DELAY_MS
    assert [c.tier for c in a.wins] == [MEDIUM] and a.busy(9_500)


def test_a_result_seen_twice_does_not_start_again() -> None:
    """A later snapshot of the same settled round (a meter changed) keeps the
    moves running from where they are."""
    a = _settle(fm.CLASSIC_WIN, 0)
    first = dict(a.settles)
    a.on_snapshot(fm.CLASSIC_WIN, R(fm.CLASSIC_WIN, seq=fm.CLASSIC_WIN.seq + 1), 300)
    assert a.settles == first and len(a.wins) == 1


# -- the celebration --------------------------------------------------------------


def test_the_celebration_tier_follows_the_win() -> None:
    """None for a push or a loss, small for even money, bigger for a
    blackjack, big for many times the bet or a win of the table's maximum."""
    assert tier(0, 500, False) is None and tier(-500, 500, False) is None
    assert tier(500, 500, False) == SMALL
    assert tier(750, 500, True) == MEDIUM
    assert tier(1_000, 500, False) == MEDIUM  # a double won: twice the bet
    assert tier(1_500, 500, False) == BIG
    assert tier(10_000, 10_000, False, big_minor=10_000) == BIG
    cases = {
        "push": CLASSIC_PUSH,
        "lose": fm.CLASSIC_LOSE,
        "1:1": fm.CLASSIC_WIN,
        "3:2": fm.CLASSIC_BJ,
        "split+double": fm.AMERICAN_BIG,
        "max bet": fm.CLASSIC_MAX_WIN,
    }
    got = {name: [c.tier for c in _settle(s).wins] for name, s in cases.items()}
    assert got == {"push": [], "lose": [], "1:1": [SMALL], "3:2": [MEDIUM], "split+double": [BIG], "max bet": [BIG]}


def test_the_celebration_starts_when_the_payout_lands_and_ends_by_itself() -> None:
    """It runs for its tier's time from when the payout lands, then nothing
    moves: the loop goes back to sleep (no frame due)."""
    app = App(pygame.Surface((800, 480)), None)
    app.feed([fm.unsettled(fm.AMERICAN_BIG)], 0)
    app.feed([fm.AMERICAN_BIG], 100)
    (c,) = app.anim.wins
    paid = min(m.pay.end_ms() for m in app.anim.settles.values() if m.pay is not None)
    assert c.tween == motion.Tween(paid, celebration.DURATION_MS[BIG])
    assert c.net_minor == 1_900 and c.spots == (1,)
    assert app.anim.celebrations(paid + 10) == [c] and not app.anim.celebrations(c.tween.end_ms())
    end = max(c.tween.end_ms(), *(m.end_ms() for m in app.anim.settles.values()))
    assert app.frame_interval_ms(end - 1) == 16
    app.draw(end)
    assert app.frame_interval_ms(end) is None


def test_the_win_sound_follows_the_tier(monkeypatch: pytest.MonkeyPatch) -> None:
    """The win sound scales with the celebration: win, blackjack, big_win;
    none for a push or a loss."""
    got = {}
    for name, s in {
        "lose": fm.CLASSIC_LOSE,
        "push": CLASSIC_PUSH,
        "1:1": fm.CLASSIC_WIN,
        "3:2": fm.CLASSIC_BJ,
        "big": fm.AMERICAN_BIG,
    }.items():
        got[name] = Animator().on_snapshot(fm.unsettled(s), s, 0)
    assert got == {"lose": [], "push": [], "1:1": ["win"], "3:2": ["blackjack"], "big": ["big_win"]}
    assert len(synth("win")) < len(synth("blackjack")) < len(synth("big_win"))  # a longer call each
    assert "big_win" in Sounds.NAMES


def test_a_stations_own_screen_celebrates_its_own_win_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a station's own screen (``--own-station``) the banner is that
    station's win, without "STATION n"; another station's win shows no banner there."""
    a = _settle(fm.MULTI_DOUBLED, 0)
    t = max(c.tween.start_ms for c in a.wins) + 400
    seen: list[tuple[int, str]] = []
    orig = celebration.banner_text

    def spy(c: celebration.Celebration, sym: str, n: int) -> str:
        seen.append((c.station, orig(c, sym, n)))
        return orig(c, sym, n)

    monkeypatch.setattr(celebration, "banner_text", spy)
    got = {}
    for own in (1, 2, 3):
        seen.clear()
        Renderer().draw(pygame.Surface((1280, 720)), fm.MULTI_DOUBLED, t, a, own_station=own)
        got[own] = list(seen)
    assert got == {1: [(1, "")], 2: [(2, "WIN $50.00")], 3: []}  # station 1's is small: no banner
    seen.clear()
    Renderer().draw(pygame.Surface((1280, 720)), fm.MULTI_DOUBLED, t, a)  # the shared screen
    assert seen == [(2, "STATION 2 \u00b7 WIN $50.00")]


def test_a_new_round_stops_everything_at_once() -> None:
    """The next bet (the settled hands leave the snapshot) cancels the moves
    and the celebration in that very snapshot."""
    a = _settle(fm.AMERICAN_BIG, 0)
    assert a.settles and a.wins and a.busy(900)
    nxt = R(fm.AFTER_NEXT_BET, seq=fm.AMERICAN_BIG.seq + 1)
    a.on_snapshot(fm.AMERICAN_BIG, nxt, 900)
    assert not a.settles and not a.wins and not a.busy(900)


# -- drawing -----------------------------------------------------------------------


def _mask(a: pygame.Surface, b: pygame.Surface, tol: int = 24) -> pygame.mask.Mask:
    """The pixels where ``a`` and ``b`` differ by more than ``tol``."""
    from tests.ui.test_screenshots import same_mask

    differ = same_mask(a, b, tol)
    differ.invert()
    return differ


@pytest.mark.parametrize(
    "settled",
    [AMERICAN_SETTLED, fm.MULTI_DOUBLED, fm.AMERICAN_BIG, fm.CLASSIC_BJ, fm.MULTI_INSURANCE_PAID],
    ids=["american", "doubled", "big", "bj", "ins"],
)
def test_nothing_moving_covers_a_card_or_a_button(settled: msgspec.Struct) -> None:
    """Through the whole settlement, every pixel the motion or the celebration
    changes lies off every card (indices included) and off every button; and the
    touch targets stay those of the table at rest (the celebration takes no input)."""
    size = (1280, 720)
    r = Renderer()
    a = _settle(settled, 0)
    end = max([m.end_ms() for m in a.settles.values()] + [c.tween.end_ms() for c in a.wins])
    drawn: list[pygame.Rect] = []
    blit_card = r._blit_card

    def spy(p, code, rect, key, now_ms, anim):  # type: ignore[no-untyped-def]
        drawn.append(p.L.rect(rect).inflate(-4, -4))  # the face, inside its rounded corners
        return blit_card(p, code, rect, key, now_ms, anim)

    r._blit_card = spy  # type: ignore[method-assign]
    rest = pygame.Surface(size)
    rest_hits = r.draw(rest, settled, end, a)  # type: ignore[arg-type]
    r._blit_card = blit_card  # type: ignore[method-assign]
    cards = pygame.mask.Mask(size)
    for c in drawn:
        cards.draw(pygame.mask.Mask(c.size, fill=True), c.topleft)
    assert drawn
    shapes = pygame.Surface(size)
    for h in rest_hits:  # each button as drawn: a rounded rectangle
        if h.action == "chip":  # a chip to pick is round
            pygame.draw.circle(shapes, (255, 255, 255), h.rect.center, min(h.rect.size) // 2)
        elif h.action not in ("ui:help", "place"):  # a circle is where chips lie
            pygame.draw.rect(shapes, (255, 255, 255), h.rect, border_radius=Layout.for_size(*size).px(12))
    buttons = pygame.mask.from_threshold(shapes, (255, 255, 255), (1, 1, 1, 255))
    moved_somewhere = False
    for t in range(0, end, 90):
        frame = pygame.Surface(size)
        hits = r.draw(frame, settled, t, a)  # type: ignore[arg-type]
        moved = _mask(frame, rest)
        moved_somewhere = moved_somewhere or moved.count() > 0
        assert moved.overlap_area(cards, (0, 0)) == 0, f"covers a card at {t} ms"
        assert moved.overlap_area(buttons, (0, 0)) == 0, f"covers a button at {t} ms"
        assert [(h.action, h.rect) for h in hits] == [(h.action, h.rect) for h in rest_hits]
    assert moved_somewhere


def _chip_pixels(surf: pygame.Surface, cx: float, cy: float, half: int = 26) -> int:
    """Pixels in a square at logical ``cx, cy`` (1920x1080: 1:1) that are not the bare
    betting circle's green: chips (or anything else) lying there."""
    box = pygame.Rect(int(cx) - half, int(cy) - half, 2 * half, 2 * half)
    m = pygame.mask.from_threshold(surf.subsurface(box), (10, 70, 38), (25, 25, 25, 255))
    return box.w * box.h - m.count()


def test_at_rest_a_lost_stake_is_gone_and_a_payout_lies_beside_its_stake(renderer: Renderer) -> None:
    """A settled table drawn without motion (start-up, recall): the lost
    stake is not in its circle any more (it was before the result); the win's payout
    lies beside its stake; once the motion is over, every circle is empty (its chips
    went to the rack or the credit meter)."""
    s = AMERICAN_SETTLED
    geo = station_geometry(Layout.for_size(1920, 1080), None, s, 0, 1, s.stations[0])
    spot_w = geo.box.w / 3
    centre = {n: geo.box.x + spot_w * (3 - n + 0.5) for n in (1, 2, 3)}
    cy = geo.circle_y + 10
    still, open_round, done = (pygame.Surface((1920, 1080)) for _ in range(3))
    renderer.draw(still, s, 0, None)
    renderer.draw(open_round, fm.unsettled(s), 0, None)
    assert _chip_pixels(open_round, centre[3], cy) > 500  # the bet, before the result
    assert _chip_pixels(still, centre[3], cy) == 0  # the bust: swept
    assert _chip_pixels(still, centre[1], cy) > 500  # the blackjack's stake ...
    felt = _mask(still, open_round)
    beside = pygame.Rect(int(centre[1]) + 60, geo.circle_y - 40, 50, 60)
    assert felt.overlap_area(pygame.mask.Mask(beside.size, fill=True), beside.topleft) > 1_000  # ... paid beside
    a = _settle(s, 0)
    renderer.draw(done, s, max(m.end_ms() for m in a.settles.values()), a)
    assert [_chip_pixels(done, centre[n], cy) for n in (1, 2, 3)] == [0, 0, 0]


@pytest.mark.parametrize(
    ("case", "size"),
    [(c, s) for c in fm.MOTION_CASES for s in SIZES],
    ids=lambda v: v.name if isinstance(v, fm.MotionCase) else f"{v[0]}x{v[1]}",
)
def test_motion_golden(case: fm.MotionCase, size: tuple[int, int], tmp_path: Path) -> None:
    """Frames mid-sweep, mid-payout, paid beside (a doubled stake), mid-collect,
    insurance paid at its line, and the small, blackjack and big celebrations."""
    a = Animator()
    a.on_snapshot(fm.unsettled(case.settled), case.settled, 0)
    surf = pygame.Surface(size)
    Renderer().draw(surf, case.settled, case.at_ms, a)
    path = GOLDEN / f"{case.name}_{size[0]}x{size[1]}.png"
    if os.environ.get("UPDATE_GOLDENS") == "1":
        pygame.image.save(surf, str(path))
        return
    assert path.exists(), f"no golden {path.name}; run with UPDATE_GOLDENS=1 and look at it"
    golden = pygame.image.load(str(path))
    bad = diff_pixels(surf, golden)
    if bad > MAX_DIFF_SHARE * size[0] * size[1]:
        out = tmp_path / path.name
        pygame.image.save(surf, str(out))
        pytest.fail(f"{path.name}: {bad} pixels differ (actual frame saved to {out})")
