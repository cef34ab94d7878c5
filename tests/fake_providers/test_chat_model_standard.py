"""langchain-tests' standard unit tests for chat models, run on FakeToolStreamingModel."""

from __future__ import annotations

from typing import Any

from langchain_tests.unit_tests import ChatModelUnitTests

from tooltape.fake_providers._chat_model import FakeToolStreamingModel


class TestFakeToolStreamingModelStandard(ChatModelUnitTests):
    """The standard suite; the model takes the standard params (temperature, stop ...)."""

    @property
    def chat_model_class(self) -> type[FakeToolStreamingModel]:
        return FakeToolStreamingModel

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"model": "tooltape-fake", "dialect": "openai_chat"}

    @property
    def returns_usage_metadata(self) -> bool:
        return False
