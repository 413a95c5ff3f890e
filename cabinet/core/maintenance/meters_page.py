"""The maintenance menu's Meters page: every meter per station and in
total, the actual RTP beside the par sheet's, games by outcome.

Owns: ``PAR_RTP_PERCENT`` (the theoretical return of each game: the par sheet's
exact total-dependent basic strategy RTP, README "Return to player (par
sheets)", ``cabinet parsheet``; the SAS 0x1F base % rounds the same figures),
``lifetime_meters`` (the meters before every RAM clear plus since the last one,
``OperatorState.carried``), ``rtp_text`` and the page's lines. Pure.
"""

from __future__ import annotations

import msgspec

from cabinet.core.meters import Meters
from cabinet.core.state import CabinetState, OperatorState
from cabinet.protocol.money import fmt_money as money

#: Theoretical RTP, percent, of each game (README "Return to player": exact, TD basic strategy).
PAR_RTP_PERCENT = {"classic": 99.889543, "classic-multi": 99.595391, "american": 99.595391}
#: The count and money meters (every ``Meters`` field but the per-denomination bill counts).
METER_NAMES = tuple(f.name for f in msgspec.structs.fields(Meters) if f.name != "bills_by_denom")


def meter_dict(m: Meters) -> dict[str, int]:
    """``{meter: value}`` of ``m`` (``METER_NAMES``)."""
    return {k: int(getattr(m, k)) for k in METER_NAMES}


def total(meters: list[Meters]) -> Meters:
    """The cabinet's meters: every station's added up (bills by denomination too)."""
    out = Meters()
    for m in meters:
        for k in METER_NAMES:
            setattr(out, k, getattr(out, k) + getattr(m, k))
        for d, n in m.bills_by_denom.items():
            out.bills_by_denom[d] = out.bills_by_denom.get(d, 0) + n
    return out


def lifetime_meters(s: CabinetState, station: int) -> dict[str, int]:
    """Station ``station``'s meters over its whole life: before every RAM clear
    (``s.operator.carried``) and since the last."""
    before = s.operator.carried.get(str(station), {})
    st = next((x for x in s.stations if x.station == station), None)
    now = meter_dict(st.meters) if st is not None else {}
    return {k: before.get(k, 0) + now.get(k, 0) for k in METER_NAMES}


def carry(old: CabinetState) -> OperatorState:
    """What a RAM clear keeps for the operator: the PIN, the last export and the
    meters it erases added to those carried."""
    op = old.operator
    carried = {k: dict(v) for k, v in op.carried.items()}
    for st in old.stations:
        mine = carried.setdefault(str(st.station), {})
        for k, v in meter_dict(st.meters).items():
            mine[k] = mine.get(k, 0) + v
    return msgspec.structs.replace(
        op, carried=carried, ram_clears=op.ram_clears + 1, last_ram_clear_wall_s=old.wall_s, export_base={}
    )


def rtp_text(coin_out_minor: int, coin_in_minor: int) -> str:
    """``"97.53 %"``: coin out / coin in, or ``"-"`` before any coin in."""
    return f"{100 * coin_out_minor / coin_in_minor:.2f} %" if coin_in_minor else "-"


def _block(name: str, mt: Meters, sym: str) -> list[str]:
    bills = " ".join(
        f"{money(int(d), sym)}x{n}" for d, n in sorted(mt.bills_by_denom.items(), key=lambda kv: int(kv[0]))
    )
    return [
        name,
        f"  Coin in {money(mt.coin_in_minor, sym)} · Coin out {money(mt.coin_out_minor, sym)}"
        f" · RTP {rtp_text(mt.coin_out_minor, mt.coin_in_minor)}",
        f"  Insurance in {money(mt.insurance_in_minor, sym)} · out {money(mt.insurance_out_minor, sym)}",
        f"  Bills in {money(mt.bills_in_minor, sym)} ({mt.bills_in_count})" + (f" · {bills}" if bills else ""),
        f"  Vouchers in {money(mt.vouchers_in_minor, sym)} ({mt.vouchers_in_count}) · "
        f"out {money(mt.vouchers_out_minor, sym)} ({mt.vouchers_out_count})",
        f"  Handpaid {money(mt.handpay_minor, sym)} ({mt.handpay_count}) · "
        f"Jackpots handpaid {money(mt.jackpot_handpay_minor, sym)} ({mt.jackpot_handpay_count})",
        f"  Voided returns {money(mt.void_returned_minor, sym)} · reclaimed {money(mt.void_reclaimed_minor, sym)}",
        f"  Games {mt.games_played}: won {mt.games_won}, lost {mt.games_lost}, pushed {mt.games_pushed}",
        f"  Blackjacks {mt.blackjacks} · Doubles {mt.doubles} · Splits {mt.splits} · Insurance {mt.insurance_taken}",
    ]


def meters_lines(s: CabinetState, game_name: str) -> list[str]:
    """The Meters page: the RTP summary, then each station's meters, then the total."""
    sym = s.settings.currency_symbol
    tot = total([st.meters for st in s.stations])
    life = [lifetime_meters(s, st.station) for st in s.stations]
    life_in = sum(m["coin_in_minor"] for m in life)
    life_out = sum(m["coin_out_minor"] for m in life)
    par = PAR_RTP_PERCENT.get(s.settings.variant)
    lines = [
        f"Actual RTP since the last RAM clear: {rtp_text(tot.coin_out_minor, tot.coin_in_minor)}"
        f" · lifetime: {rtp_text(life_out, life_in)} (coin out / coin in)",
        f"Par sheet RTP of {game_name}: " + (f"{par:.2f} % (basic strategy)" if par else "-"),
    ]
    for st in s.stations:
        lines += _block(f"Station {st.station}: credits {money(st.credits_minor, sym)}", st.meters, sym)
    if len(s.stations) > 1:
        lines += _block("Total, every station", tot, sym)
    doors = ", ".join(f"{d} {n}" for d, n in sorted(s.door_opens.items())) or "none"
    lines += [
        f"Power-ups {s.power_ups} · Games since power-up {s.games_since_power_up} · "
        f"since door close {s.games_since_door_close}",
        f"Door openings: {doors}",
        f"RAM clears {s.operator.ram_clears} · lifetime coin in {money(life_in, sym)} · "
        f"coin out {money(life_out, sym)}",
    ]
    return lines
