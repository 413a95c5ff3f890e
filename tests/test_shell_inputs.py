"""The shell hands the core data, never sets it: no module of ``cabinet/shell`` or
``cabinet/tools`` assigns (or deletes) an attribute of the ``Cabinet`` or of its
state. What the shell reads for the core (the journal rows an open page shows, the
program check, the host links' live status, the storage tilt) arrives as an event,
stored only by ``cabinet.core.shell_inputs``."""

from __future__ import annotations

import ast
from pathlib import Path

from cabinet.core.context import History, LoadedHistory
from cabinet.core.events import (
    HistoryLoaded,
    HistoryQuery,
    HostPollsRead,
    IntentReceived,
    ProgramChecked,
    StorageFailed,
)
from cabinet.core.machine import Cabinet, new_state
from cabinet.core.maintenance import MAIN_ITEMS
from cabinet.core.records import RecallEntry, VoucherRecord
from cabinet.core.shell_inputs import desk_query, history_query, read_history
from cabinet.core.state import MaintState

ROOT = Path(__file__).resolve().parents[1]
#: The names the shell gives the cabinet: ``cab``, ``cabinet`` and ``<anything>.cab``.
CABINET_NAMES = {"cab", "cabinet"}


def _is_cabinet(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in CABINET_NAMES) or (
        isinstance(node, ast.Attribute) and node.attr == "cab"
    )


def _into_cabinet(target: ast.expr) -> bool:
    """``target`` is an attribute or item reached through the cabinet (``cab.x``,
    ``self.cab.s.faults``, ``cab.host_polls[n]``); ``self.cab`` itself is not."""
    if isinstance(target, ast.Tuple | ast.List):
        return any(_into_cabinet(e) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _into_cabinet(target.value)
    node = target
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
        if _is_cabinet(node):
            return True
    return False


def _writes(source: str) -> list[int]:
    """Line numbers where ``source`` assigns, deletes or ``setattr``s into the cabinet."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            targets = [ast.Attribute(value=node.args[0], attr="?")] if node.args else []
        if any(_into_cabinet(t) for t in targets):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_scan_finds_every_way_of_setting_the_cabinet():
    src = "\n".join(
        [
            "cab.program_id, cab.program_digest = a, b",
            "cab.host_polls[n] = (1,)",
            "self.cab.s.faults = {}",
            "engine.cab.firmware[k] += 'x'",
            "setattr(cab, 'secret', '')",
            "del cabinet.desk",
            "self.cab = boot(store)",  # the engine's own attribute: allowed
            "x = cab.program_id",  # a read: allowed
        ]
    )
    assert _writes(src) == [1, 2, 3, 4, 5, 6]


def test_the_shell_and_the_tools_never_set_the_cabinet():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for pkg in ("cabinet/shell", "cabinet/tools")
        for path in sorted((ROOT / pkg).rglob("*.py"))
        for line in _writes(path.read_text())
    ]
    assert not found, found


#: What a journal reader answers (the ``History`` protocol's methods).
READS = frozenset(n for n in vars(History) if not n.startswith("_"))


def _journal_reads(source: str) -> list[int]:
    """Line numbers where ``source`` calls through a journal reader: ``<x>.history.<read>``
    (``cab.history.outstanding_vouchers()``, ``self.cab.history.events(5)``)."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in READS
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "history"
    )


def test_the_read_scan_finds_a_call_through_a_journal_reader():
    src = "\n".join(
        [
            "rows = cab.history.outstanding_vouchers()",
            "self.cab.history.events(5)",
            "f = self.history.events_of",
            "desk.history[station] = rows",  # a player's panel rows: not the journal
            "desk.history.pop(station, None)",
            "for step in rnd.history: pass",
        ]
    )
    assert _journal_reads(src) == [1, 2, 3]


def test_the_core_reads_no_journal_while_it_handles_an_event():
    """Every row the core decides on is handed in (``HistoryLoaded``): nothing in
    ``cabinet/core`` calls through a journal reader, and a ``Cabinet`` holds none."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "cabinet/core").rglob("*.py"))
        for line in _journal_reads(path.read_text())
    ]
    assert not found, found
    assert not hasattr(Cabinet(new_state()), "history")


def _entry(round_id: int, station: int) -> RecallEntry:
    return RecallEntry(
        round_id=round_id,
        station=station,
        variant="american",
        wall_s=1_800_000_000.0,
        credits_before_minor=10_000,
        credits_after_minor=10_500,
        wagered_minor=500,
        insurance_minor=0,
        returned_minor=1_000,
        jackpot_handpay_minor=0,
        voided=False,
        result={},
        steps=[],
    )


class _Journal:
    """Counts every read, so a test can see what the core reads and when."""

    def __init__(self) -> None:
        self.reads = 0
        self.rows = [_entry(7, 2), _entry(6, 1), _entry(5, 2)]

    def recall(self, station: int, limit: int) -> list[RecallEntry]:
        self.reads += 1
        return [e for e in self.rows if station in (0, e.station)][:limit]

    def events(self, limit: int) -> list[dict[str, object]]:
        self.reads += 1
        return []

    def events_of(self, kinds: frozenset[str], limit: int) -> list[dict[str, object]]:
        self.reads += 1
        return []

    def vouchers(self, limit: int) -> list[object]:
        self.reads += 1
        return []

    def outstanding_vouchers(self) -> list[VoucherRecord]:
        self.reads += 1
        return [
            VoucherRecord(
                validation_number="004417359902718845",
                sequence=3,
                amount_minor=4_550,
                station=1,
                issued_wall_s=1_800_000_000.0,
                expires_wall_s=1_802_592_000.0,
                status="issued",
                venue="Casino Royale",
                machine_number="0001",
            )
        ]


def test_the_recall_page_shows_the_loaded_rows_and_a_snapshot_reads_no_journal():
    journal = _Journal()
    cab = Cabinet(new_state())
    cab.s.maintenance = MaintState(page="recall")
    query = history_query(cab)
    assert query == HistoryQuery(recall_limit=cab.s.settings.recall_depth)
    cab.handle(read_history(journal, query))
    assert journal.reads == 1  # the shell's one read when the page opened
    for seq in range(3):
        m = cab.snapshot(seq).maintenance
        assert m.title == "Game recall" and m.lines[0].startswith("RECALL MODE - round 7, station 2")
        assert m.items == [
            "Round 7 station 2: net $5.00",
            "Round 6 station 1: net $5.00",
            "Round 5 station 2: net $5.00",
        ]
    assert journal.reads == 1  # snapshots read none


def test_a_players_history_panel_opens_on_the_rows_read_before_the_touch():
    journal = _Journal()
    cab = Cabinet(new_state())
    touch = IntentReceived(1, "history")
    query = desk_query(cab, touch)
    assert query == HistoryQuery(recall_limit=10, recall_station=1)
    assert desk_query(cab, IntentReceived(1, "history_close")) is None
    cab.handle(read_history(journal, query))
    reads = journal.reads
    cab.handle(touch)
    assert [r.round_id for r in cab.desk.history[1]] == [6]  # station 1's only
    assert journal.reads == reads  # the core read none
    cab.s.maintenance = MaintState(page="main")
    assert desk_query(cab, touch) is None  # in the menu the touch is a menu move


def test_the_ram_clear_page_counts_the_loaded_outstanding_vouchers():
    journal = _Journal()
    cab = Cabinet(new_state())
    cab.s.maintenance = MaintState(page="ram_clear")
    query = history_query(cab)
    assert query == HistoryQuery(outstanding=True)
    cab.handle(read_history(journal, query))
    reads = journal.reads
    lines = cab.snapshot(1).maintenance.lines
    assert "- 1 outstanding voucher ($45.50), redeemable once" in lines
    assert journal.reads == reads  # the snapshot read none


def test_a_loaded_history_answers_from_its_rows_only():
    rows = (_entry(7, 2), _entry(6, 1))
    events = ({"kind": "bill_stacked", "id": 2}, {"kind": "door_open", "id": 1})
    shown = LoadedHistory(HistoryLoaded(HistoryQuery(recall_limit=10, events_limit=5), rows, events))
    assert [e.round_id for e in shown.recall(0, 10)] == [7, 6]
    assert [e.round_id for e in shown.recall(1, 10)] == [6]
    assert shown.events(1) == [{"kind": "bill_stacked", "id": 2}]
    assert shown.events_of(frozenset({"door_open"}), 5) == [{"kind": "door_open", "id": 1}]
    assert LoadedHistory().recall(0, 10) == [] and LoadedHistory().vouchers(3) == []


def test_program_check_host_polls_and_storage_tilt_arrive_as_events():
    cab = Cabinet(new_state())
    cab.handle(ProgramChecked("blackjack-cabinet 0.1.0", "ab" * 32, "verified"))
    assert (cab.program_id, cab.program_digest, cab.program_status) == (
        "blackjack-cabinet 0.1.0",
        "ab" * 32,
        "verified",
    )
    cab.handle(HostPollsRead(((1, (12, None, True, 0, {})),)))
    assert cab.host_polls == {1: (12, None, True, 0, {})}
    cab.handle(StorageFailed("journal commit failed: disk full"))
    assert cab.s.faults["storage_failure"] == "journal commit failed: disk full" and cab.mode == "tilt"


def test_the_engine_reads_for_an_open_page_once_and_after_each_commit(tmp_path):
    """The engine reads the journal when a page that shows it opens and again after a
    commit, and keeps the Host page's live status current; a tick with nothing new
    reads nothing."""
    import random

    from cabinet.core.events import KeyChanged, PowerUp, Tick
    from cabinet.shell.engine import Engine
    from cabinet.shell.store import Store

    class Links:
        polls = 7

        def publish(self, cab: object) -> None:
            pass

        def live_status(self) -> tuple[tuple[int, tuple[object, ...]], ...]:
            return ((1, (self.polls, None, True, 0, {})),)

    wall = 1_800_000_000.0
    eng = Engine(Store(tmp_path / "journal.db"), rng=random.Random(1), clock_ms=lambda: 0, wall_s=lambda: wall)
    eng.step(PowerUp(0, wall))
    reads: list[HistoryQuery] = []
    read = eng.store.events_of

    def counted(kinds: frozenset[str], limit: int) -> list[dict[str, object]]:
        reads.append(HistoryQuery(events_limit=limit, event_kinds=kinds))
        return read(kinds, limit)

    eng.store.events_of = counted  # type: ignore[method-assign]
    eng.step(KeyChanged(True))
    eng.step(IntentReceived(1, "menu_pick", [k for k, _ in MAIN_ITEMS].index("bills")))
    assert len(reads) == 1 and eng.cab.shown.events_of(frozenset({"bill_stacked"}), 35) == []
    eng.step(Tick(100, wall))
    after_first = len(reads)
    assert after_first <= 2  # at most once more, for the first tick's commit
    eng.step(Tick(100, wall))
    assert len(reads) == after_first  # nothing new: nothing read
    links = Links()
    eng.host_links = links  # type: ignore[assignment]
    eng.step(IntentReceived(1, "menu_back"))
    eng.step(IntentReceived(1, "menu_pick", [k for k, _ in MAIN_ITEMS].index("host")))
    assert eng.cab.host_polls == {1: (7, None, True, 0, {})}
    links.polls = 8
    eng.step(Tick(200, wall))
    assert eng.cab.host_polls == {1: (8, None, True, 0, {})}
