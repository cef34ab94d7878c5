"""Every dialect declares how its provider meets the outside world, in its own folder.

One test per declaration, parametrized over ``dialect_names()``: a new dialect
that forgets its base URL, sample request, SDK client, chat model or
accumulators (or why it has none) fails here, naming what is missing.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.fake_providers.integration import Integration

DIALECTS = dialect_names()
REQUIRED = (
    "base_url",
    "model",
    "sdk",
    "sdk_stack",
    "chat_model_module",
    "chat_model_class",
    "request_body",
    "sdk_client",
)
"""What each dialect must declare itself (the base class's defaults do not count)."""
TOOLS = [("get_weather", {"type": "object", "properties": {"city": {"type": "string"}}})]


def _owner(cls: type, attribute: str) -> type:
    return next(klass for klass in cls.__mro__ if attribute in klass.__dict__)


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("attribute", REQUIRED)
def test_the_dialect_declares_it_in_its_own_folder(name: str, attribute: str) -> None:
    cls = type(get_dialect(name))
    owner = _owner(cls, attribute)
    assert owner is not Integration, f"{name} does not declare {attribute}"
    folder = cls.__module__.rsplit(".", 1)[0]
    assert owner.__module__.startswith(folder + "."), (
        f"{name} declares {attribute} in {owner.__module__}, outside its folder {folder}"
    )


@pytest.mark.parametrize("name", DIALECTS)
def test_an_accumulator_or_the_reason_there_is_none(name: str) -> None:
    dialect = get_dialect(name)
    assert bool(dialect.accumulators) != bool(dialect.no_accumulator), name
    for accumulator in dialect.accumulators:
        assert accumulator.name and accumulator.subject and accumulator.requires


@pytest.mark.parametrize("name", DIALECTS)
def test_the_sample_request_is_one_the_dialect_accepts(name: str) -> None:
    dialect = get_dialect(name)
    request = dialect.sample_request("What is the weather in Paris?", TOOLS)
    assert "{" not in request.path and dialect.model in request.path + request.body.decode()
    assert dialect.validate(request) is None
    assert "get_weather" in request.body.decode()


@pytest.mark.parametrize("name", DIALECTS)
def test_the_sdk_client_and_chat_model_build_for_the_base_url(name: str) -> None:
    dialect = get_dialect(name)
    assert dialect.base_url is not None
    assert dialect.sdk_stack in ("httpx2", "httpx", "botocore")
    importlib.import_module(dialect.sdk)
    client: Any = dialect.sdk_client(dialect.base_url)
    assert client is not None
    assert importlib.util.find_spec(dialect.chat_model_module) is not None
    model = dialect.chat_model(dialect.base_url)
    assert isinstance(model, BaseChatModel)
    assert type(model).__module__.split(".")[0] == dialect.chat_model_module


@pytest.mark.parametrize("name", ["vllm", "azure", "mistral"])
def test_a_profile_lives_at_its_server_and_speaks_its_base(name: str) -> None:
    profile = get_dialect(name)
    base = get_dialect("openai_chat")
    assert profile.base_url != base.base_url
    assert profile.accumulators == base.accumulators
    assert profile.chat_model_module == base.chat_model_module
    model = profile.chat_model(profile.base_url or "")
    assert str(model.openai_api_base).rstrip("/") == profile.base_url
