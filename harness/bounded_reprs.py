"""Short, bounded text of values read from users' files, for error messages.

Anything read from a file may be huge (a megabyte string, a million-digit
integer, an exception whose ``str`` reprs a long key): these cut it before
formatting, so a message never builds more than it shows.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

__all__ = ["bounded", "bounded_list", "bounded_text", "error_text"]


def bounded(value: object, limit: int = 80) -> str:
    """A short repr of ``value`` that never builds more than about ``limit`` characters.

    Strings and bytes are cut before ``repr``; containers show their type and size;
    integers too long to print show their digit count. Use it for anything read
    from a file before putting it in a message.
    """
    if isinstance(value, str | bytes):
        cut = value[:limit]
        return repr(cut) + (f"…({len(value)} chars)" if len(value) > limit else "")
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        bits = value.bit_length()
        return repr(value) if bits <= 200 else f"<an integer of about {int(bits * 0.30103)} digits>"
    if isinstance(value, dict | list | tuple | set | frozenset):
        return f"<{type(value).__name__} of {len(value)} item(s)>"
    return f"<{type(value).__name__}>"


def bounded_text(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters (no quotes added), with the length it had."""
    return text if len(text) <= limit else f"{text[:limit]}…({len(text)} chars)"


def bounded_list(items: list[object], shown: int = 5) -> str:
    """The first few items of a list, each :func:`bounded`, and how many more there are."""
    text = ", ".join(bounded(item, 40) for item in items[:shown])
    more = f", … {len(items) - shown} more" if len(items) > shown else ""
    return f"[{text}{more}]"


def error_text(error: BaseException, limit: int = 200) -> str:
    """``Name: message`` of an exception, its message cut before anything is formatted.

    ``str(error)`` may repr a huge argument (a ``KeyError`` of a long key, say);
    this reads the first argument itself and bounds it first.
    """
    name = type(error).__name__
    if isinstance(error, RecursionError):
        return f"{name}: nested too deep to read"
    first = error.args[0] if error.args else ""
    if isinstance(error, KeyError) or not isinstance(first, str):
        return f"{name}: {bounded(first, limit)}"
    return f"{name}: {bounded_text(first, limit)}"
