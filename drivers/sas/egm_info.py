"""Information long polls a casino system reads: 0x3D cash-out ticket information, 0xA0
enabled features and 0xB5 extended game N information, built from the ``EgmView``.

Owns: the view reply builders of 0x3D and 0xB5 (the ``view_reply`` of their rows in
``layouts.LAYOUTS``),
``features_reply`` for 0xA0 (the responder passes whether the layout table answers the
extended meters) and ``enabled_features`` (the four 0xA0 feature bytes of what the
cabinet really does).
Must not import: serial, time, threading, cabinet.*.  Pure.

Each builder takes ``(view, address, data, wall)`` like ``egm_replies``'s and returns the
reply (a NACK for request data the reference EGM NACKs), or None for no reply.

Sources (Aristocrat Monaco platform, ``Protocol/SAS/``; facts only):
- 0x3D ``Aristocrat.Sas.Client/LPParsers/LP3DSendCashOutTicketInformationParser.cs``:
  reply ``address 3D``, validation number 4 BCD (the standard validation number the
  machine calculated: the low 8 digits, ``Utilities.ToBcd`` keeps the low digits),
  ticket amount 5 BCD in cents, CRC.  ``Aristocrat.Monaco.Sas/Handlers/
  LP3DSendCashOutTicketInformationHandler.cs``: the last voucher out or handpay, zeros
  when there is none, and no reply at all unless the validation type is "none" (with
  system validation the host issued the number and does not ask).
- 0xA0 ``LPParsers/LPA0SendEnabledFeaturesParser.cs``: request game number 2 BCD (not
  BCD: NACK); reply game number 2 BCD, features 1-4 (one byte each), reserved 2 bytes
  00 00.  Bits: ``LongPollDataClasses/LongPollSendEnabledFeaturesResponse.cs``; which
  are set when: ``Aristocrat.Monaco.Sas/Handlers/LPA0SendEnabledFeaturesHandler.cs``.
- 0xB5 ``LPParsers/LPB5SendExtendedGameNInformationParser.cs``: request game number 2
  BCD (not BCD or no such game: NACK); reply ``address B5 length``, game number 2 BCD,
  max bet 2 BCD (credits), progressive group 1, progressive levels 4 (bit n-1 = level
  n), game name length 0-20 + ASCII, paytable name length 0-20 + ASCII, wager
  categories 2 BCD, number of denominations 1, the denomination codes, CRC.  Game 0
  on a machine with one game answers that game's fields (``Aristocrat.Monaco.Sas/
  Handlers/LPB5SendExtendedGameNInformationHandler.cs`` ``CreateMachineInfoResponse``).
"""

from __future__ import annotations

from collections.abc import Callable

from drivers.errors import ProtocolError
from drivers.sas import bcd, egm_meters, replies
from drivers.sas.egm_view import EgmView

Wall = tuple[int, int, int, int, int, int]
ViewReply = Callable[[EgmView, int, bytes, "Wall | None"], "bytes | None"]

# 0xA0 feature bits (LongPollSendEnabledFeaturesResponse.cs)
F1_VALIDATION_EXTENSIONS = 1 << 4
F1_VALIDATION_STYLE_SYSTEM = 1 << 5  # ValidationStyleBit0: system validation
F1_TICKET_REDEMPTION = 1 << 7
F2_TICKETS_TO_DROP_AND_CANCELLED = 1 << 2  # tickets counted in total drop / cancelled credits
F2_EXTENDED_METERS = 1 << 3
#: 0xB5 name fields hold at most this many characters.
MAX_NAME_LEN = 20
#: Wager categories of a blackjack game: one (its payback does not depend on the bet).
WAGER_CATEGORIES = 1


def _game(data: bytes) -> int | None:
    """The 2-byte BCD game number, None when it is not one (the EGM NACKs)."""
    if len(data) != 2:
        return None
    try:
        return bcd.decode(data)
    except ProtocolError:
        return None


def cashout_ticket(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes | None:
    """0x3D: the last cash-out ticket's validation number (low 8 digits) and amount in
    cents; zeros before the first.  With system validation the poll is not answered at
    all: its row in ``layouts.LAYOUTS`` says so (``ignored_under_system_validation``).

    Raises:
        ValueError: the amount does not fit 5 BCD bytes (never wrapped: it is money).
    """
    digits = "".join(c for c in view.cashout_ticket_number if c.isdigit())
    number = int(digits[-8:]) if digits else 0
    return replies.long_reply(address, 0x3D, bcd.encode(number, 4) + bcd.encode(view.cashout_ticket_minor, 5))


def enabled_features(view: EgmView, extended_meters: bool) -> bytes:
    """The four 0xA0 feature bytes: system validation (validation extensions, style
    "system") and ticket redemption through the host while ``validation_mode`` is
    ``system``; tickets in total drop and total cancelled credits (the cabinet counts
    them there, README "Meters"); extended meters when ``extended_meters`` (0x6F/0xAF
    answered).  No jackpot multiplier, bonusing, tournament, AFT, multi-denomination,
    component authentication, progressives or session play: all clear."""
    f1 = 0
    if view.validation_mode == "system":
        f1 |= F1_VALIDATION_EXTENSIONS | F1_VALIDATION_STYLE_SYSTEM | F1_TICKET_REDEMPTION
    f2 = F2_TICKETS_TO_DROP_AND_CANCELLED | (F2_EXTENDED_METERS if extended_meters else 0)
    return bytes((f1, f2, 0, 0))


def features_reply(view: EgmView, address: int, data: bytes, extended_meters: bool) -> bytes:
    """0xA0 for the game number in ``data`` (any game: the features are the machine's);
    a NACK when it is not 2 BCD bytes."""
    game = _game(data)
    if game is None:
        return replies.nack(address)
    return replies.long_reply(
        address, 0xA0, bcd.encode(game, 2) + enabled_features(view, extended_meters) + b"\x00\x00"
    )


def _name(text: str) -> bytes:
    raw = text.encode("ascii", "replace")[:MAX_NAME_LEN]
    return bytes((len(raw),)) + raw


def game_information(view: EgmView, address: int, data: bytes, wall: Wall | None) -> bytes:
    """0xB5 for game N (0: the machine, which has one game per station); a NACK when
    the game number is not BCD or there is no such game."""
    game = _game(data)
    if game is None or max(game, 1) > len(view.games) or (game == 0 and len(view.games) != 1):
        return replies.nack(address)
    index = max(game, 1) - 1
    info = view.games[index]
    body = (
        bcd.encode(game, 2)
        + bcd.encode(egm_meters.wrap(view.max_bet_credits, 2), 2)
        + bytes((info.progressive_group,))
        + (0).to_bytes(4, "little")
        + _name(view.game_name)
        + _name(info.paytable_id)
        + bcd.encode(WAGER_CATEGORIES, 2)
        + bytes((1, info.denomination))
    )
    return replies.length_reply(address, 0xB5, body)
