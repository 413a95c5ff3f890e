"""The one way the cabinet checks a configuration, and its one ``ConfigError``.

Owns: ``ConfigError`` (the file, the key, what is allowed and what was found),
``convert`` (a parsed document or a Struct's builtins to a typed msgspec
Struct: ranges from ``Annotated[int, msgspec.Meta(ge=, le=)]``, choices from
``Literal`` and enums, unknown keys refused with ``forbid_unknown_fields``), and
``load_toml`` (read a TOML file, its errors as ``ConfigError``).

Used by the operator settings (``cabinet.core.settings``), the engine config
(``cabinet.shell.config``) and the wiring file (``drivers.wiring``). It lives
outside both packages because ``cabinet.core`` may not import ``drivers`` and
``drivers`` may not import ``cabinet`` (``tests/test_layers.py``); it imports
only the standard library and msgspec, and does no I/O but ``load_toml``.

Messages look like ``cabinet.toml: devices.bill_poll_interval_s: expected
0.02..2, got 5`` (the wording "expected ..., got ..." is the wiring file's,
which operators' notes already quote).
"""

from __future__ import annotations

import enum
import re
import tomllib
import types
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec
from msgspec import inspect as mi

T = TypeVar("T")

__all__ = ["ConfigError", "allowed", "choices", "convert", "load_toml"]


class ConfigError(ValueError):
    """A setting, config or wiring value is wrong.

    ``str(e)`` is ``"<source>: <key>: <message>"`` (``source`` left out when
    empty, e.g. the operator settings, which come from no file).

    Attributes:
        source: the file (or ``""``).
        key: the dotted key, e.g. ``"devices.bill_poll_interval_s"``.
        field: the same as ``key`` (the name the settings' callers use).
        reason: what is wrong, naming the allowed values.
    """

    def __init__(self, key: str, message: str, source: str = "") -> None:
        super().__init__(": ".join(p for p in (source, key, message) if p))
        self.source, self.key, self.reason = source, key, message

    @property
    def field(self) -> str:
        return self.key


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file.

    Raises:
        ConfigError: ``"<path>: cannot read: ..."``, ``"<path>: not UTF-8 text: ..."``
            (TOML is UTF-8, TOML 1.0 "Spec") or ``"<path>: not valid TOML: ..."``.
    """
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError("", f"cannot read: {e.strerror or e}", str(path)) from None
    except UnicodeDecodeError as e:
        raise ConfigError(
            "",
            f"not UTF-8 text: byte 0x{e.object[e.start]:02x} at offset {e.start} (save the file as UTF-8)",
            str(path),
        ) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("", f"not valid TOML: {e}", str(path)) from None


def convert(data: Any, type_: type[T], source: str = "", prefix: str = "") -> T:
    """``data`` (builtins: a parsed TOML table, ``msgspec.to_builtins`` of a Struct)
    as ``type_``, checked against its annotations (strict: no ``"5"`` for 5, no
    ``true`` for 1).

    Args:
        source: the file named in errors (``""``: none).
        prefix: the dotted key of ``data`` inside its file (``"station2"``).

    Raises:
        ConfigError: the first value out of its range or choices, an unknown or
            missing key; the message names the key and what is allowed.
    """
    try:
        return msgspec.convert(data, type_, strict=True)
    except msgspec.ValidationError as e:
        key, message = _explain(str(e), data, mi.type_info(type_))
        key = ".".join(p for p in (prefix, key) if p)
        raise ConfigError(key, message, source) from None


def allowed(info: mi.Type) -> str:
    """What a type allows, in an operator's words: ``"0.02..2"``, ``"one of id003,
    pulse, none"``, ``"a BCM pin number 2..27"``, ``"an integer >= 1"``."""
    if isinstance(info, mi.Metadata):
        what = allowed(info.type)
        desc = (info.extra_json_schema or {}).get("description")
        if not desc:
            return what
        return f"{desc} {what}" if _is_range(what) else desc
    if isinstance(info, mi.UnionType):
        kinds = [t for t in info.types if not isinstance(t, mi.NoneType)]
        return " or ".join(allowed(t) for t in kinds) if kinds else "nothing"
    if isinstance(info, mi.LiteralType | mi.EnumType):
        return "one of " + ", ".join(str(v) for v in _values(info))
    if isinstance(info, mi.IntType | mi.FloatType):
        return _number(info)
    if isinstance(info, mi.StrType):
        lo, hi = info.min_length, info.max_length
        if lo is not None and hi is not None:
            return f"{lo}-{hi} characters"
        if lo is not None:
            return "a non-empty string" if lo == 1 else f"a string of at least {lo} characters"
        return "a string" if hi is None else f"a string of at most {hi} characters"
    if isinstance(info, mi.BoolType):
        return "true or false"
    if isinstance(info, mi.StructType | mi.DictType | mi.TypedDictType):
        return "a table"
    if isinstance(info, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
        head = (
            "a non-empty list of"
            if info.min_length == 1
            else f"a list of at least {info.min_length}"
            if info.min_length
            else "a list of"
        )
        return f"{head} {_plural(allowed(info.item_type))}"
    return type(info).__name__.removesuffix("Type").lower()


def choices(tp: Any, limit: int = 12) -> list[Any] | None:
    """Every value an annotation allows when they are few, in their declared order:
    a ``Literal``'s values, an enum's, a small integer range (``ge``..``le`` of its
    ``Meta``, at most ``limit`` values), with ``None`` first for an optional
    field; ``None`` when they are not few."""
    origin = get_origin(tp)
    if origin is Literal:
        return list(get_args(tp))
    if origin is Union or origin is types.UnionType:
        others = [a for a in get_args(tp) if a is not type(None)]
        inner = choices(others[0], limit) if len(others) == 1 else None
        return None if inner is None else [None, *inner]
    if origin is Annotated and (get_origin(get_args(tp)[0]) is Literal or _is_enum(get_args(tp)[0])):
        return choices(get_args(tp)[0], limit)
    if _is_enum(tp):
        return [m.value for m in tp]
    info = _bare(mi.type_info(tp))
    if isinstance(info, mi.IntType):
        lo = info.ge if info.ge is not None else None if info.gt is None else info.gt + 1
        hi = info.le if info.le is not None else None if info.lt is None else info.lt - 1
        if lo is not None and hi is not None and 0 <= hi - lo < limit:
            step = info.multiple_of or 1
            return [v for v in range(lo, hi + 1) if v % step == 0]
    return None


def _is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


# -- explaining a msgspec.ValidationError ---------------------------------------

_MISSING: Any = object()
_WHERE = re.compile(r"^(?P<what>.*?)(?: - at `(?P<where>[^`]*)`(?: in `(?P<inside>[^`]*)`)?)?$", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")


def _explain(text: str, data: Any, info: mi.Type) -> tuple[str, str]:
    """``(dotted key, message)`` for msgspec's ``text`` about ``data`` of type ``info``."""
    m = _WHERE.match(text)
    assert m is not None  # the pattern matches any text
    what, where, inside = m["what"], m["where"] or "$", m["inside"]
    bad_key = where == "key"
    keys, info, value = _walk(inside if bad_key else where, data, info)
    if bad_key:  # a table's key is not one of the allowed names
        table = _container(info, value)
        ktype = table.key_type if isinstance(table, mi.DictType) else None
        names = value if isinstance(value, dict) else {}
        key = next((k for k in names if ktype is None or not _fits(k, ktype)), "?")
        shown = allowed(ktype).removeprefix("one of ") if ktype is not None else "?"
        return _join(keys, str(key)), f"unknown name (allowed: {shown})"
    field = re.search(r"field `([^`]*)`", what)
    if what.startswith("Object contains unknown field") and field:
        struct = _container(info, value)
        fields = [f.encode_name for f in struct.fields] if isinstance(struct, mi.StructType) else []
        sub = value.get(field[1]) if isinstance(value, dict) else None
        noun = "section" if isinstance(sub, dict) else getattr(getattr(struct, "cls", None), "config_noun", "key")
        return _join(keys, field[1]), f"unknown {noun} (allowed: {', '.join(fields)})"
    if what.startswith("Object missing required field") and field:
        struct = _container(info, value)
        ftype = next((f.type for f in getattr(struct, "fields", ()) if f.encode_name == field[1]), None)
        return _join(keys, field[1]), (f"expected {allowed(ftype)}, " if ftype else "") + "missing"
    return _join(keys), f"expected {allowed(info)}, got {_shown(value)}"


def _walk(where: str, data: Any, info: mi.Type) -> tuple[list[str], mi.Type, Any]:
    """Follow msgspec's path (``$.devices.bill_poll_interval_s``, ``$.buttons[...]``,
    ``$.counts[1]``) through ``data`` and ``info``: the keys passed, the type and
    the value found there. A table's ``[...]`` (msgspec does not say which key)
    becomes the first of its entries that does not fit."""
    keys: list[str] = []
    for name, index in _STEP.findall(where.removeprefix("$")):
        info = _container(info, data)
        if name:
            fields = getattr(info, "fields", ())
            info = next((f.type for f in fields if f.encode_name == name), info)
            data = data.get(name, _MISSING) if isinstance(data, dict) else _MISSING
            keys.append(name)
        elif index == "..." and isinstance(info, mi.DictType) and isinstance(data, dict):
            vtype = info.value_type
            k, data = next(((k, v) for k, v in data.items() if not _fits(v, vtype)), ("?", _MISSING))
            keys.append(str(k))
            info = vtype
        elif isinstance(data, list | tuple):
            item = getattr(info, "item_type", info)
            i = int(index) if index.isdigit() else next((n for n, v in enumerate(data) if not _fits(v, item)), 0)
            keys[-1:] = [f"{keys[-1] if keys else ''}[{i}]"]
            data, info = (data[i] if i < len(data) else _MISSING), item
    return keys, info, data


def _container(info: mi.Type, data: Any) -> mi.Type:
    """The member of an optional or annotated type that ``data`` is read as."""
    info = _bare(info)
    if isinstance(info, mi.UnionType):
        for t in info.types:
            t = _bare(t)
            if isinstance(data, dict) and isinstance(t, mi.StructType | mi.DictType):
                return t
            if isinstance(data, list | tuple) and hasattr(t, "item_type"):
                return t
    return info


def _bare(info: mi.Type) -> mi.Type:
    while isinstance(info, mi.Metadata):
        info = info.type
    return info


def _fits(value: Any, info: mi.Type) -> bool:
    try:
        msgspec.convert(value, _as_type(info), strict=True)
    except msgspec.ValidationError:
        return False
    except TypeError:  # a type we cannot rebuild: assume it fits
        return True
    return True


def _as_type(info: mi.Type) -> Any:
    """A Python type for ``info`` (enough to re-check one entry of a table)."""
    info = _bare(info)
    if isinstance(info, mi.IntType | mi.FloatType):
        bounds: dict[str, Any] = {k: getattr(info, k) for k in ("ge", "le", "gt", "lt", "multiple_of")}
        meta = msgspec.Meta(**{k: v for k, v in bounds.items() if v is not None})
        return Annotated[int if isinstance(info, mi.IntType) else float, meta]
    if isinstance(info, mi.StrType):
        return Annotated[
            str, msgspec.Meta(min_length=info.min_length, max_length=info.max_length, pattern=info.pattern)
        ]
    if isinstance(info, mi.EnumType | mi.StructType):
        return info.cls
    if isinstance(info, mi.LiteralType):
        return Literal[info.values]
    if isinstance(info, mi.BoolType):
        return bool
    raise TypeError(info)


def _values(info: mi.LiteralType | mi.EnumType) -> tuple[Any, ...]:
    if isinstance(info, mi.LiteralType):
        return info.values
    return tuple(m.value for m in info.cls)


def _number(info: mi.IntType | mi.FloatType) -> str:
    lo = info.ge if info.ge is not None else info.gt
    hi = info.le if info.le is not None else info.lt
    kind = "an integer" if isinstance(info, mi.IntType) else "a number"
    step = f" in steps of {_num(info.multiple_of)}" if info.multiple_of else ""
    if lo is not None and hi is not None:
        return f"{_num(lo)}..{_num(hi)}{step}"
    if lo is not None:
        return f"{kind} {'>=' if info.ge is not None else '>'} {_num(lo)}{step}"
    if hi is not None:
        return f"{kind} {'<=' if info.le is not None else '<'} {_num(hi)}{step}"
    return kind + step


def _num(v: float) -> str:
    return str(v) if isinstance(v, int) else f"{v:g}"


def _is_range(text: str) -> bool:
    return bool(re.match(r"^-?[\d.]+\.\.", text))


def _plural(text: str) -> str:
    return re.sub(r"^an? (integer|number|string|table)", r"\1s", text)


def _join(keys: list[str], *more: str) -> str:
    return ".".join([*keys, *more])


def _shown(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
