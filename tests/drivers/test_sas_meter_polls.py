"""The meter long polls in bytes: a hand-built poll into the EGM responder, the reply bytes
out.  Each test's docstring names the public EGM-side layout it follows: Aristocrat Monaco
(tejvirc/Platform) ``Protocol/SAS/Aristocrat.Sas.Client/LPParsers/`` (layout in each
parser's doc comment) and its handlers in ``Protocol/SAS/Aristocrat.Monaco.Sas/Handlers/``."""

from __future__ import annotations

import pytest

from drivers.sas import egm_meter_polls
from drivers.sas.crc import with_crc
from drivers.sas.egm import EgmResponder
from drivers.sas.egm_view import EgmView
from drivers.sas.host_codec import to_wire
from drivers.sas.messages import MachineInfo


def h(text: str) -> bytes:
    return bytes.fromhex(text)


INFO = MachineInfo("BJ", "000", 0x01, 5, 0, b"\x00\x00", "BJCL01", "9989")
#: What the cabinet's meters say (``cabinet meters --json`` names), at 1 minor unit per credit, and
#: the SAS coin in / coin out the view computes from them (``host_view.play_meters_minor``: the
#: 300 paid by hand is not in coin out).
RAW = {
    "coin_in_minor": 5000,
    "coin_out_minor": 4500,
    "jackpot_handpay_minor": 300,
    "handpay_minor": 700,
    "sas_coin_in_minor": 5000,
    "sas_coin_out_minor": 4200,
    "bills_in_minor": 23_500,
    "bills_in_count": 12,
    "vouchers_in_minor": 2_005,
    "vouchers_in_count": 2,
    "vouchers_out_minor": 1_800,
    "vouchers_out_count": 1,
    "games_played": 77,
    "games_won": 30,
    "games_lost": 40,
}
VIEW = EgmView(
    address=1,
    current_credits=1234,
    coin_in=5000,
    coin_out=4200,
    jackpot=300,
    games_played=77,
    handpaid_cancelled_credits=700,
    games_since_power_up=12,
    games_since_door_closed=3,
    bill_counts={100: 5, 2000: 4, 10000: 1, 2500: 2},
    last_bill_minor=2000,
    machine_info=INFO,
    games=(INFO,),
    selected_game=1,
    meters_minor=RAW,
)


def reply(command: int, data: bytes = b"", view: EgmView = VIEW, *, m: bool = False) -> bytes:
    """Everything the EGM writes back to one hand-built long poll (R: no CRC; S: data and
    CRC; M: length byte, data, CRC), b"" when it does not answer."""
    body = bytes((1, command)) + (bytes((len(data),)) if m else b"") + data
    message = body if not data and not m else with_crc(body)
    r = EgmResponder(1)
    r.update(view)
    return b"".join(o for o in r.receive(to_wire(message), 0) if isinstance(o, bytes))


def test_20_total_bill_in_value_is_whole_dollars() -> None:
    """Monaco ``LP20TotalBillInValueParser.cs``: 4 BCD; ``SasMeterNumberToMeterConfiguration.cs``
    ``TotalBillIn`` is ``MeterCategory.Dollars``: 5 x $1 + 4 x $20 + $100 + 2 x $25 = $235,
    whatever the accounting denomination."""
    assert reply(0x20) == with_crc(h("01 20 00 00 02 35"))
    at_25 = EgmView(address=1, bill_counts=VIEW.bill_counts, accounting_denomination_minor=25)
    assert reply(0x20, view=at_25) == with_crc(h("01 20 00 00 02 35"))


@pytest.mark.parametrize("command", [0x2A, 0x2B])
def test_2a_2b_true_coin_in_and_out_are_zero_without_coins(command: int) -> None:
    """Monaco ``LP2ASendTrueCoinInParser.cs`` / ``LP2BSendTrueCoinOutParser.cs``: 4 BCD,
    cents of coins; the cabinet has no coin acceptor or hopper."""
    assert reply(command) == with_crc(bytes((1, command)) + h("00 00 00 00"))


def test_2d_hand_paid_cancelled_credits_game_0_only() -> None:
    """Monaco ``LP2DSendTotalHandPaidCanceledCreditsParser.cs``: game 2 BCD in, game and
    4 BCD credits out; another game is ignored (SAS 7.6.3 as its handler quotes it); a
    game number not BCD is NACKed."""
    assert reply(0x2D, h("00 00")) == with_crc(h("01 2D 00 00 00 00 07 00"))
    assert reply(0x2D, h("00 01")) == b""
    assert reply(0x2D, h("0A 00")) == h("81")


def test_2e_game_delay_is_nacked_without_legacy_bonusing() -> None:
    """Monaco ``LP2EGameDelayParser.cs`` / ``LP2EGameDelayHandler.cs``: 0x2E is game delay
    (2 bytes, 100 ms units), ACKed only with legacy bonusing, which the cabinet has not."""
    assert reply(0x2E, h("00 0A")) == h("81")


@pytest.mark.parametrize(
    ("command", "count"),
    [
        (0x31, 5),
        (0x32, 0),
        (0x33, 0),
        (0x34, 0),
        (0x35, 4),
        (0x36, 0),
        (0x37, 1),
        (0x38, 0),
        (0x39, 0),
        (0x3A, 0),
        (0x3B, 2),
        (0x3C, 0),
        (0x3E, 0),
        (0x3F, 0),
        (0x40, 0),
        (0x41, 0),
        (0x42, 0),
        (0x43, 0),
        (0x44, 0),
        (0x45, 0),
    ],
)
def test_31_to_45_bill_counts(command: int, count: int) -> None:
    """Monaco ``LP31Send1DollarBillsInParser.cs`` .. ``LP45Send250DollarBillsInParser.cs``
    (0x3B $25, 0x3A $200, 0x45 $250...): 4 BCD counts; a bill the acceptor does not take
    reads 0 (``MeterManagerExtensions.GetMeterValue`` ``?? 0L``)."""
    assert reply(command) == with_crc(bytes((1, command)) + bytes.fromhex(f"{count:08d}"))


def test_3d_is_not_a_bill_meter() -> None:
    """Monaco ``LP3DSendCashOutTicketInformationParser.cs``: 0x3D sits among the bill
    meters but is the cash-out ticket poll: no bill meter answers it."""
    assert 0x3D not in egm_meter_polls.BILL_POLLS_DOLLARS


def test_48_last_accepted_bill() -> None:
    """Monaco ``LP48SendLastAcceptedBillInformationParser.cs``: country 1 BCD (37 United
    States, ``BillAcceptorCountryCode.cs``; its test sends Euro 39 as 0x39), denomination
    code 1 BCD (``BillDenominationCodes.cs``: $20 = 04, $25 = 05, $500 = 10), count 4 BCD;
    no bill yet answers zeros (the handler's empty response)."""
    assert reply(0x48) == with_crc(h("01 48 37 04 00 00 00 04"))
    quarter = EgmView(address=1, bill_counts={2500: 2}, last_bill_minor=2500)
    assert reply(0x48, view=quarter) == with_crc(h("01 48 37 05 00 00 00 02"))
    big = EgmView(address=1, bill_counts={50000: 1}, last_bill_minor=50000)
    assert reply(0x48, view=big) == with_crc(h("01 48 37 10 00 00 00 01"))
    assert reply(0x48, view=EgmView(address=1)) == with_crc(h("01 48 00 00 00 00 00 00"))


def test_52_game_n_meters() -> None:
    """Monaco ``LP52SendGameNMetersParser.cs``: game 2 BCD in; game, coin in, coin out,
    jackpot, games played (4 BCD each) out; a game the cabinet does not have reads zeros
    (``LP52SendGameNMetersHandler.cs``); a game number not BCD is NACKed."""
    meters = "00 00 50 00 00 00 42 00 00 00 03 00 00 00 00 77"
    assert reply(0x52, h("00 00")) == with_crc(h("01 52 00 00 " + meters))
    assert reply(0x52, h("00 01")) == with_crc(h("01 52 00 01 " + meters))
    assert reply(0x52, h("00 02")) == with_crc(h("01 52 00 02") + bytes(16))
    assert reply(0x52, h("00 0F")) == h("81")


def test_56_enabled_game_numbers() -> None:
    """Monaco ``LP56SendEnabledGameNumbersParser.cs``: length, number of games, each game
    number 2 BCD: a station's one game is game 1."""
    assert reply(0x56) == with_crc(h("01 56 03 01 00 01"))


@pytest.mark.parametrize("command", [0x6F, 0xAF])
def test_6f_af_extended_meters(command: int) -> None:
    """Monaco ``SendSelectedMetersForGameNParserBase.cs`` (shared by ``LP6F``/``LPAF``
    ``SendExtendedMetersForGameNParser.cs``; its test ``SendExtendedMetersForGameNParserTests``
    sends codes low byte first and reads code 2, size 1, BCD value per meter): current
    credits 9 bytes (18 digits), 10-digit cabinet meters 5 bytes, the weighted theoretical
    payback 4 bytes in hundredths of a percent; unknown codes left out."""
    got = reply(command, h("00 00 0C 00 05 00 7F 00 99 00 0D 00"), m=True)
    body = (
        "00 00 0C 00 09 00 00 00 00 00 00 00 12 34 05 00 05 00 00 00 00 77 7F 00 04 00 00 99 89 0D 00 05 00 00 00 20 05"
    )
    assert got == with_crc(bytes((1, command, len(h(body)))) + h(body))


@pytest.mark.parametrize("command", [0x6F, 0xAF])
def test_6f_af_game_n(command: int) -> None:
    """Monaco ``SendSelectedMetersForGameNHandler.cs``: for game N only game meters
    (``x.GameMeter``: coin in yes, current credits and bills no); a game the machine does
    not have answers its number and no meters."""
    got = reply(command, h("00 01 0C 00 00 00 40 00"), m=True)
    assert got == with_crc(h("01") + bytes((command,)) + h("0A 00 01 00 00 05 00 00 00 50 00"))
    assert reply(command, h("00 02 00 00"), m=True) == with_crc(bytes((1, command)) + h("02 00 02"))


@pytest.mark.parametrize("command", [0x6F, 0xAF])
def test_6f_af_malformed_is_nacked(command: int) -> None:
    """Monaco ``SendSelectedMetersForGameNParserBase.ValidLength`` / ``FromBcdWithValidation``
    (and its tests ``HandleInValidGameByte1Test``, ``HandleInvalidLengthTooSmallTest``): an odd
    number of code bytes, too short a length or a game number not BCD is NACKed."""
    assert reply(command, h("00 00 0C"), m=True) == h("81")
    assert reply(command, h("AB 76 0C 00"), m=True) == h("81")


@pytest.mark.parametrize(("denom", "credits", "width"), [(1, 10_000, 5), (5, 2_000, 5), (25, 400, 4), (100, 100, 4)])
def test_6f_units_at_each_accounting_denomination(denom: int, credits: int, width: int) -> None:
    """Monaco ``MeterExtensions.GetMeterResult``: ``Credit`` meters in credits of the
    accounting denomination, ``Cents`` meters in cents; the size is the digits of the
    meter's largest value (``MeterClassificationExtensions.GetMeterLength``): the cabinet's
    10**10 minor units in credits."""
    view = EgmView(
        address=1,
        accounting_denomination_minor=denom,
        meters_minor={"coin_in_minor": 10_000, "sas_coin_in_minor": 10_000, "vouchers_in_minor": 10_000},
    )
    got = reply(0x6F, h("00 00 00 00 80 00"), view, m=True)
    value = bytes.fromhex(f"{credits:0{2 * width}d}")
    body = h("00 00 00 00") + bytes((width,)) + value + h("80 00 05 00 00 01 00 00")
    assert got == with_crc(bytes((1, 0x6F, len(body))) + body)


def test_2f_answers_the_further_codes() -> None:
    """Monaco ``SASMeterCollection.cs``: 0x45 ($25 bills), 0x49 ($250 bills) and 0x7F (weighted
    theoretical payback) are meter codes too; 0x2F sends them 4 bytes wide."""
    got = reply(0x2F, h("00 00 45 49 7F"), m=True)
    assert got == with_crc(h("01 2F 11 00 00 45 00 00 00 02 49 00 00 00 00 7F 00 00 99 89"))


def test_2f_game_1_answers_the_further_game_meters() -> None:
    """Monaco ``SASMeterCollection.cs``: 0x22 (total won credits: ``TotalPaidAmt``, paid by
    the machine and by hand) and 0x7F are game meters: 0x2F for game 1 answers them; 0x0D
    (a machine meter) is left out for game 1."""
    got = reply(0x2F, h("00 01 22 7F 0D"), m=True)
    assert got == with_crc(h("01 2F 0C 00 01 22 00 00 45 00 7F 00 00 99 89"))
