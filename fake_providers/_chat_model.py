"""A LangChain chat model that streams a dialect's real tool-call chunks, with no HTTP at all.

:class:`FakeToolStreamingModel` plays scripted turns. Each turn (a plan, a
planned stream, a scenario or a rendered wire) is rendered by a dialect and
parsed back with :meth:`Dialect.parse`, so every streamed ``AIMessageChunk``
carries exactly the ``tool_call_chunks`` that dialect's reference adapter
(``ChatOpenAI``, ``ChatAnthropic`` ...) yields for those bytes, message for
message, quirks included. ``parse`` exposes tool chunks only, so the plan's
text rides on the messages that carry no tool chunks (in plan order; a wire
turn has no text), and content is always a string. The stream ends with an
empty ``chunk_position="last"`` chunk carrying ``finish_reason`` (absent when
the plan's finish is ``eof``, as a provider adapter leaves it), and a plan that
finishes with ``error`` raises :class:`FakeStreamError` after its chunks.

Like a provider, the model refuses a request whose history leaves a tool call
unanswered (:class:`FakeHistoryRejected`), and ``bind_tools`` checks that the
bound tools cover the calls the script will make.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LangSmithParams, LanguageModelInput
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr, field_validator

from tooltape.fake_providers._registry import get_dialect
from tooltape.fake_providers._wire import Wire
from tooltape.harness import (
    Deltas,
    Plan,
    PlannedStream,
    Scenario,
    TooltapeAssertionError,
    TooltapeUsageError,
    find_pairing_problems,
    is_repeated_name,
    reference_merge,
)
from tooltape.harness.served_streams import remember_served

__all__ = ["FakeHistoryRejected", "FakeStreamError", "FakeToolStreamingModel", "ScriptedTurn"]

TurnSource = Plan | PlannedStream | Scenario | Wire | bytes
"""What one scripted turn may be given as."""


class FakeStreamError(RuntimeError):
    """The scripted stream carried an error event (plan finish ``error``), as a provider's would."""


class FakeHistoryRejected(ValueError):
    """The request history breaks call/result pairing; a real provider answers 400."""


@dataclass(frozen=True)
class ScriptedTurn:
    """One turn, rendered: the chunks to stream and how the turn ends."""

    deltas: Deltas
    """The dialect adapter's tool-call chunks, one list per streamed message."""
    texts: tuple[str, ...]
    """The text content of each streamed message (same length as ``deltas``)."""
    finish: str
    """The plan's finish (``tool_calls``, ``stop``, ``length``, ``eof``, ``error`` ...)."""
    names: frozenset[str]
    """The tool names the turn means to call (the plan's, or a wire's merged names)."""
    label: str
    """How failure messages name the turn."""


def _place_text(deltas: Deltas, before: str, after: str) -> tuple[Deltas, list[str]]:
    """Spread the plan's text over the messages without tool chunks, before and after the calls.

    Message 0 (a role or ``message_start`` chunk) gets text only when no other slot
    exists; with no slot at all the text rides on the nearest tool message.
    """
    deltas = [list(delta) for delta in deltas] or [[]]
    texts = [""] * len(deltas)
    tool_at = [n for n, delta in enumerate(deltas) if delta]
    if not tool_at:
        _spread(texts, list(range(1, len(deltas))) or [0], before + after)
        return deltas, texts
    first, last = tool_at[0], tool_at[-1]
    _spread(texts, list(range(1, first)) or [0], before)
    _spread(texts, list(range(last + 1, len(deltas))) or [last], after)
    return deltas, texts


def _spread(texts: list[str], slots: list[int], text: str) -> None:
    size, extra = divmod(len(text), len(slots))
    start = 0
    for n, slot in enumerate(slots):
        end = start + size + (1 if n < extra else 0)
        texts[slot] += text[start:end]
        start = end


def _replayed(turn: ScriptedTurn, number: int) -> ScriptedTurn:
    """``turn`` once more, its call ids suffixed ``_r<number>``."""
    deltas = [
        [
            {**chunk, "id": f"{chunk['id']}_r{number}"} if chunk.get("id") else chunk
            for chunk in delta
        ]
        for delta in turn.deltas
    ]
    label = f"{turn.label}, replay {number}"
    return ScriptedTurn(deltas, turn.texts, turn.finish, turn.names, label)  # type: ignore[arg-type]


class FakeToolStreamingModel(BaseChatModel):
    """A chat model that streams scripted tool calls exactly as a dialect's adapter would.

    Example:
        >>> model = FakeToolStreamingModel(
        ...     turns=[get_scenario("repeated_name"), Plan(text_before="Done.")],
        ...     dialect="openai_chat",
        ... )
        >>> agent = create_agent(model, [get_weather])
    """

    model_config = ConfigDict(populate_by_name=True, arbitrary_types_allowed=True)

    turns: Sequence[Any] = ()
    """The scripted turns (one, or a list): plans, planned streams, scenarios, wires, bodies.

    A plan's numbered ids (``call_<n>``) move past the ids earlier turns used, so the
    turns of one conversation never share an id; ids a plan was given are kept.
    """
    dialect: str = "openai_chat"
    """The dialect whose adapter's chunks are streamed."""
    quirks: Sequence[Any] = ()
    """Quirks applied to every plan turn (a scenario's own quirks come first)."""
    seed: int = 0
    """Fixes the quirks' random choices for plan turns."""
    check_tools: bool = True
    """Whether ``bind_tools`` refuses tools that do not cover the scripted calls."""
    check_history: bool = True
    """Whether a request that leaves a tool call unanswered raises :class:`FakeHistoryRejected`."""
    repeat_last: bool = False
    """Replay the last turn forever instead of failing when the script runs out.

    Each replay suffixes the call ids with ``_r<n>``, as a model's fresh ids would
    differ, so only the tool names and arguments repeat.
    """
    model: str = Field(default="tooltape-fake", alias="model_name")
    """The model name reported in metadata and traces."""
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float | None = None
    stop: list[str] | None = None
    max_retries: int = 0
    api_key: SecretStr | None = None
    streaming: bool = False

    @field_validator("turns", mode="before")
    @classmethod
    def _one_turn(cls, value: Any) -> Any:
        return [value] if isinstance(value, TurnSource) else value

    _script: list[ScriptedTurn] = PrivateAttr(default_factory=list)
    _played: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _requests: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    def __init__(self, **kwargs: Any) -> None:
        """Create the model and render every turn now.

        Raises:
            TooltapeUsageError: A turn is of an unknown type, or the dialect cannot
                express its quirks.
        """
        super().__init__(**kwargs)
        # Rendered after pydantic's validation, so a TooltapeUsageError (a ValueError)
        # reaches the caller instead of being wrapped in a ValidationError.
        used: set[str] = set()  # numbered ids move on from turn to turn (Plan.with_fresh_ids)
        self._script = [self._render(n, source, used) for n, source in enumerate(self.turns)]

    # -- the script ---------------------------------------------------------------------

    def _render(self, number: int, source: Any, used: set[str]) -> ScriptedTurn:
        dialect = get_dialect(self.dialect)
        label = f"turn {number + 1}"
        if isinstance(source, (Wire, bytes)):
            body = source.body if isinstance(source, Wire) else source
            deltas = dialect.parse(body)
            merged = frozenset(c["name"] for c in reference_merge(deltas).calls() if c["name"])
            return ScriptedTurn(deltas, ("",) * len(deltas), "tool_calls", merged, label)
        quirks, seed = list(self.quirks), self.seed
        if isinstance(source, Scenario):
            quirks, seed, label = [*source.quirks, *quirks], source.seed, f"{label} ({source.name})"
            source = source.plan
        if not isinstance(source, (Plan, PlannedStream)):
            raise TooltapeUsageError(
                f"{label}: expected a Plan, PlannedStream, Scenario, Wire or bytes, got {source!r}"
            )
        if isinstance(source, Plan):
            source = source.with_fresh_ids(used)
        plan = source.plan if isinstance(source, PlannedStream) else source
        used |= {call.id for call in plan.calls if call.id}
        finish = source.finish if isinstance(source, PlannedStream) else plan.effective_finish
        wire = dialect.render(source, quirks, seed)
        deltas, texts = _place_text(dialect.parse(wire.body), plan.text_before, plan.text_after)
        names = frozenset(call.name for call in plan.calls)
        return ScriptedTurn(deltas, tuple(texts), finish, names, label)

    @property
    def script(self) -> tuple[ScriptedTurn, ...]:
        """The rendered turns."""
        return tuple(self._script)

    @property
    def requests(self) -> tuple[tuple[BaseMessage, ...], ...]:
        """The messages of every call the model answered (or refused), in order."""
        return tuple(tuple(messages) for messages in self._requests)

    @property
    def played(self) -> int:
        """How many turns were streamed."""
        return self._played

    def assert_all_played(self) -> None:
        """Fail when a scripted turn was never requested.

        Raises:
            TooltapeAssertionError: Naming the unplayed turns.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not ours
        left = self._script[self._played :]
        if left and not self.repeat_last:
            labels = ", ".join(turn.label for turn in left)
            raise TooltapeAssertionError(
                f"FakeToolStreamingModel played {self._played} of {len(self._script)} turns; "
                f"never requested: {labels}"
            )

    def _next_turn(self, messages: list[BaseMessage]) -> ScriptedTurn:
        with self._lock:
            self._requests.append(list(messages))
            if self.check_history:
                self._check_history(messages)
            if self._played < len(self._script):
                turn = self._script[self._played]
                self._played += 1
                return turn
            if self.repeat_last and self._script:
                return _replayed(self._script[-1], len(self._requests) - len(self._script))
            raise TooltapeAssertionError(
                f"FakeToolStreamingModel was called {len(self._requests)} times but "
                f"{len(self._script)} turn(s) were scripted; add a turn, or repeat_last=True"
            )

    def _check_history(self, messages: list[BaseMessage]) -> None:
        problems = find_pairing_problems(messages)
        if problems:
            listing = "; ".join(str(p) for p in problems)
            raise FakeHistoryRejected(
                f"the request history breaks tool-call pairing, which every provider "
                f"rejects with a 400: {listing}"
            )

    # -- streaming ------------------------------------------------------------------------

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        turn = self._next_turn(messages)
        remember_served(lambda: turn.deltas)  # assert_merge on the message draws these lanes
        for text, delta in zip(turn.texts, turn.deltas, strict=True):
            yield ChatGenerationChunk(message=AIMessageChunk(content=text, tool_call_chunks=delta))
        if turn.finish == "error":
            raise FakeStreamError(
                f"{turn.label}: the stream carried an error event after "
                f"{len(turn.deltas)} message(s) (plan finish 'error')"
            )
        metadata: dict[str, Any] = {"model_name": self.model, "model_provider": "tooltape"}
        if turn.finish != "eof":
            metadata["finish_reason"] = turn.finish
        last = AIMessageChunk(content="", chunk_position="last", response_metadata=metadata)
        yield ChatGenerationChunk(message=last)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        """Stream the next scripted turn (langchain-core reports each chunk to callbacks)."""
        yield from self._chunks(messages)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """Stream the next scripted turn, natively async."""
        for chunk in self._chunks(messages):
            yield chunk

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Merge the streamed turn, as ``invoke`` on a streaming adapter does."""
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """Async :meth:`_generate`."""
        return await agenerate_from_stream(self._astream(messages, stop, run_manager, **kwargs))

    # -- tools and metadata ---------------------------------------------------------------

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | dict[str, Any] | bool | None = None,
        check_tools: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools (any form ``convert_to_openai_tool`` takes), checking them against the script.

        Args:
            tools: The tools.
            tool_choice: Recorded in the binding's kwargs; the script decides the calls.
            check_tools: Overrides the model's ``check_tools`` for this binding.
            **kwargs: Bound like any other call option.

        Raises:
            TooltapeUsageError: With ``check_tools``, the script calls a tool that is not bound.
        """
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        bound = {tool["function"]["name"] for tool in formatted}
        if self.check_tools if check_tools is None else check_tools:
            self._check_tool_names(bound)
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return super().bind(tools=formatted, **kwargs)

    def _check_tool_names(self, bound: set[str]) -> None:
        for turn in self._script[self._played :]:
            missing = {n for n in turn.names - bound if is_repeated_name(n, bound) is None}
            if missing:
                raise TooltapeUsageError(
                    f"FakeToolStreamingModel {turn.label} calls {', '.join(sorted(missing))}, "
                    f"but the bound tools are [{', '.join(sorted(bound))}]; bind the tools the "
                    "script calls, or pass check_tools=False to script a call to an unknown tool"
                )

    @property
    def _llm_type(self) -> str:
        return "tooltape-fake-tool-streaming"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": self.model, "dialect": self.dialect}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = LangSmithParams(
            ls_provider="tooltape",
            ls_model_name=kwargs.get("model", self.model),
            ls_model_type="chat",
        )
        if self.temperature is not None:
            params["ls_temperature"] = self.temperature
        if self.max_tokens is not None:
            params["ls_max_tokens"] = self.max_tokens
        if stop or self.stop:
            params["ls_stop"] = stop or self.stop
        return params
