"""``Said``: a player text the engine sends as its English template and arguments, so
each screen can say it in its own language ("the language chosen per station").

Owns: the ``Said`` value (``text``: the English template, which is also the gettext
msgid the UI looks up; ``args``: its values), ``said`` to make one, ``N_`` to mark a
constant English text for extraction, and ``english`` / ``english_all``: the English
rendering the snapshot's plain ``message`` fields keep (tools, logs, tests read them).
Arguments named ``*_minor`` are money in minor units (each screen writes them in its
own locale); ``*_text`` are themselves English texts (msgids) to translate, ``*_texts``
a ``", "``-joined list of them; anything else is shown as it is (a station number, a
validation number). Pure; shared by both processes.
"""

from __future__ import annotations

import msgspec

from cabinet.protocol.money import fmt_money

#: how the parts of a composite line are joined (``"Station 1 wins $5.00 · Station 2 loses"``).
SEP = " \u00b7 "


class Said(msgspec.Struct, frozen=True, array_like=True):
    """One player text: ``text`` an English template (``"Minimum bet {min_minor}"``) with
    ``str.format`` fields named by ``args`` (``{"min_minor": 500}``)."""

    text: str
    args: dict[str, int | str] = {}


def said(text: str, **args: int | str) -> Said:
    """``Said(text, args)``; ``pybabel extract`` takes ``text`` as a msgid (keyword ``said``)."""
    return Said(text, args)


def N_(text: str) -> str:
    """Marks a constant English player text for ``pybabel extract``; returns it unchanged."""
    return text


def english(s: Said, symbol: str = "$") -> str:
    """``s`` in English: money arguments as ``fmt_money`` writes them.

    Raises:
        KeyError: the template names an argument ``s.args`` lacks (a programming error).
    """
    if not s.args:
        return s.text
    return s.text.format(
        **{k: fmt_money(v, symbol) if k.endswith("_minor") and isinstance(v, int) else v for k, v in s.args.items()}
    )


def english_all(parts: list[Said], symbol: str = "$") -> str:
    """Each part in English, joined by ``SEP``."""
    return SEP.join(english(p, symbol) for p in parts)
