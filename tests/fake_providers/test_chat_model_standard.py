"""langchain-tests' standard unit tests for chat models, run on FakeToolStreamingModel.

langchain-tests pins older vcrpy and syrupy than users get, so it is not in the
``test`` extra: this module skips without it and runs in ``nox -s standard``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooltape.fake_providers._chat_model import FakeToolStreamingModel

unit_tests = pytest.importorskip(
    "langchain_tests.unit_tests",
    reason="langchain-tests is not installed: run nox -s standard, or "
    "pip install -e '.[standard-tests]' in an environment of its own",
)


class TestFakeToolStreamingModelStandard(unit_tests.ChatModelUnitTests):
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
