"""``--<limit>`` options of the command line: a number with a lower bound and a shown default."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["limit_option"]

_Command = TypeVar("_Command", bound=Callable[..., Any])


def limit_option(
    flag: str, default: int | float, help: str, *, minimum: int = 0, open_minimum: bool = False
) -> Callable[[_Command], _Command]:
    """A click option for a bound, its default shown in ``--help``.

    An ``int`` or a ``float`` as ``default`` is; at least ``minimum``, or above it when
    ``open_minimum``.
    """
    kind: click.IntRange | click.FloatRange
    if isinstance(default, int):
        kind = click.IntRange(min=minimum + open_minimum)
    else:
        kind = click.FloatRange(min=minimum, min_open=open_minimum)
    return click.option(flag, type=kind, default=default, show_default=True, help=help)
