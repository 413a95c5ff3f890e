"""SAS 6.02 for the cabinet: a pure, sans-I/O codec for the gaming machine (EGM) side
and the host side (first part).

Modules (none does I/O, reads a clock or draws random numbers; modelled on
``drivers/id003_codec.py`` and h11: feed bytes, get events):

- ``crc``: CRC-16/Kermit (reflected 0x1021 = 0x8408, seed 0, no final XOR, low byte
  first), plain, seeded and incremental (``SeededCrc``) for the ROM signature (0x21).
- ``bcd``: packed BCD meters, most significant byte first.
- ``wakeup``: the wakeup bit as the Linux PARMRK byte stream (``FF 00 b`` = b with the
  wakeup bit, ``FF FF`` = literal FF): incremental parser and the host's encoder.
- ``layouts``: the long poll table ``LAYOUTS``, one row per poll (command -> kind,
  request data length, reply shape, reply builder, how the EGM answers: handler name or
  view reply, broadcast and system-validation flags, what the cabinet answers, source):
  the codec frames by it, the responder routes by it, the table below and
  ``docs/reference/sas-polls.md`` are generated from it (``poll_docs``:
  ``python -m drivers.sas.poll_docs --write``); ``poll_answers``: the answer texts;
  ``egm_requests``: the request data parsers (0x21 seed, 0x2F codes).
- ``exception_codes``: general poll exception codes, name -> code.
- ``messages``: typed reply contents (``Meters1C``, ``MachineInfo``) and 0x2F meter widths.
- ``replies``: EGM reply builders (general poll byte, ACK, NACK, busy, data replies).
- ``codec``: ``EgmCodec``: PARMRK bytes in -> ``GeneralPoll`` / ``LongPoll`` /
  ``UnknownPoll`` / ``Dropped`` events; address filter (1-127, 0 broadcast: parsed, never
  answered); CRC and length checks; repeat detection for the implied ACK; ``answer``
  refuses replies for broadcast or another address.
- ``host_codec``: poll builders, ``to_wire``, ``HostCodec`` reply framer (ACK, NACK,
  busy, data replies), reply data parsers.  For the host twin.
- ``egm_view``: ``EgmView`` (what the link answers from), ``HostException``,
  ``HandpayInfo``, ``HostCommand`` (what it hands the engine).
- ``egm``: ``EgmResponder``: the EGM side as a pure responder (exception queue with the
  implied ACK, 0x51 re-sends, link up/down, busy, delayed 0x21, every long poll the
  view carries).  ``egm_replies``: the read-only long poll replies built from the view;
  ``egm_meters``: view -> meters, 0x2F meter codes, bill tables; ``egm_meter_polls``: the
  meter polls 0x20, 0x2A-0x2E, 0x31-0x45, 0x48, 0x52, 0x56, 0x6F/0xAF; ``egm_meter_codes``:
  every meter the cabinet counts by SAS meter code (0x6F/0xAF and the further 0x2F codes).
- ``rom_signature``: the incremental 0x21 signature over the program image.
- ``egm_events``: real-time event reporting (0x0E): each exception's event form.
  ``egm_info``: 0x3D cash-out ticket, 0xA0 enabled features, 0xB5 game N information.
- TITO: ``tito_codes`` (0x57 types, 0x58 replies, 0x71 transfer and status
  codes, 0x7B bits, 0x50 validation types), ``tito_wire`` (the TITO layouts both ways),
  ``egm_tito`` (the EGM's TITO answers from the view, ``HostDataRejected``).  Secure
  enhanced validation (0x4C/0x4D) is not implemented (Monaco derives its numbers in
  ``Aristocrat.Monaco.Sas/VoucherValidation/``, test vectors in
  ``Test/Aristocrat.Monaco.Sas.Tests/VoucherValidation/SecureEnhancedValidationHandlerTests.cs``).
  The I/O shell around ``egm`` is ``drivers/sas_link.py``.

Sources: ``research/sas.md`` (link layer, CRC vectors, exception codes, poll list),
lakeshsharma/nCompass ``Sentinel/SASProtocol/LongPoll*Message.{h,cpp}`` (message
layouts), thomas-pythonas/saspy ``sas.py`` (layouts nCompass lacks) and, for the meter
polls of ``egm_meter_polls``/``egm_meter_codes``, Aristocrat Monaco (tejvirc/Platform
``Protocol/SAS/Aristocrat.Sas.Client/LPParsers/``, an EGM-side implementation).  Where they
differ from the issue text or from each other:

- 0x18 is two 2-byte BCD counts (saspy), not one 4-byte meter (issue text); same length.
- research/sas.md's 0x4C CRC vector ``01 4C 00 00 01 00 00 00 01`` has 7 data bytes;
  nCompass's 0x4C carries 6 (3-byte validation ID, 3-byte sequence number).  The CRC
  vector is tested as a CRC; the 6-byte layout is nCompass's.
- saspy appends the CRC high byte first; nCompass and research/sas.md send it low byte
  first, which is what this codec does.
- 0x1C meter names: nCompass and research/sas.md (coin in, coin out, drop...); saspy
  calls the first three total bet / total win / total in.  Same layout.
- Settled by Monaco's EGM-side parsers (``LPParsers/``, see ``layouts``): 0x0A/0x0B (no
  data, CRC, ACK), 0x7C (length byte, elements code / length / ASCII, flag reply), the
  0x57 amount (5 BCD cents), the 0x7D/0x7C flag (01 = set) and 0xA8 ACK codes, 0x7E (R,
  date 4 BCD + time 3 BCD), the 0x21 seed and signature (binary, low byte first), the
  0x58 system ID (BCD), TITO amounts in cents.  Still marked ``UNVERIFIED`` in
  ``tito_codes``: the reasons of 0x71 statuses 0x81-0x8B and of transfer codes 0x86-0x88.
  0x1F's denomination code table, game option bits and base-percentage format are not
  in our sources (carried as given).

Long poll table (kind, request data bytes, reply data bytes, EGM answer, source):

    0x01  S         0       ACK  host_command           nCompass LongPoll01Message.h
    0x02  S         0       ACK  host_command           nCompass LongPoll02Message.h
    0x06  S         0       ACK  host_command           Monaco LP06EnableBillAcceptorParser.cs
    0x07  S         0       ACK  host_command           Monaco LP07DisableBillAcceptorParser.cs
    0x08  S         5       ACK  configure_bill_denominations Monaco LP08ConfigureBillDenominationsParser.cs
    0x0A  S         0       ACK  host_command           Monaco LP0AEnterMaintenanceModeParser.cs
    0x0B  S         0       ACK  host_command           Monaco LP0BExitMaintenanceModeParser.cs
    0x0E  S         1       ACK  real_time_event_reporting Monaco LP0ERealTimeEventReportingParser.cs
    0x0F  R         0        24  meters_10_15           Monaco LP0FSendMeters10Through15Parser.cs
    0x10  R         0         4  single_meter           nCompass LongPoll10Message.cpp
    0x11  R         0         4  single_meter           Monaco LP11SendTotalCoinInParser.cs
    0x12  R         0         4  single_meter           Monaco LP12SendTotalCoinOutParser.cs
    0x13  R         0         4  single_meter           Monaco LP13SendTotalDropParser.cs
    0x14  R         0         4  single_meter           Monaco LP14SendTotalJackpotParser.cs
    0x15  R         0         4  single_meter           Monaco LP15SendGamesPlayedParser.cs
    0x16  R         0         4  single_meter           Monaco LP16SendGamesWonParser.cs
    0x17  R         0         4  single_meter           Monaco LP17SendGamesLostParser.cs
    0x18  R         0         4  games_since_power_up   Monaco LP18SendGamesPlayedSinceLastPowerUpAndDoorCloseParser.cs
    0x19  R         0        20  meters_11_15           nCompass LongPoll19Message.cpp
    0x1A  R         0         4  current_credits        nCompass LongPoll1AMessage.cpp
    0x1B  R         0        20  handpay_information    Monaco LP1BSendHandpayInfoParser.cs
    0x1C  R         0        32  meters_1c              nCompass LongPoll1CMessage.cpp
    0x1E  R         0        24  bill_meters            nCompass LongPoll1EMessage.cpp
    0x1F  R         0        20  machine_info           nCompass LongPoll1FMessage.cpp
    0x20  R         0         4  total_bill_in_value    Monaco LP20TotalBillInValueParser.cs
    0x21  S         2         2  rom_signature          Monaco LP21RomSignatureVerificationParser.cs
    0x2A  R         0         4  true_coin              Monaco LP2ASendTrueCoinInParser.cs
    0x2B  R         0         4  true_coin              Monaco LP2BSendTrueCoinOutParser.cs
    0x2D  S         2         6  hand_paid_cancelled_credits Monaco LP2DSendTotalHandPaidCanceledCreditsParser.cs
    0x2E  S         2       ACK  game_delay             Monaco LP2EGameDelayParser.cs
    0x2F  M  len byte  len byte  selected_meters        nCompass LongPoll2FMessage.cpp
    0x31  R         0         4  bill_meter             Monaco LP31Send1DollarBillsInParser.cs
    0x32  R         0         4  bill_meter             Monaco LP32Send2DollarBillsInParser.cs
    0x33  R         0         4  bill_meter             Monaco LP33Send5DollarBillsInParser.cs
    0x34  R         0         4  bill_meter             Monaco LP34Send10DollarBillsInParser.cs
    0x35  R         0         4  bill_meter             Monaco LP35Send20DollarBillsInParser.cs
    0x36  R         0         4  bill_meter             Monaco LP36Send50DollarBillsInParser.cs
    0x37  R         0         4  bill_meter             Monaco LP37Send100DollarBillsInParser.cs
    0x38  R         0         4  bill_meter             Monaco LP38Send500DollarBillsInParser.cs
    0x39  R         0         4  bill_meter             Monaco LP39Send1000DollarBillsInParser.cs
    0x3A  R         0         4  bill_meter             Monaco LP3ASend200DollarBillsInParser.cs
    0x3B  R         0         4  bill_meter             Monaco LP3BSend25DollarBillsInParser.cs
    0x3C  R         0         4  bill_meter             Monaco LP3CSend2000DollarBillsInParser.cs
    0x3D  R         0         9  cashout_ticket         Monaco LP3DSendCashOutTicketInformationParser.cs
    0x3E  R         0         4  bill_meter             Monaco LP3ESend2500DollarBillsInParser.cs
    0x3F  R         0         4  bill_meter             Monaco LP3FSend5000DollarBillsInParser.cs
    0x40  R         0         4  bill_meter             Monaco LP40Send10000DollarBillsInParser.cs
    0x41  R         0         4  bill_meter             Monaco LP41Send20000DollarBillsInParser.cs
    0x42  R         0         4  bill_meter             Monaco LP42Send25000DollarBillsInParser.cs
    0x43  R         0         4  bill_meter             Monaco LP43Send50000DollarBillsInParser.cs
    0x44  R         0         4  bill_meter             Monaco LP44Send100000DollarBillsInParser.cs
    0x45  R         0         4  bill_meter             Monaco LP45Send250DollarBillsInParser.cs
    0x48  R         0         6  last_accepted_bill     Monaco LP48SendLastAcceptedBillInformationParser.cs
    0x4C  S         6         6  -                      nCompass LongPoll4CMessage.h
    0x4D  S         1        31  -                      nCompass LongPoll4DMessage.cpp
    0x50  S         1        10  validation_meters      Monaco LP50SendValidationMetersParser.cs
    0x51  R         0         2  games_implemented      nCompass LongPoll51Message.cpp
    0x52  S         2        18  game_n_meters          Monaco LP52SendGameNMetersParser.cs
    0x53  S         2        22  game_configuration     nCompass LongPoll53Message.cpp
    0x54  R         0  len byte  sas_version            nCompass LongPoll54Message.cpp
    0x55  R         0         2  selected_game          nCompass LongPoll55Message.cpp
    0x56  R         0  len byte  enabled_game_numbers   Monaco LP56SendEnabledGameNumbersParser.cs
    0x57  R         0         6  pending_cashout        Monaco LP57SendPendingCashoutInformationParser.cs
    0x58  S         9         1  validation_number      Monaco LP58ReceiveValidationNumberParser.cs
    0x6F  M  len byte  len byte  extended_meters        Monaco LP6FSendExtendedMetersForGameNParser.cs
    0x70  R         0  len byte  ticket_validation_data Monaco LP70SendTicketValidationDataParser.cs
    0x71  M  len byte  len byte  redeem_ticket          Monaco LP71RedeemTicketParser.cs
    0x7B  M  len byte  len byte  extended_validation_status Monaco LP7BExtendedValidationStatusParser.cs
    0x7C  M  len byte         1  set_extended_ticket_data Monaco LP7CSetExtendedTicketDataParser.cs
    0x7D  M  len byte         1  set_ticket_data        Monaco LP7DSetTicketDataParser.cs
    0x7E  R         0         7  date_time              Monaco LP7ESendDateTimeParser.cs
    0x7F  S         7       ACK  receive_date_and_time  nCompass LongPoll7FMessage.cpp
    0x94  S         0         1  remote_handpay_reset   nCompass LongPoll94Message.cpp
    0xA0  S         2         8  enabled_features       Monaco LPA0SendEnabledFeaturesParser.cs
    0xA8  S         1         1  handpay_reset_method   Monaco LPA8EnableJackpotHandpayResetMethodParser.cs
    0xAF  M  len byte  len byte  extended_meters        Monaco LPAFSendExtendedMetersForGameNParser.cs
    0xB5  S         2  len byte  game_information       Monaco LPB5SendExtendedGameNInformationParser.cs

On a pseudo-terminal the EGM side must read raw (no PARMRK): the line discipline would
double each FF the host twin writes and break ``FF 00 b``.  That is the shell's job.
"""
