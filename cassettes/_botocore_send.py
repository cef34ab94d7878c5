"""botocore's one seam: ``URLLib3Session.send``, wrapped while a context is open.

botocore sends every request through ``URLLib3Session.send`` (vcrpy patches the
same place). The cassette recorder and the network block both wrap it; this is
the one place that finds it, and does nothing when botocore is not installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

__all__ = ["wrapped_botocore_send"]

Send = Callable[[Any, Any], Any]
"""``send(session, request)``: botocore's ``URLLib3Session.send``."""


@contextmanager
def wrapped_botocore_send(wrap: Callable[[Send], Send]) -> Iterator[None]:
    """``URLLib3Session.send`` is ``wrap(original)`` inside the block (no botocore: no-op)."""
    try:
        from botocore.httpsession import URLLib3Session  # type: ignore[import-untyped]
    except ImportError:
        yield
        return
    with mock.patch.object(URLLib3Session, "send", wrap(URLLib3Session.send)):
        yield
