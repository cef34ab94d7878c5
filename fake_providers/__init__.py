"""tooltape.fake_providers: provider dialects and the transports that serve them.

A dialect (``get_dialect("openai_chat")``) renders a plan plus quirks to the exact
bytes a provider streams, parses bytes back to the deltas that provider's
LangChain adapter yields, and validates request histories with the provider's
real errors. A :class:`FakeProvider` scripts turns of one dialect; transports
serve providers to httpx2 clients (the official SDKs), httpx clients (respx) and
any client over a real server on 127.0.0.1.

Quirks are named by kind in ``render(..., quirks=[...])``; the classes live in
:mod:`tooltape.fake_providers.quirks`. Write your own dialect by subclassing
:class:`Dialect` and registering it with :func:`register_dialect`.
"""

from __future__ import annotations

import typing as _typing

from tooltape.harness.lazy_facades import lazy_exports as _lazy_exports

if not _typing.TYPE_CHECKING:  # the imports below say where each name lives
    # Public names are imported on first use: importing any submodule runs this file first,
    # and `tooltape inspect` should not pay for the chat model, the ASGI app and the transports.
    __getattr__, __dir__ = _lazy_exports(__name__, globals())

if _typing.TYPE_CHECKING:
    from tooltape.fake_providers._asgi import FakeProviderApp
    from tooltape.fake_providers._body import BodyProblem
    from tooltape.fake_providers._call_ids import IdShape
    from tooltape.fake_providers._chat_model import (
        FakeHistoryRejected,
        FakeStreamError,
        FakeToolStreamingModel,
        ScriptedTurn,
    )
    from tooltape.fake_providers._dialect import Dialect, EventQuirks, ProviderEvent
    from tooltape.fake_providers._httpx2_transport import FakeTransport, patch_httpx2
    from tooltape.fake_providers._limits import ServerLimits
    from tooltape.fake_providers._provider import FakeProvider, ProviderRouter
    from tooltape.fake_providers._registry import (
        dialect_names,
        get_dialect,
        register_dialect,
        register_profile,
    )
    from tooltape.fake_providers._respx import add_respx_routes, patch_httpx
    from tooltape.fake_providers._server import serve_in_thread
    from tooltape.fake_providers._sse import decode_sse
    from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire
    from tooltape.fake_providers.dialects.openai_compatible._profiles import profile_table

__all__ = [
    "BodyProblem",
    "Dialect",
    "EventQuirks",
    "FakeHistoryRejected",
    "FakeProvider",
    "FakeProviderApp",
    "FakeStreamError",
    "FakeToolStreamingModel",
    "FakeTransport",
    "IdShape",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "ProviderRouter",
    "ScriptedTurn",
    "ServerLimits",
    "Wire",
    "add_respx_routes",
    "decode_sse",
    "dialect_names",
    "get_dialect",
    "patch_httpx",
    "patch_httpx2",
    "profile_table",
    "register_dialect",
    "register_profile",
    "serve_in_thread",
]
