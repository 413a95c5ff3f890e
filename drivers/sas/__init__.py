"""SAS 6.02 for the cabinet: a pure, sans-I/O codec for the gaming machine (EGM) side
and the host side (issue 13, first part).

Modules (none does I/O, reads a clock or draws random numbers; modelled on
``drivers/id003_codec.py`` and h11: feed bytes, get events):

- ``crc``: CRC-16/Kermit (reflected 0x1021 = 0x8408, seed 0, no final XOR, low byte
  first), plain, seeded and incremental (``SeededCrc``) for the ROM signature (0x21).
- ``bcd``: packed BCD meters, most significant byte first.
- ``wakeup``: the wakeup bit as the Linux PARMRK byte stream (``FF 00 b`` = b with the
  wakeup bit, ``FF FF`` = literal FF): incremental parser and the host's encoder.
- ``layouts``: the layout table ``LAYOUTS`` (command -> kind, request data length,
  reply shape, EGM reply builder, source).
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
  ``egm_meters``: view -> meters, 0x2F meter codes, bill tables.
- ``rom_signature``: the incremental 0x21 signature over the program image.
- ``egm_events``: real-time event reporting (0x0E): each exception's event form.
  ``egm_info``: 0x3D cash-out ticket, 0xA0 enabled features, 0xB5 game N information.
- TITO (issue 14): ``tito_codes`` (0x57 types, 0x58 replies, 0x71 transfer and status
  codes, 0x7B bits, 0x50 validation types), ``tito_wire`` (the TITO layouts both ways),
  ``egm_tito`` (the EGM's TITO answers from the view, ``HostDataRejected``).  Secure
  enhanced validation (0x4C/0x4D) is not implemented: no public source gives the
  validation number algorithm with test vectors.
  The I/O shell around ``egm`` is ``drivers/sas_link.py``.

Sources: ``research/sas.md`` (link layer, CRC vectors, exception codes, poll list),
lakeshsharma/nCompass ``Sentinel/SASProtocol/LongPoll*Message.{h,cpp}`` (message
layouts) and thomas-pythonas/saspy ``sas.py`` (layouts nCompass lacks).  Where they
differ from the issue text or from each other:

- 0x18 is two 2-byte BCD counts (saspy), not one 4-byte meter (issue text); same length.
- research/sas.md's 0x4C CRC vector ``01 4C 00 00 01 00 00 00 01`` has 7 data bytes;
  nCompass's 0x4C carries 6 (3-byte validation ID, 3-byte sequence number).  The CRC
  vector is tested as a CRC; the 6-byte layout is nCompass's.
- saspy appends the CRC high byte first; nCompass and research/sas.md send it low byte
  first, which is what this codec does.
- 0x1C meter names: nCompass and research/sas.md (coin in, coin out, drop...); saspy
  calls the first three total bet / total win / total in.  Same layout.
- Not stated by any source, marked ``UNVERIFIED`` in ``layouts``/``tito_codes``: 0x0A/0x0B
  (assumed no data, CRC, ACK), 0x7C (assumed framed by a length byte, elements code /
  length / ASCII, a one-byte reply), the 0x57 amount width (5 BCD assumed), the meaning
  of the 0x7D/0x7C/0xA8 reply bytes, the reasons of 0x71 statuses 0x81-0x8B and of
  transfer codes 0x86-0x88, 0x7E (assumed R with a
  date 4 BCD + time 3 BCD reply); the byte order of the 0x21 seed and signature
  (assumed low byte first).  0x1F's denomination code table, game option bits and
  base-percentage format are not in our sources (carried as given).

Layout table (kind, request data bytes, reply data bytes, EGM builder, source):

    0x01  S         0       ACK  ack                    nCompass LongPoll01Message.h
    0x02  S         0       ACK  ack                    nCompass LongPoll02Message.h
    0x06  S         0       ACK  ack                    saspy enable_bill_acceptor
    0x07  S         0       ACK  ack                    saspy disable_bill_acceptor
    0x08  S         5       ACK  ack                    saspy configure_bill_denom
    0x0A  S         0       ACK  ack                    UNVERIFIED (assumed)
    0x0B  S         0       ACK  ack                    UNVERIFIED (assumed)
    0x0E  S         1       ACK  ack                    Monaco LPParsers/LP0ERealTimeEventReportingParser.cs
    0x0F  R         0        24  meters_block           saspy send_meters_10_15
    0x10  R         0         4  meter_reply            nCompass LongPoll10Message.cpp
    0x11  R         0         4  meter_reply            saspy 0x11
    0x12  R         0         4  meter_reply            saspy 0x12
    0x13  R         0         4  meter_reply            saspy 0x13
    0x14  R         0         4  meter_reply            saspy 0x14
    0x15  R         0         4  meter_reply            saspy 0x15
    0x16  R         0         4  meter_reply            saspy 0x16
    0x17  R         0         4  meter_reply            saspy 0x17
    0x18  R         0         4  games_since_power_up   saspy games_powerup_door_opened
    0x19  R         0        20  meters_block           nCompass LongPoll19Message.cpp
    0x1A  R         0         4  current_credits        nCompass LongPoll1AMessage.cpp
    0x1B  R         0        20  handpay_information    Monaco LPParsers/LP1BSendHandpayInfoParser.cs
    0x1C  R         0        32  meters_1c              nCompass LongPoll1CMessage.cpp
    0x1E  R         0        24  meters_block           nCompass LongPoll1EMessage.cpp
    0x1F  R         0        20  machine_info           nCompass LongPoll1FMessage.cpp
    0x21  S         2         2  rom_signature_reply    saspy ROM_signature_verification
    0x2F  M  len byte  len byte  selected_meters        nCompass LongPoll2FMessage.cpp
    0x3D  R         0         9  cashout_ticket         Monaco LPParsers/LP3DSendCashOutTicketInformationParser.cs
    0x4C  S         6         6  -                      nCompass LongPoll4CMessage.h
    0x4D  S         1        31  -                      nCompass LongPoll4DMessage.cpp
    0x50  S         1        10  validation_meters_reply nCompass LongPoll50Message.cpp
    0x51  R         0         2  two_digit_count        nCompass LongPoll51Message.cpp
    0x53  S         2        22  -                      nCompass LongPoll53Message.cpp
    0x54  R         0  len byte  sas_version            nCompass LongPoll54Message.cpp
    0x55  R         0         2  two_digit_count        nCompass LongPoll55Message.cpp
    0x57  R         0         6  pending_cashout_reply  saspy pending_cashout_info
    0x58  S         9         1  validation_number_status saspy validation_number / rcv_validation_number
    0x70  R         0  len byte  ticket_validation_data nCompass LongPoll70Message.cpp
    0x71  M  len byte  len byte  redeem_status          nCompass LongPoll71Message.cpp
    0x7B  M  len byte  len byte  extended_validation_status_reply nCompass LongPoll7BMessage.h/.cpp
    0x7C  M  len byte         1  ticket_data_reply      UNVERIFIED (assumed)
    0x7D  M  len byte         1  ticket_data_reply      nCompass LongPoll7DMessage.cpp
    0x7E  R         0         7  -                      UNVERIFIED (assumed)
    0x7F  S         7       ACK  ack                    nCompass LongPoll7FMessage.cpp
    0x94  S         0         1  remote_handpay_reset   nCompass LongPoll94Message.cpp
    0xA0  S         2         8  features_reply         Monaco LPParsers/LPA0SendEnabledFeaturesParser.cs
    0xA8  S         1         1  reset_method_reply     nCompass LongPollA8Message.cpp
    0xB5  S         2  len byte  game_information       Monaco LPParsers/LPB5SendExtendedGameNInformationParser.cs

On a pseudo-terminal the EGM side must read raw (no PARMRK): the line discipline would
double each FF the host twin writes and break ``FF 00 b``.  That is the shell's job.
"""
