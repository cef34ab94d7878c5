"""Whether a request tooltape does not serve has somewhere else to go.

tooltape answers every request for a host its fake providers live at. A request
for any other host goes on to what would have handled it without tooltape when
another tool intercepts that HTTP stack — vcrpy (and so pytest-recording),
which patches the transports, or an active respx mock — so a test can use
tooltape's fakes beside the cassettes and routes it already has. With no other
tool there, the request gets tooltape's 404 naming the routes instead: a client
pointed at the wrong URL fails clearly and nothing reaches the network.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import httpx2

__all__ = ["intercepted_below"]

_PACKAGE_DIRS = {
    "httpx": Path(httpx.__file__).parent,
    "httpx2": Path(httpx2.__file__).parent,
}


def _replaced(handler: Any, package: str) -> bool:
    # vcrpy's replacements copy the name and module of what they replace (functools.wraps),
    # and may be in place before tooltape is imported: only their code tells them apart.
    code = getattr(handler, "__code__", None)
    if code is None:
        return True
    return not Path(code.co_filename).is_relative_to(_PACKAGE_DIRS[package])


def intercepted_below(package: str, handlers: tuple[Any, ...], respx_routers: int = 0) -> bool:
    """True when another tool would take a request we pass on.

    Args:
        package: ``"httpx"`` or ``"httpx2"``, the stack the request is on.
        handlers: The transport methods in place now (under tooltape's own patch).
        respx_routers: How many other active respx routers would see the request.
    """
    return respx_routers > 0 or any(_replaced(h, package) for h in handlers)
