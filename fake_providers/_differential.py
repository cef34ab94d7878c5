"""Cross-accumulator differential: one stream, several real accumulators, where they disagree.

A scenario is rendered in each dialect and the same bytes are accumulated by
every real accumulator that reads that dialect: langchain-core
(:func:`~tooltape.harness.reference_merge` of the dialect's parse, i.e. what
the LangChain adapter merges), openai's ``ChatCompletionStreamState`` and
``ResponseStreamState`` (through ``client.chat.completions.create(stream=True)``
and ``client.responses.stream``), anthropic's ``MessageStream``
(``client.messages.stream``), and LiteLLM's ``stream_chunk_builder`` when
LiteLLM is installed. The SDKs read the bytes over :class:`FakeTransport`, so
their real decoders run. Each result holds the calls as ``{name, args, id}``
(``args`` that are not a JSON object stay as the raw value the accumulator
left), or the exception it raised, or why it was skipped.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers._httpx2_transport import FakeTransport
from tooltape.fake_providers._provider import FakeProvider
from tooltape.fake_providers._registry import get_dialect
from tooltape.fake_providers._wire import Wire
from tooltape.fake_providers.dialects.openai_chat._dialect import read_chat_stream
from tooltape.harness import (
    Plan,
    Scenario,
    Stage,
    ToolCallDict,
    parse_quirk,
    reference_merge,
    stream_plan,
)
from tooltape.harness._errors import TooltapeUsageError

__all__ = [
    "DIFFERENTIAL_DIALECTS",
    "LANGCHAIN",
    "AccumulatorResult",
    "DifferentialRow",
    "differential",
    "differential_table",
    "render_differential",
]

DIFFERENTIAL_DIALECTS = ("openai_chat", "anthropic_messages", "openai_responses")
"""The dialects a differential renders by default: those with an SDK accumulator."""
LANGCHAIN = "langchain-core"
"""The accumulator name of langchain-core's merge (run on every dialect)."""


@dataclass(frozen=True)
class AccumulatorResult:
    """What one accumulator made of one dialect's rendering of a scenario."""

    accumulator: str
    """``langchain-core``, ``openai.ChatCompletionStreamState`` ..."""
    dialect: str
    """The dialect whose bytes it read."""
    calls: list[ToolCallDict] | None = None
    """The accumulated calls in the accumulator's order; ``None`` when it raised or was skipped."""
    error: str | None = None
    """``"<Exception>: <message>"`` when it raised (langchain-core keeps its calls as well)."""
    skipped: str | None = None
    """Why it did not run: the dialect cannot express the scenario, or a package is missing."""

    @property
    def outcome(self) -> Any:
        """A comparable value: the calls, or the exception's name."""
        if self.calls is None:
            return ("raised", (self.error or "").split(":")[0])
        return json.dumps(self.calls, sort_keys=True, ensure_ascii=False)

    def verdict(self, expected: list[ToolCallDict]) -> str:
        """How the result compares with the plan: ``= plan``, ``≠ plan: ...``, ``raised ...``."""
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.calls is None:
            return f"raised {self.error}"
        text = "= plan" if self.calls == expected else f"≠ plan: {_diff(self.calls, expected)}"
        return f"{text} (then raised {self.error})" if self.error else text


@dataclass(frozen=True)
class DifferentialRow:
    """Every accumulator's result for one scenario."""

    scenario: str
    """The scenario's name (``plan`` for a bare plan)."""
    expected: list[ToolCallDict]
    """The plan's calls: what a lossless stream must accumulate to."""
    lossless: bool
    """Whether the quirks keep the plan recoverable (else ``≠ plan`` is expected)."""
    results: tuple[AccumulatorResult, ...] = field(default=())
    """One result per accumulator and dialect."""

    def result(self, accumulator: str, dialect: str | None = None) -> AccumulatorResult:
        """The result of ``accumulator`` (on ``dialect``, needed for langchain-core).

        Raises:
            TooltapeUsageError: No such result in the row.
        """
        for result in self.results:
            if result.accumulator == accumulator and dialect in (None, result.dialect):
                return result
        raise TooltapeUsageError(
            f"no result for {accumulator!r} on {dialect!r}; results: "
            + ", ".join(f"{r.accumulator} ({r.dialect})" for r in self.results)
        )

    def disagreements(self) -> list[str]:
        """Where an accumulator disagrees with langchain-core reading the same bytes."""
        lines = []
        for result in self.results:
            if result.skipped or result.accumulator == LANGCHAIN:
                continue
            reference = self.result(LANGCHAIN, result.dialect)
            if reference.skipped or reference.outcome == result.outcome:
                continue
            if result.calls is None or reference.calls is None:
                what = f"raised {result.error}" if result.calls is None else "returned calls"
            else:
                what = _diff(result.calls, reference.calls)
            lines.append(
                f"{result.accumulator} disagrees with {LANGCHAIN} on {result.dialect}: {what}"
            )
        return lines

    @property
    def agree(self) -> bool:
        """True when every accumulator agrees with langchain-core on every dialect."""
        return not self.disagreements()

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data."""
        return {
            "scenario": self.scenario,
            "expected": self.expected,
            "lossless": self.lossless,
            "results": [
                {
                    "accumulator": r.accumulator,
                    "dialect": r.dialect,
                    "calls": r.calls,
                    "error": r.error,
                    "skipped": r.skipped,
                    "verdict": r.verdict(self.expected),
                }
                for r in self.results
            ],
            "disagreements": self.disagreements(),
        }


# -- normalising -----------------------------------------------------------------------------


def _call(name: Any, args: Any, call_id: Any) -> ToolCallDict:
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            parsed = None
        args = parsed if isinstance(parsed, dict) else args
    return {"name": name, "args": args, "id": call_id}


def _diff(got: list[ToolCallDict], want: list[ToolCallDict]) -> str:
    if len(got) != len(want):
        return f"{len(got)} call(s) instead of {len(want)}: {_brief(got)}"
    for number, (a, b) in enumerate(zip(got, want, strict=True)):
        fields = [
            f"{key} {a[key]!r} vs {b[key]!r}" for key in ("name", "args", "id") if a[key] != b[key]
        ]
        if fields:
            return f"call {number} " + "; ".join(fields)
    return "same calls"


def _brief(calls: list[ToolCallDict]) -> str:
    return ", ".join(
        f"{c['name']}({json.dumps(c['args'], ensure_ascii=False)}) id={c['id']!r}" for c in calls
    )


# -- the accumulators --------------------------------------------------------------------------

_MESSAGES: list[Any] = [{"role": "user", "content": "What is the weather?"}]


def _langchain(dialect: str, wire: Wire) -> tuple[list[ToolCallDict], str | None]:
    deltas = get_dialect(dialect).parse(wire.body)
    calls = []
    for chunk in reference_merge(deltas).chunks:
        made = AIMessageChunk(content="", tool_call_chunks=[chunk]).tool_calls
        if made:
            calls.append({"name": made[0]["name"], "args": made[0]["args"], "id": made[0]["id"]})
        else:
            calls.append(
                {"name": chunk.get("name"), "args": chunk.get("args"), "id": chunk.get("id")}
            )
    error = read_chat_stream(wire.body).error if dialect == "openai_chat" else None
    return calls, error


def _transport(dialect: str, base_url: str, wire: Wire) -> FakeTransport:
    return FakeTransport(FakeProvider(dialect, base_url=base_url).stream(wire))


def _openai_chunks(wire: Wire) -> list[Any]:
    import httpx2
    import openai

    transport = _transport("openai_chat", "http://tooltape.test/v1", wire)
    http_client = httpx2.Client(transport=transport)
    with openai.OpenAI(
        api_key="sk-tooltape",
        base_url="http://tooltape.test/v1",
        http_client=http_client,
        max_retries=0,
    ) as client:
        return list(client.chat.completions.create(model="m", messages=_MESSAGES, stream=True))


def _openai_chat_state(wire: Wire) -> list[ToolCallDict]:
    from openai.lib.streaming.chat import ChatCompletionStreamState

    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for chunk in _openai_chunks(wire):
        state.handle_chunk(chunk)
    calls = state.get_final_completion().choices[0].message.tool_calls or []
    return [
        _call(c.function.name, c.function.arguments, c.id) for c in calls if c.type == "function"
    ]


def _litellm(wire: Wire) -> list[ToolCallDict]:  # pragma: no cover - litellm is not installed here
    import litellm  # type: ignore[import-not-found]

    chunks = [chunk.model_dump() for chunk in _openai_chunks(wire)]
    message = litellm.stream_chunk_builder(chunks).choices[0].message
    return [_call(c.function.name, c.function.arguments, c.id) for c in message.tool_calls or []]


def _anthropic_stream(wire: Wire) -> list[ToolCallDict]:
    import anthropic
    import httpx2

    transport = _transport("anthropic_messages", "http://tooltape.test", wire)
    http_client = httpx2.Client(transport=transport)
    with (
        anthropic.Anthropic(
            api_key="sk-ant-tooltape",
            base_url="http://tooltape.test",
            http_client=http_client,
            max_retries=0,
        ) as client,
        client.messages.stream(model="m", max_tokens=64, messages=_MESSAGES) as stream,
    ):
        message = stream.get_final_message()
    return [_call(b.name, b.input, b.id) for b in message.content if b.type == "tool_use"]


def _responses_stream(wire: Wire) -> list[ToolCallDict]:
    import httpx2
    import openai

    transport = _transport("openai_responses", "http://tooltape.test/v1", wire)
    http_client = httpx2.Client(transport=transport)
    with (
        openai.OpenAI(
            api_key="sk-tooltape",
            base_url="http://tooltape.test/v1",
            http_client=http_client,
            max_retries=0,
        ) as client,
        client.responses.stream(model="m", input="What is the weather?") as stream,
    ):
        response = stream.get_final_response()
    return [
        _call(o.name, o.arguments, o.call_id) for o in response.output if o.type == "function_call"
    ]


Accumulate = Callable[[Wire], list[ToolCallDict]]

_SDK_ACCUMULATORS: dict[str, tuple[tuple[str, str, Accumulate], ...]] = {
    "openai_chat": (
        ("openai.ChatCompletionStreamState", "openai", _openai_chat_state),
        ("litellm.stream_chunk_builder", "litellm", _litellm),
    ),
    "anthropic_messages": (("anthropic.MessageStream", "anthropic", _anthropic_stream),),
    "openai_responses": (("openai.ResponseStreamState", "openai", _responses_stream),),
}
"""Per dialect: (accumulator name, the package it needs, how to run it on a wire)."""


def _accumulator_names(dialect: str) -> list[str]:
    return [LANGCHAIN, *(name for name, _, _ in _SDK_ACCUMULATORS.get(dialect, ()))]


def _run_dialect(dialect: str, wire: Wire) -> list[AccumulatorResult]:
    calls, error = _langchain(dialect, wire)
    results = [AccumulatorResult(LANGCHAIN, dialect, calls, error)]
    for name, package, accumulate in _SDK_ACCUMULATORS.get(dialect, ()):
        if importlib.util.find_spec(package) is None:
            results.append(AccumulatorResult(name, dialect, skipped=f"{package} is not installed"))
            continue
        try:
            results.append(AccumulatorResult(name, dialect, accumulate(wire)))
        except Exception as raised:
            message = " ".join(str(raised).split())[:160]
            results.append(
                AccumulatorResult(name, dialect, error=f"{type(raised).__name__}: {message}")
            )
    return results


def differential(
    scenario_or_plan: Scenario | Plan,
    *,
    dialects: Sequence[str] = DIFFERENTIAL_DIALECTS,
    quirks: Iterable[Any] = (),
    seed: int | None = None,
) -> DifferentialRow:
    """Run one scenario (or plan plus quirks) through every accumulator of every dialect.

    Args:
        scenario_or_plan: A scenario (its quirks come first) or a plan.
        dialects: The dialects to render; langchain-core reads each, the SDK
            accumulators read theirs (Chat Completions, Messages, Responses).
        quirks: Extra quirks.
        seed: Fixes the quirks' random choices (default: the scenario's, or 0).

    Returns:
        The row; a dialect that cannot express the quirks gives skipped results.
    """
    if isinstance(scenario_or_plan, Scenario):
        name, plan = scenario_or_plan.name, scenario_or_plan.plan
        all_quirks = [*scenario_or_plan.quirks, *quirks]
        seed = scenario_or_plan.seed if seed is None else seed
    else:
        name, plan, all_quirks = "plan", scenario_or_plan, list(quirks)
    seed = 0 if seed is None else seed
    results: list[AccumulatorResult] = []
    for dialect in dialects:
        try:
            wire = get_dialect(dialect).render(plan, all_quirks, seed)
        except TooltapeUsageError as error:
            reason = f"{dialect} cannot express it ({' '.join(str(error).split())[:100]}...)"
            results += [
                AccumulatorResult(a, dialect, skipped=reason) for a in _accumulator_names(dialect)
            ]
            continue
        results += _run_dialect(dialect, wire)
    chunk_quirks = [q for q in map(parse_quirk, all_quirks) if q.stage < Stage.EVENTS]
    lossless = stream_plan(plan, chunk_quirks, seed=seed).lossless
    return DifferentialRow(name, plan.expected_calls(), lossless, tuple(results))


def differential_table(
    scenarios: Iterable[Scenario | Plan], *, dialects: Sequence[str] = DIFFERENTIAL_DIALECTS
) -> list[DifferentialRow]:
    """:func:`differential` for each scenario, in order."""
    return [differential(scenario, dialects=dialects) for scenario in scenarios]


def render_differential(rows: Iterable[DifferentialRow]) -> str:
    """The rows as plain text: per scenario, each accumulator's verdict, then the disagreements."""
    blocks = []
    for row in rows:
        kind = "lossless" if row.lossless else "lossy"
        lines = [f"{row.scenario} ({kind}): plan {_brief(row.expected) or 'no calls'}"]
        width = max((len(r.accumulator) for r in row.results), default=0)
        for result in row.results:
            verdict = result.verdict(row.expected)
            lines.append(f"  {result.dialect:<18} {result.accumulator:<{width}}  {verdict}")
        lines += [f"  ! {line}" for line in row.disagreements()]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
