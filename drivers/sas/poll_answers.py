"""What the cabinet answers to each long poll, in the operator's and the casino system's
terms: the ``answer`` of each row of ``layouts.LAYOUTS`` (one text per poll or group of
polls that share it), shown in ``docs/reference/sas-polls.md`` and nowhere decided.

Owns: the ``ANSWER_*`` texts (Markdown, one sentence or a few; units named).
Must not import: anything (plain text).
"""

from __future__ import annotations

#: What the cabinet answers to 0x01 / 0x02 (shut down / start up).
ANSWER_01_02 = (
    '0x01: play disabled after the round in progress (cash-out stays; the table says "Play disabled by the casino '
    'host", the lamps agree); 0x02: enabled'
)

#: What the cabinet answers to 0x06 / 0x07 / 0x08 (bill acceptor enable / disable / denominations).
ANSWER_06_08 = (
    "0x06 / 0x07: the bill acceptor enabled / disabled; 0x08: narrows the settings' denominations, never widens them"
)

#: What the cabinet answers to 0x0A / 0x0B (enter / exit maintenance mode).
ANSWER_0A_0B = 'like 0x01 / 0x02, "Out of service: casino host maintenance"'

#: What the cabinet answers to 0x0E (real-time event reporting on / off).
ANSWER_0E = (
    "01 on, 00 off (ACK; any other value NACK); kept in memory only, off after a restart (as Monaco). While on, "
    "every exception is reported as `address FF event CRC`: at a general poll, and at a long poll in place of its "
    "reply when an event is due (the host asks again after the implied ACK); `FF 00` when none. Event data: 4F for "
    "every bill (country 37 United States, the bill's code, the lifetime count of that bill, 4 BCD), 7E game "
    "started (credits wagered 2 BCD, coin in after the bet 4 BCD in credits, wager type 0x40 + 0x80 at the table "
    "maximum + the denomination code as Monaco sends it, progressive group 00: no SAS progressives), 7F game ended "
    "(credits the round returned, 4 BCD), 8A game recall (game 1, entry); any other code alone. Same queue, implied"
    " ACK and journal as the byte: exactly once"
)

#: What the cabinet answers to 0x0F, 0x10-0x17, 0x19, 0x1C (meters).
ANSWER_0F_1C = (
    "coin in = every wager (`coin_in_minor` + `insurance_in_minor`), coin out = what play paid to the credit meter "
    "(`coin_out_minor` + `insurance_out_minor` + voided stakes given back, less the jackpots paid by hand; a "
    "round's returns and a jackpot waiting for the key count at their end), so coin in - coin out - jackpot is what"
    " play kept (Monaco `Aristocrat.Monaco.Sas/SASMeterCollection.cs`: 0x00 `WageredAmount`, 0x01 "
    "`TotalEgmPaidAmt`, 0x02 `TotalHandPaidAmt`), drop = bills + vouchers in, jackpot = jackpot handpays, cancelled"
    " credits = vouchers out + handpays, games played/won/lost, slot door opened, power resets; in credits of the "
    "accounting denomination, low 8 BCD digits"
)

#: What the cabinet answers to 0x18 (games since power-up / door closed).
ANSWER_18 = "games played since the last power-up and since the main door closed (2 BCD each)"

#: What the cabinet answers to 0x1A (current credits).
ANSWER_1A = "the station's credit meter"

#: What the cabinet answers to 0x1B (handpay information).
ANSWER_1B = (
    "the station's pending handpay: progressive group 00 (the cabinet has no SAS progressives), level 0x80 "
    "cancelled credits / 0x40 jackpot, amount in credits, partial pay 0 (no part goes to the credit meter), reset "
    "ID, session game win and session game pay = the amount (as Monaco fills them); all zero without a handpay"
)

#: What the cabinet answers to 0x1E (bill meters $1 $5 $10 $20 $50 $100).
ANSWER_1E = "bills accepted of each value (counts)"

#: What the cabinet answers to 0x1F, 0x53 (machine ID and game configuration).
ANSWER_1F_53 = (
    "game BJ, paytable `BJCL01`/`BJMT01`/`BJAM01`, max bet (credits, at most 255), base % from the par sheet (basic"
    " strategy RTP, e.g. `9989`); a game number not BCD or not a game: NACK (Monaco "
    "`LP53SendGameNConfigurationParser.cs`)"
)

#: What the cabinet answers to 0x21 (ROM signature).
ANSWER_21 = (
    "ACKed, computed in the background with the seeded CRC-16 over the signed release manifest (which names every "
    "installed file's SHA-256; a development build: its `.py` files in order), sent at the next general poll"
)

#: What the cabinet answers to 0x2F (selected meters for game N).
ANSWER_2F = (
    "1-10 codes per request, more or a game number not BCD: NACK (Monaco "
    "`LP2FSendSelectedMetersForGameNParser.cs`); Appendix C codes 0x00-0x06, 0x0B, 0x0C, 0x24, and the bill counts "
    "of the denominations the cabinet takes among 0x40-0x4B (nCompass `mainGameMeterCodeMap`), plus the further "
    "codes of 0x6F below (4 bytes; 5 for 0x0D/0x0E); a code the cabinet does not count is left out of the reply"
)

#: What the cabinet answers to 0x20 (total bill in value).
ANSWER_20 = (
    "Monaco `LP20TotalBillInValueParser.cs`: 4 BCD, whole dollars of every bill taken (`bills_in_minor` / 100), "
    "whatever the accounting denomination"
)

#: What the cabinet answers to 0x2A / 0x2B (true coin in / out).
ANSWER_2A_2B = (
    "Monaco `LP2ASendTrueCoinInParser.cs` / `LP2BSendTrueCoinOutParser.cs`: 4 BCD, cents of coins: 0 (no coin "
    "acceptor, no hopper)"
)

#: What the cabinet answers to 0x2D (total hand-paid cancelled credits).
ANSWER_2D = (
    "Monaco `LP2DSendTotalHandPaidCanceledCreditsParser.cs`: game 2 BCD in; game + 4 BCD credits (`handpay_minor`) "
    "out; another game than 0000 is ignored, a game not in BCD NACKed (as Monaco)"
)

#: What the cabinet answers to 0x2E (game delay (not a meter)).
ANSWER_2E = (
    "Monaco `LP2EGameDelayParser.cs`: delay 2 bytes in 100 ms; NACK, as Monaco answers without legacy bonusing (the"
    " cabinet has none)"
)

#: What the cabinet answers to 0x31-0x3C, 0x3E-0x45 (bills accepted by denomination).
ANSWER_31_45 = (
    "Monaco `LP31Send1DollarBillsInParser.cs` .. `LP45Send250DollarBillsInParser.cs` ($1 $2 $5 $10 $20 $50 $100 "
    "$500 $1000 $200 $25 $2000, 0x3E $2500 .. 0x44 $100000, 0x45 $250): 4 BCD counts (`bills_by_denom`); 0 for a "
    "bill the acceptor does not take, as Monaco. 0x3D is the cash-out ticket poll"
)

#: What the cabinet answers to 0x48 (last accepted bill).
ANSWER_48 = (
    "Monaco `LP48SendLastAcceptedBillInformationParser.cs`: country 1 BCD (37 United States), denomination code 1 "
    "BCD (`BillDenominationCodes.cs`: $1 00 .. $20 04, $25 05 ...), count of that bill 4 BCD; all zeros before the "
    "first bill, as Monaco"
)

#: What the cabinet answers to 0x52 (game N meters).
ANSWER_52 = (
    "Monaco `LP52SendGameNMetersParser.cs`: game 2 BCD in; game, coin in, coin out, jackpot (credits), games "
    "played, 4 BCD each; games 0 and 1 (the station's one game) read the station's meters, another game zeros (as "
    "Monaco), a game not in BCD NACKed"
)

#: What the cabinet answers to 0x56 (enabled game numbers).
ANSWER_56 = "Monaco `LP56SendEnabledGameNumbersParser.cs`: length, count 1, game 0001"

#: What the cabinet answers to 0x6F / 0xAF (extended meters for game N).
ANSWER_6F_AF = (
    "Monaco `LP6F`/`LPAFSendExtendedMetersForGameNParser.cs` (`SendSelectedMetersForGameNParserBase.cs`): game 2 "
    "BCD and codes 2 bytes low first in; per meter code, size, BCD value out. Every meter the cabinet counts, codes"
    " and units per Monaco `SASMeterCollection.cs` (`drivers/sas/egm_meter_codes.py`): credits 0x00-0x04, 0x0B, "
    "0x0C, 0x15, 0x16, 0x1C, 0x1F, 0x22-0x24, 0x28, 0x29, 0x2C, 0x58; cents 0x0D, 0x0E, 0x80, 0x86 (vouchers); "
    "counts 0x05-0x07, 0x11, 0x12, 0x25, 0x26, 0x35, 0x38, 0x81, 0x87, bills 0x40-0x57 and 0x59-0x62; 0x7F weighted"
    " theoretical payback in hundredths of a percent (the game's par-sheet return, e.g. 9989; 0 before the first "
    "wager). Sizes: 5 bytes (10-digit meters; credits 4 bytes at 10 or more minor units a credit), current credits "
    "9, 0x7F 4. Game 1 answers the per-game codes (0x00-0x02, 0x05-0x07, 0x1C, 0x1F, 0x22, 0x7F), another game no "
    "meters; a code the cabinet does not count (coins, restricted or promotional tickets, AFT, bonuses, "
    "progressives) is left out; a malformed poll is NACKed. 0x00/0x01/0x1C are the coin in / coin out above, 0x22 "
    "(total won credits, Monaco `TotalPaidAmt`) coin out + jackpot. Pushes, blackjacks, doubles, splits and handpay"
    " counts have no SAS code. Each station is its own machine: these are its own meters"
)

#: What the cabinet answers to 0x3D (cash-out ticket information).
ANSWER_3D = (
    "the station's last voucher (or handpay receipt): its validation number's low 8 digits and its amount in cents;"
    ' zeros before the first; no reply with `validation = "system"` (Monaco answers 0x3D only with validation type '
    "none: the host issued the number)"
)

#: What the cabinet answers to 0x4C / 0x4D (secure enhanced validation ID / information).
ANSWER_4C_4D = "not answered: secure enhanced validation is not implemented"

#: What the cabinet answers to 0x51, 0x55 (games implemented, selected game).
ANSWER_51_55 = "1, 1"

#: What the cabinet answers to 0x54 (SAS version and serial).
ANSWER_54 = "`602`, the host name"

#: What the cabinet answers to 0x7E / 0x7F (send / receive date and time).
ANSWER_7E_7F = (
    "0x7F (also as a broadcast) keeps the host's time as a journaled, logged clock offset; 0x7E reads back the "
    "cabinet's time plus that offset, i.e. what the host set, also right after the 0x7F (the link answers from the "
    "time set until the engine has applied it); a date not BCD or not a date: NACK (the Pi's own clock, which the "
    "journal and vouchers use, is not changed)"
)

#: What the cabinet answers to 0x50 (validation meters).
ANSWER_50 = (
    "type 0x00 tickets printed, 0x80 tickets redeemed: count and amount in cents (at every accounting "
    "denomination); other types of Table 15.13c zeros, a type not in it NACK"
)

#: What the cabinet answers to 0x57 / 0x58 (pending cash-out / receive validation number).
ANSWER_57_58 = (
    "amount in cents; the validation system ID is 1 BCD byte (`12` prints a number starting 12), system ID or "
    'number not BCD: NACK; see "Tickets through the host"'
)

#: What the cabinet answers to 0x70 / 0x71 (ticket validation data / redeem ticket).
ANSWER_70_71 = (
    "amounts in cents; no ticket (0x70 FF), not compatible (0x71 C0) and no information (0x71 FF): the status byte "
    'alone, length 01; 0x71 with restricted expiration, pool ID (binary) and target ID taken; see "Tickets through '
    'the host"'
)

#: What the cabinet answers to 0x7B / 0x7C / 0x7D (extended validation status / set extended
#: ticket data / set ticket data).
ANSWER_7B_7D = (
    "journaled (`host_command`); the next tickets print the host's location and address lines and its expiration; "
    "0x7B: a control mask bit of 0 leaves that function as it is (an empty mask changes nothing), the reply reports"
    " the functions in force: bit 0 (printer as cash-out device) and bit 5 (ticket redemption), on by default and "
    "reported as set before any 0x7B, none without system validation; bit 5 clear hands an offered ticket back "
    '("ticket redemption disabled by the casino host"), bit 0 clear makes a cash-out a handpay; 0x7C/0x7D reply 01 '
    "when data was set, 00 for invalid data or nothing to set; every 0x7D field after the host ID is optional and a"
    " text length of 00 keeps the current line"
)

#: What the cabinet answers to 0xA0 (enabled features).
ANSWER_A0 = (
    "the game number asked; features 2 bit 2 (tickets in total drop and total cancelled credits: the cabinet counts"
    ' them there) always; with `validation = "system"` features 1 bits 4, 5, 7 (validation extensions, system '
    "validation, ticket redemption through the host); features 2 bit 3 (extended meters) while the layout table "
    "answers 0x6F; everything else clear: no AFT, bonusing, jackpot multiplier, tournament, progressives, "
    "multi-denomination, component authentication or session play. A non-BCD game number: NACK"
)

#: What the cabinet answers to 0xA8 (handpay reset to the credit meter).
ANSWER_A8 = "refused (the operator allows no reset to the credit meter), logged"

#: What the cabinet answers to 0x94 (remote handpay reset).
ANSWER_94 = (
    "resets the station's handpay like the attendant's key (0 reset, 1 unable, 2 not in handpay; each request is in"
    " the event log, refused ones too)"
)

#: What the cabinet answers to 0xB5 (extended game N information).
ANSWER_B5 = (
    "game 1, and game 0 (each station is a machine with one game): the table maximum in credits (2 BCD, not capped "
    "at 255 as 0x1F's byte is), progressive group 00 and no levels, the game's name (`Blackjack`, `Blackjack "
    "Multi-deck`, `American Blackjack`), paytable `BJCL01`/`BJMT01`/`BJAM01`, 1 wager category, one denomination "
    "(the accounting denomination's code); another game number or a non-BCD one: NACK"
)
