"""Fixtures shared by the fake-provider tests.

``chat_models``: every dialect's own chat model (``Dialect.chat_model()``), built
once per module and served by one FakeSession (:class:`_adapter_streams.ChatModels`).
``bedrock_endpoint``: one real server on 127.0.0.1 per module, with boto3's
``bedrock-runtime`` and ``bedrock`` clients pointed at it; each test serves its
own :class:`~tooltape.fake_providers.FakeProvider` on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from _adapter_streams import ChatModels
from botocore.config import Config

from tooltape.fake_providers import FakeProvider, FakeProviderApp
from tooltape.fake_providers._server import serve_in_thread


class _Swap:
    """The server's app: whichever provider the running test served last."""

    def __init__(self) -> None:
        self.app: FakeProviderApp | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert self.app is not None, "the test served no provider"
        await self.app(scope, receive, send)


def aws_client(url: str, service: str = "bedrock-runtime") -> Any:
    """A boto3 client for ``url`` with dummy credentials and no retries."""
    return boto3.client(
        service,
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"total_max_attempts": 1}),
    )


@dataclass
class BedrockEndpoint:
    """A running server and the boto3 clients that talk to it."""

    url: str
    runtime: Any
    control: Any
    _swap: _Swap = field(repr=False)

    def serve(self, provider: FakeProvider) -> FakeProvider:
        """Answer every request with ``provider`` until the next call."""
        self._swap.app = FakeProviderApp(provider)
        return provider

    def chat(self, chat_class: Any, model: str, tool_names: Sequence[str] = ()) -> Any:
        """``chat_class`` (ChatBedrock, ChatBedrockConverse) on these clients, tools bound."""
        llm = chat_class(
            model=model, client=self.runtime, bedrock_client=self.control, region_name="us-east-1"
        )
        schema = {"type": "object", "properties": {}}
        names = sorted(set(tool_names)) or ["noop"]
        return llm.bind_tools(
            [{"name": n, "description": n, "input_schema": schema} for n in names]
        )


@pytest.fixture(scope="module")
def bedrock_endpoint() -> Iterator[BedrockEndpoint]:
    """One server per module (see the module docstring)."""
    swap = _Swap()
    with serve_in_thread(swap) as url:
        runtime, control = aws_client(url, "bedrock-runtime"), aws_client(url, "bedrock")
        try:
            yield BedrockEndpoint(url, runtime, control, swap)
        finally:
            runtime.close()
            control.close()


@pytest.fixture(scope="module")
def chat_models() -> Iterator[ChatModels]:
    """Every dialect's own chat model, one per module (see :class:`ChatModels`)."""
    models = ChatModels()
    try:
        yield models
    finally:
        models.close()
