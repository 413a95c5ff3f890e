"""What a player expects: the player's own panels as the engine sends them
(History: the station's last rounds, newest first; the session reminder)."""

from __future__ import annotations

import msgspec

from cabinet.protocol.snapshot import HandView, RealityCheck, RoundLine, Snapshot

_ROUNDS: list[tuple[list[str], str, list[tuple[list[str], int, str, int]]]] = [
    (["KS", "7D"], "17", [(["TH", "9C"], 500, "win", 1_000)]),
    (["AS", "KD"], "BLACKJACK", [(["8H", "8C"], 500, "lose", 0)]),
    (["6C", "TD", "9S"], "BUST", [(["8D", "3S", "KH"], 1_000, "win", 2_000)]),
    (["9H", "8S"], "17", [(["AD", "KC"], 500, "blackjack", 1_250)]),
    (["TC", "7H"], "17", [(["TS", "5D", "9H"], 500, "bust", 0)]),
    (["QD", "8C"], "18", [(["9S", "9D"], 500, "push", 500)]),
    (["5H", "TS", "4C"], "19", [(["8S", "TC"], 500, "lose", 0), (["8D", "3C", "9C"], 1_000, "win", 2_000)]),
    (["7S", "JD"], "17", [(["QH", "6S", "2D"], 500, "win", 1_000)]),
    (["4D", "6H", "KS", "3D"], "23", [(["TD", "4S"], 500, "win", 1_000)]),
    (["JS", "9C"], "19", [(["5S", "5C", "AH", "2S"], 500, "lose", 0)]),
]


def history_rows(n: int = 10, first: int = 412) -> list[RoundLine]:
    """``n`` rounds newest first, numbered down from ``first``, every kind of result."""
    out = []
    for i, (dealer, text, hands) in enumerate(_ROUNDS[:n]):
        hv = [
            HandView(cards=c, stake_minor=stake, total_text="", outcome=o, returned_minor=ret)
            for c, stake, o, ret in hands
        ]
        wag = sum(h[1] for h in hands)
        ret = sum(h[3] for h in hands)
        out.append(
            RoundLine(
                round_id=first - i,
                when=f"21:{47 - 3 * i:02d}",
                dealer=dealer,
                dealer_text=text,
                hands=hv,
                wagered_minor=wag,
                returned_minor=ret,
                net_minor=ret - wag,
            )
        )
    return out


def with_history(s: Snapshot, station: int, rows: list[RoundLine]) -> Snapshot:
    """``s`` with ``station``'s History panel open on ``rows``."""
    stations = [msgspec.structs.replace(st, history=rows) if st.station == station else st for st in s.stations]
    return msgspec.structs.replace(s, stations=stations)


def with_reminder(s: Snapshot, station: int, minutes: int, net_minor: int) -> Snapshot:
    """``s`` with a session reminder due at ``station``."""
    rc = RealityCheck(elapsed_min=minutes, net_minor=net_minor)
    stations = [msgspec.structs.replace(st, reminder=rc) if st.station == station else st for st in s.stations]
    return msgspec.structs.replace(s, stations=stations)


def player_cases(classic_betting: Snapshot, multi_play: Snapshot) -> list[tuple[str, Snapshot, int | None]]:
    """(name, snapshot, own station) of every player panel screen."""
    return [
        ("history_classic_10", with_history(classic_betting, 1, history_rows()), None),
        ("history_own_station_2", with_history(multi_play, 2, history_rows(3, first=88)), 2),
        ("history_empty", with_history(classic_betting, 1, []), None),
        ("reality_check_classic", with_reminder(classic_betting, 1, 30, -1_250), None),
        ("reality_check_own_station_2", with_reminder(multi_play, 2, 65, 2_500), 2),
        (
            "service_called_classic",
            msgspec.structs.replace(
                classic_betting, stations=[msgspec.structs.replace(classic_betting.stations[0], service=True)]
            ),
            None,
        ),
        (
            "service_called_own_station_2",
            msgspec.structs.replace(
                multi_play,
                stations=[msgspec.structs.replace(st, service=st.station == 2) for st in multi_play.stations],
            ),
            2,
        ),
    ]
