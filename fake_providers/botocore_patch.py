"""Serve fake providers to botocore (boto3, langchain-aws) over a real 127.0.0.1 server.

botocore sends requests with urllib3, which no httpx transport patch reaches.
:func:`patch_botocore` starts one uvicorn server on loopback for the given
providers and, while the context is open, rewrites each botocore request for
a provider's host (``bedrock-runtime.us-east-1.amazonaws.com`` ...) to that
server before urllib3 sends it. The request is signed for the real host and
the client's own stack reads the answer, so ``boto3.client("bedrock-runtime")``
built anywhere in the test, in any region or none, needs no ``endpoint_url``;
requests for other hosts are sent as they were.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

from tooltape.fake_providers._asgi import FakeProviderApp
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._server import serve_in_thread

__all__ = ["patch_botocore"]


def _any_region(host: str) -> str:
    """``bedrock-runtime.us-west-2.amazonaws.com`` as ``bedrock-runtime.*.amazonaws.com``."""
    parts = host.lower().split(".")
    if len(parts) == 4 and parts[2:] == ["amazonaws", "com"]:
        parts[1] = "*"
    return ".".join(parts)


def _ours(app: FakeProviderApp, url: str) -> bool:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    host = _any_region(parts.hostname or "")
    return any((_any_region(p.host), p.port) == (host, port) for p in app.router.providers)


def _region(app: FakeProviderApp) -> str:
    """The region of the first provider's host (``us-east-1`` for the default Bedrock URL)."""
    for provider in app.router.providers:
        parts = provider.host.split(".")
        if len(parts) == 4:
            return parts[1]
    return "us-east-1"


@contextmanager
def patch_botocore(*providers: FakeProvider) -> Iterator[FakeProviderApp]:
    """Route botocore's requests for ``providers``' hosts to a loopback server serving them.

    A provider serves its host in every AWS region (a client made for
    ``us-west-2`` reaches the fake of ``us-east-1``), and a client made with no
    region at all gets the provider's: ``AWS_DEFAULT_REGION`` is set while the
    context is open unless ``AWS_DEFAULT_REGION`` or ``AWS_REGION`` already is.

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

        region = (
            {}
            if {"AWS_DEFAULT_REGION", "AWS_REGION"} & set(os.environ)
            else {"AWS_DEFAULT_REGION": _region(app)}
        )
        with mock.patch.object(URLLib3Session, "send", send), mock.patch.dict(os.environ, region):
            yield app
