"""The SAS link's in-memory copy of a station, built from the committed cabinet state.

Owns: ``egm_view`` (``CabinetState`` + station + link settings -> ``EgmView``, money
converted from minor units to credits of the SAS accounting denomination for meters,
kept in cents (= minor units) for the TITO amounts 0x50/0x57/0x70/0x71, as Monaco's
layouts say: ``LPParsers/LP57SendPendingCashoutInformationParser.cs`` "amount in cents"), the 0x1F
game identity (``machine_info``) and ``SasStation`` (one station's link settings).
No I/O: the engine calls it after every commit and hands the view to the link
(research/sas.md "Timing": replies come from memory, never from a query in the poll
path).

Meters ("Meters and information"; cabinet meters are those of
``cabinet meters --json``): coin in and coin out as ``play_meters_minor`` says (every
wager; what play paid to the credit meter), drop = bills and vouchers in, jackpot =
attendant-paid jackpots, cancelled credits =
vouchers printed + cancelled-credit handpays, games played/won/lost, slot door opened
= main door openings, power reset = power-ups.  With the default denomination (1
minor unit) 0x1C's coin in equals ``coin_in_minor`` plus ``insurance_in_minor``; the BCD field keeps the low 8
digits (research/sas.md "Message kinds"); a credit is ``minor // denomination``.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from cabinet.core.meters import METER_MODULUS
from cabinet.core.state import CabinetState, HostState, StationState
from cabinet.core.tito import effective_validation_status
from drivers.sas import tito_codes as tc
from drivers.sas.egm_view import (
    EgmView,
    HandpayInfo,
    HostException,
    PendingCashout,
    TicketData,
    TicketIn,
)
from drivers.sas.messages import MachineInfo

#: Base return of each game (0x1F "base %", 4 ASCII digits, two decimals: nCompass
#: ``LongPoll1FMessage.cpp`` copies e.g. ``"9750"``): the par sheet's total-dependent
#: basic strategy RTP (README "Game math", ``cabinet parsheet``), rounded to 0.01 %.
BASE_PERCENT = {"classic": "9989", "classic-multi": "9960", "american": "9960"}
#: 0x1F game ID (2 ASCII) and paytable ID (6 ASCII) of each game.
GAME_IDS = {"classic": ("BJ", "BJCL01"), "classic-multi": ("BJ", "BJMT01"), "american": ("BJ", "BJAM01")}
#: 0xB5 game name of each game (at most 20 ASCII characters).
GAME_NAMES = {"classic": "Blackjack", "classic-multi": "Blackjack Multi-deck", "american": "American Blackjack"}
#: SAS denomination codes for the accounting denominations a US cabinet uses (SAS
#: Table C-4; Aristocrat Monaco ``Protocol/SAS/Aristocrat.Sas.Client/DenominationCodes.cs``
#: has the same codes).
DENOMINATION_CODES = {1: 0x01, 5: 0x02, 10: 0x03, 25: 0x04, 50: 0x05, 100: 0x06}
BCD_LIMIT = 10**8  # a 4-byte BCD meter holds 8 digits
CENTS_LIMIT = 10**10  # a 5-byte BCD amount in cents holds 10 digits


@dataclass(frozen=True, slots=True)
class SasStation:
    """One station's host link settings (config ``[sas]``).

    Attributes:
        port: device path or pyserial URL.
        address: SAS address 1..127.
        asset_number: the casino's asset number (0..2^32-1).
        accounting_denomination_minor: minor units per SAS credit (default 1 = $0.01).
        validation: ``"none"`` or ``"system"`` (config ``[sas] validation``).
        validation_timeout_s: how long a ticket waits for the host, seconds.
    """

    port: str
    address: int = 1
    asset_number: int = 0
    accounting_denomination_minor: int = 1
    validation: str = "none"
    validation_timeout_s: int = 10


def machine_info(variant: str, max_bet_minor: int, denom_minor: int) -> MachineInfo:
    """0x1F / 0x53: the game being played, its max bet in credits (at most 255) and base %."""
    game_id, paytable = GAME_IDS.get(variant, ("BJ", "BJ0000"))
    max_bet = min(255, max_bet_minor // max(1, denom_minor))
    return MachineInfo(
        game_id=game_id,
        additional_id="000",
        denomination=DENOMINATION_CODES.get(denom_minor, 0),
        max_bet=max_bet,
        progressive_group=0,
        game_options=b"\x00\x00",
        paytable_id=paytable,
        base_percent=BASE_PERCENT.get(variant, "0000"),
    )


def play_meters_minor(state: CabinetState, st: StationState) -> tuple[int, int]:
    """SAS coin in (meter 0x00) and coin out (0x01) of station ``st``, minor units modulo 10^10.

    Coin in is every wager: main stakes and insurance (Aristocrat Monaco
    ``Protocol/SAS/Aristocrat.Monaco.Sas/SASMeterCollection.cs``: 0x00 = ``WageredAmount``;
    ``Gaming/Aristocrat.Monaco.Gaming/Commands/RuntimeEvents/PrimaryEventHandler.cs``: a wager
    made during the game, as insurance is, is a ``Wager`` like the first).  Coin out is what
    play paid to the credit meter (0x01 = ``TotalEgmPaidAmt``): the returns of main hands and
    insurance and a voided round's stakes, less the jackpots paid by hand, which are 0x02's
    (``TotalHandPaidAmt``; ``GameEndedCommandHandler.cs`` meters a win as EGM paid or hand
    paid, never both).  Like Monaco, which meters a win when its game ends, the returns
    of a round still being played and a jackpot still waiting for the key are in neither:
    coin out never goes down, and coin in - coin out - jackpot is what play kept.
    """
    m = st.meters
    coin_in = m.coin_in_minor + m.insurance_in_minor
    paid = (
        m.coin_out_minor
        + m.insurance_out_minor
        + m.void_returned_minor
        - m.void_reclaimed_minor
        - m.jackpot_handpay_minor
    )
    if st.in_round:
        paid -= st.returned_in_round_minor
    paid -= sum(
        hp.amount_minor
        for hp in (state.handpay, *state.handpay_queue)
        if hp is not None and hp.station == st.station and hp.kind == "jackpot"
    )
    return coin_in % METER_MODULUS, paid % METER_MODULUS


def egm_view(state: CabinetState, station: int, sas: SasStation, serial_number: str, max_bet_minor: int) -> EgmView:
    """The ``EgmView`` of ``station`` (1-based) as committed in ``state``;
    ``max_bet_minor``: the table maximum in force (``Cabinet.rules``).

    Raises:
        ValueError: no such station.
    """
    st = next((x for x in state.stations if x.station == station), None)
    if st is None:
        raise ValueError(f"no station {station}")
    d = max(1, sas.accounting_denomination_minor)
    m = st.meters
    info = machine_info(state.settings.variant, max_bet_minor, d)
    coin_in_minor, coin_out_minor = play_meters_minor(state, st)
    return EgmView(
        address=sas.address,
        current_credits=_c(st.credits_minor, d),
        coin_in=_c(coin_in_minor, d),
        coin_out=_c(coin_out_minor, d),
        drop=_c(m.bills_in_minor + m.vouchers_in_minor, d),
        jackpot=_c(m.jackpot_handpay_minor, d),
        cancelled_credits=_c(m.vouchers_out_minor + m.handpay_minor, d),
        handpaid_cancelled_credits=_c(m.handpay_minor, d),
        games_played=m.games_played % BCD_LIMIT,
        games_won=m.games_won % BCD_LIMIT,
        games_lost=m.games_lost % BCD_LIMIT,
        games_since_power_up=state.games_since_power_up % 10**4,
        games_since_door_closed=state.games_since_door_close % 10**4,
        slot_door_opened=state.door_opens.get("main", 0) % BCD_LIMIT,
        power_reset=state.power_ups % BCD_LIMIT,
        bills_accepted_credits=_c(m.bills_in_minor, d),
        bill_counts={int(k): v for k, v in m.bills_by_denom.items()},
        machine_info=info,
        games=(info,),
        selected_game=1,
        serial_number=serial_number[:40],
        asset_number=sas.asset_number,
        exceptions=tuple(
            HostException(
                e.event_id, e.name, _c(e.amount_minor, d), e.amount_minor, _c(e.meter_minor, d), e.count, e.max_bet
            )
            for e in st.host.queue
        ),
        handpay=_handpay(state, st, d),
        playing=state.round_open and st.in_round,
        validation_mode=st.host.validation,
        pending_cashout=_pending_cashout(st.host),
        ticket_in=_ticket_in(st.host),
        ticket_data=_ticket_data(st.host),
        validation_meters={
            tc.VT_CASHABLE_TICKET: (m.vouchers_out_count % BCD_LIMIT, m.vouchers_out_minor % CENTS_LIMIT),
            tc.VT_CASHABLE_TICKET_REDEEMED: (m.vouchers_in_count % BCD_LIMIT, m.vouchers_in_minor % CENTS_LIMIT),
        },
        meters_minor={
            **{k: v for k, v in msgspec.structs.asdict(m).items() if isinstance(v, int)},
            "sas_coin_in_minor": coin_in_minor,
            "sas_coin_out_minor": coin_out_minor,
        },
        accounting_denomination_minor=d,
        last_bill_minor=st.last_bills_minor[-1] if st.last_bills_minor else 0,
        cashout_ticket_number=st.host.last_ticket_number,
        cashout_ticket_minor=st.host.last_ticket_minor,
        max_bet_credits=max_bet_minor // d,
        game_name=GAME_NAMES.get(state.settings.variant, "Blackjack"),
    )


#: The core's final ticket results (``cabinet.core.state.TicketIn.result``) -> 0x71
#: machine status (``drivers.sas.tito_codes``); ``stacking`` is 0x40 pending.
TICKET_STATUS = {
    "redeemed": tc.STATUS_CASHABLE_REDEEMED,
    "rejected_by_host": tc.STATUS_REJECTED_BY_HOST,
    "number_mismatch": tc.STATUS_NUMBER_MISMATCH,
    "not_valid_function": tc.STATUS_BAD_TRANSFER_CODE,
    "credit_limit": tc.STATUS_OVER_CREDIT_LIMIT,
    "unable_now": tc.STATUS_UNABLE_NOW,
    "timeout": tc.STATUS_TIMEOUT,
    "link_down": tc.STATUS_LINK_DOWN,
}


def _pending_cashout(h: HostState) -> PendingCashout | None:
    p = h.pending_cashout
    if p is None:
        return None
    return PendingCashout(cashout_id=p.cashout_id, amount_cents=p.amount_minor, cashout_type=tc.CASHOUT_CASHABLE)


def _ticket_in(h: HostState) -> TicketIn | None:
    t = h.ticket_in
    if t is None:
        return None
    if t.status == "held":
        status = None
    elif t.status == "stacking":
        status = tc.STATUS_PENDING
    else:
        status = TICKET_STATUS.get(t.result, tc.STATUS_REJECTED_BY_HOST)
    return TicketIn(
        ticket_id=t.ticket_id,
        validation_number=t.validation_number,
        amount_cents=t.amount_minor if t.status == "held" else 0,
        status=status,
        transfer_code=t.transfer_code if t.transfer_code >= 0 else None,
        amount_cents_final=t.amount_minor if t.result == "redeemed" else 0,
    )


def _ticket_data(h: HostState) -> TicketData:
    td = h.ticket_data
    return TicketData(
        host_id=td.host_id,
        expiration_days=td.expiration_days,
        location=td.location,
        address1=td.address1,
        address2=td.address2,
        restricted_title=td.restricted_title,
        debit_title=td.debit_title,
        validation_status=effective_validation_status(td) if h.validation == "system" else 0,
        cashable_expiration_days=td.cashable_expiration_days,
        restricted_expiration_days=td.restricted_expiration_days,
    )


def _c(minor: int, denom_minor: int) -> int:
    return (minor // denom_minor) % BCD_LIMIT


def _handpay(state: CabinetState, st: StationState, d: int) -> HandpayInfo | None:
    hp = state.handpay
    if hp is None or hp.station != st.station:
        return None
    return HandpayInfo(amount_credits=_c(hp.amount_minor, d), kind=hp.kind)
