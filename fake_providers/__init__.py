"""tooltape.fake_providers: provider dialects and the transports that serve them."""

from tooltape.fake_providers._dialect import (
    Dialect,
    ProviderEvent,
    dialect_names,
    get_dialect,
    register_profile,
)
from tooltape.fake_providers._sse import (
    SSEEvent,
    decode_ndjson,
    decode_sse,
    encode_ndjson,
    encode_sse,
)
from tooltape.fake_providers._wire import ProviderError, ProviderRequest, Wire

__all__ = [
    "Dialect",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "SSEEvent",
    "Wire",
    "decode_ndjson",
    "decode_sse",
    "dialect_names",
    "encode_ndjson",
    "encode_sse",
    "get_dialect",
    "register_profile",
]
