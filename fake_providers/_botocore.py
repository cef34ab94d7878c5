"""Serve fake providers to botocore (boto3, langchain-aws) over a real 127.0.0.1 server.

botocore sends requests with urllib3, which no httpx transport patch reaches.
:func:`patch_botocore` starts one uvicorn server on loopback for the given
providers and, while the context is open, rewrites each botocore request for
a provider's host (``bedrock-runtime.us-east-1.amazonaws.com`` ...) to that
server before urllib3 sends it. The request is signed for the real host and
the client's own stack reads the answer, so ``boto3.client("bedrock-runtime")``
built anywhere in the test needs no ``endpoint_url``; requests for other hosts
are sent as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

from tooltape.fake_providers._asgi import FakeProviderApp
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._server import serve_in_thread

__all__ = ["patch_botocore"]


def _ours(app: FakeProviderApp, url: str) -> bool:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    host = (parts.hostname or "").lower()
    return any((p.host, p.port) == (host, port) for p in app.router.providers)


@contextmanager
def patch_botocore(*providers: FakeProvider) -> Iterator[FakeProviderApp]:
    """Route botocore's requests for ``providers``' hosts to a loopback server serving them.

    Yields:
        The server's app; ``app.router.add(provider)`` serves one more provider.
    """
    from botocore.httpsession import URLLib3Session  # type: ignore[import-untyped]

    app = FakeProviderApp(*providers)
    original = URLLib3Session.send
    with serve_in_thread(app) as server_url:
        server = urlsplit(server_url)

        def send(self: URLLib3Session, request: Any) -> Any:
            if _ours(app, request.url):
                parts = urlsplit(request.url)
                request.url = urlunsplit(
                    (server.scheme, server.netloc, parts.path, parts.query, "")
                )
            return original(self, request)

        with mock.patch.object(URLLib3Session, "send", send):
            yield app
