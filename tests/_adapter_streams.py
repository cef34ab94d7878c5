"""Shared helpers for the tests that stream through a dialect's real LangChain adapter.

``stream_chat`` and ``astream_chat`` serve a wire to the dialect's own chat model
(``Dialect.chat_model()``) and return what it yielded with the error that ended it;
``collect`` and ``acollect`` do the reading for any chat model, so a test can pin
both; ``adapter_messages`` drops the empty closing chunk that langchain-core (not
the adapter) appends, so the rest lines up one-to-one with a dialect's parsed
deltas; ``assert_merges_as_parsed`` holds an adapter's chunks to those deltas and
to langchain-core's reference merge; ``by_position`` names the ids adapters mint at
random by their order, so they compare with parse's stand-ins.
``renderable_scenarios`` and ``wire_quirk_kinds`` are the parametrize tables the
per-dialect and contract tests derive from the registries.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import operator
import re
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import Wire, get_dialect
from tooltape.fake_providers.integration import installed
from tooltape.harness import Deltas, Scenario, Stage, TooltapeUsageError, reference_merge
from tooltape.harness._quirks import _REGISTRY

Caught = type[BaseException] | tuple[type[BaseException], ...]


def collect(
    open_stream: Callable[[], Iterator[AIMessageChunk]], raises: Caught = Exception
) -> tuple[list[AIMessageChunk], BaseException | None]:
    """The chunks ``open_stream()`` yields, and the ``raises`` error that ended it, if any."""
    chunks: list[AIMessageChunk] = []
    try:
        chunks.extend(open_stream())
    except raises as error:  # the caller pins what was raised
        return chunks, error
    return chunks, None


async def acollect(
    open_stream: Callable[[], AsyncIterator[AIMessageChunk]], raises: Caught = Exception
) -> tuple[list[AIMessageChunk], BaseException | None]:
    """:func:`collect` for ``astream``."""
    chunks: list[AIMessageChunk] = []
    try:
        async for chunk in open_stream():
            chunks.append(chunk)
    except raises as error:
        return chunks, error
    return chunks, None


def served_chat_model(dialect: str, wire: Wire, session: Any) -> Any:
    """``dialect``'s own chat model, served ``wire`` by a provider of ``session`` (a FakeSession).

    Skips when the dialect's LangChain package is not installed.
    """
    module = get_dialect(dialect).chat_model_module
    if module and not installed(module):
        pytest.skip(f"{module} is not installed: pip install -e '.[test]'")
    provider = session.provider(dialect)
    provider.stream(wire)
    return provider.chat_model()


def stream_chat(dialect: str, wire: Wire) -> tuple[list[AIMessageChunk], BaseException | None]:
    """``wire`` read through ``dialect``'s chat model's ``stream()`` over the plugin's fakes.

    The plugin's :class:`FakeSession` routes httpx2, httpx or botocore (over
    127.0.0.1), as the dialect's ``sdk_stack`` says.
    """
    from tooltape.plugin._fakes import FakeSession

    session = FakeSession()
    try:
        return collect(lambda: served_chat_model(dialect, wire, session).stream("hi"))
    finally:
        session.close(check=False)


async def astream_chat(
    dialect: str, wire: Wire
) -> tuple[list[AIMessageChunk], BaseException | None]:
    """:func:`stream_chat` through ``astream()``."""
    from tooltape.plugin._fakes import FakeSession

    session = FakeSession()
    try:
        return await acollect(lambda: served_chat_model(dialect, wire, session).astream("hi"))
    finally:
        session.close(check=False)


class ChatModels:
    """Each dialect's own chat model, built once and served by one FakeSession until :meth:`close`.

    Building a chat model can cost a second (boto3 clients); a module streams
    hundreds of wires, so it keeps one model and one provider per dialect and
    queues each wire as the provider's next turn.
    """

    def __init__(self) -> None:
        from tooltape.plugin._fakes import FakeSession

        self.session = FakeSession()
        self._served: dict[str, tuple[Any, Any]] = {}

    def _served_model(self, dialect: str, wire: Wire) -> Any:
        if dialect not in self._served:
            module = get_dialect(dialect).chat_model_module
            if module and not installed(module):
                pytest.skip(f"{module} is not installed: pip install -e '.[test]'")
            provider = self.session.provider(dialect)
            self._served[dialect] = (provider, provider.chat_model())
        provider, model = self._served[dialect]
        assert provider.played == provider.scripted, "an earlier turn was left unplayed"
        provider.stream(wire)
        return model

    def _check_played(self, dialect: str) -> None:
        provider, _ = self._served[dialect]
        assert provider.played == provider.scripted, f"{dialect}'s chat model never asked"

    def stream(self, dialect: str, wire: Wire) -> tuple[list[AIMessageChunk], BaseException | None]:
        """``wire`` read through ``dialect``'s chat model's ``stream()``."""
        model = self._served_model(dialect, wire)
        result = collect(lambda: model.stream("hi"))
        self._check_played(dialect)
        return result

    async def astream(
        self, dialect: str, wire: Wire
    ) -> tuple[list[AIMessageChunk], BaseException | None]:
        """``wire`` read through ``dialect``'s chat model's ``astream()``."""
        model = self._served_model(dialect, wire)
        result = await acollect(lambda: model.astream("hi"))
        self._check_played(dialect)
        return result

    def close(self) -> None:
        """Stop serving."""
        self.session.close(check=False)


def same(items: Any) -> Any:
    """``items`` as they are: the alignment for adapters that stream the wire's own ids."""
    return items


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """langchain-core's n-ary merge of ``chunks`` (``+``, as a consumer does)."""
    return functools.reduce(operator.add, chunks)


def assert_merges_as_parsed(
    chunks: list[AIMessageChunk], parsed: Deltas, align: Callable[[Any], Any] = same
) -> Any:
    """The adapter's ``chunks`` are ``parsed``, delta for delta, and merge as the reference does.

    ``align`` (:func:`same` or :func:`by_position`) is applied to both sides first.
    Returns :func:`~tooltape.harness.reference_merge` of ``parsed``, for the caller's
    checks against the plan.
    """
    assert align([c.tool_call_chunks for c in adapter_messages(chunks)]) == align(parsed)
    reference = reference_merge(parsed)
    if chunks:
        message = merged(chunks)
        assert align(message.tool_calls) == align(reference.tool_calls)
        assert align(message.invalid_tool_calls) == align(reference.invalid_tool_calls)
    return reference


def named(error: BaseException | None) -> str | None:
    """``error`` as a dialect reading reports it (``"Type: message"``), ``None`` for none."""
    return None if error is None else f"{type(error).__name__}: {error}"


def rendered(dialect: str, scenario: Scenario) -> Wire | None:
    """``scenario`` rendered by ``dialect`` at its seed (``None``: the dialect cannot say it)."""
    try:
        return get_dialect(dialect).render(scenario.plan, scenario.quirks, scenario.seed)
    except TooltapeUsageError:
        return None


def renderable_scenarios(dialect: str) -> list[Any]:
    """The bundled scenarios ``dialect`` can render, as parameters named after them."""
    return [
        pytest.param(scenario, id=scenario.name)
        for scenario in bundled_scenarios()
        if rendered(dialect, scenario) is not None
    ]


def wire_quirk_kinds() -> list[str]:
    """Every registered WIRE quirk (the framing modules register them when imported)."""
    for module in ("_framing", "_sse_quirks"):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"tooltape.fake_providers.{module}")
    kinds = sorted(kind for kind, cls in _REGISTRY.items() if cls.stage is Stage.WIRE)
    assert kinds, "no WIRE quirks registered"
    return kinds


def adapter_messages(chunks: list[AIMessageChunk]) -> list[AIMessageChunk]:
    """``chunks`` without the empty ``chunk_position="last"`` chunk langchain-core appends."""
    if chunks and _appended_by_langchain_core(chunks[-1]):
        return chunks[:-1]
    return chunks


def _appended_by_langchain_core(chunk: AIMessageChunk) -> bool:
    return (
        chunk.chunk_position == "last"
        and not chunk.content
        and not chunk.tool_call_chunks
        and not chunk.response_metadata
    )


MINTED_ID = re.compile(
    r"[0-9a-f]{8}(-?)[0-9a-f]{4}(?:\1)4[0-9a-f]{3}\1[89ab][0-9a-f]{3}\1[0-9a-f]{12}$"
)
"""An id an adapter mints: a uuid4, dashed (ChatOllama, ChatCohere) or ``.hex`` (ChatMistralAI)."""


def quirk_id(quirks: list[Any]) -> str:
    """A parametrize id for a quirk list: the kinds joined by ``+`` (``none`` when empty)."""
    return "+".join(q if isinstance(q, str) else q["kind"] for q in quirks) or "none"


def by_position(items: Any) -> Any:
    """``items`` with every minted id (:data:`MINTED_ID`) named by its order of first appearance.

    Adapters mint random ids where the wire has none and a dialect's parse mints
    deterministic stand-ins; compared by position, the two agree.
    """
    names: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, str) and MINTED_ID.match(value):
            return names.setdefault(value, f"<minted {len(names)}>")
        return value

    return walk(items)


def without_ids(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls' names and arguments only."""
    return [{"name": c["name"], "args": c["args"]} for c in calls]
