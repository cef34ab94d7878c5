"""Cross-accumulator differential: one stream, several real accumulators, where they disagree.

A scenario is rendered in each dialect and the same bytes are accumulated by
langchain-core (:func:`~tooltape.harness.reference_merge` of the dialect's
parse, i.e. what the LangChain adapter merges) and by every accumulator the
dialect declares (:attr:`Dialect.accumulators`): openai's
``ChatCompletionStreamState`` and ``ResponseStreamState``, anthropic's
``MessageStream`` (on Anthropic and, through ``AnthropicBedrock``, on Bedrock
invoke), LiteLLM's ``stream_chunk_builder`` when LiteLLM is installed. The SDKs
read the bytes from the matrix engine's fake providers (its ``_Stage``: the
same serving, clients and transports as ``tooltape matrix``), so their real
decoders run; a dialect without an accumulator says why
(:func:`dialects_without_accumulators`).
Each result holds the calls as ``{name, args, id}`` (``args`` that are not a
JSON object stay as the raw value the accumulator left), or the exception it
raised, or why it was skipped.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessageChunk

from tooltape.fake_providers import Wire, dialect_names, get_dialect
from tooltape.fake_providers.dialects.openai_chat import read_chat_stream
from tooltape.fake_providers.integration import Accumulator, installed
from tooltape.fake_providers.raw_turns import raw_turn
from tooltape.harness import (
    Plan,
    Scenario,
    Stage,
    ToolCallDict,
    TooltapeUsageError,
    parse_quirk,
    reference_merge,
    stream_plan,
)
from tooltape.harness.json_text import loads
from tooltape.plugin._engine.run import _Stage, _staged
from tooltape.plugin._engine.subjects import accumulator_adapter
from tooltape.plugin._engine.turns import wire_text

__all__ = [
    "LANGCHAIN",
    "AccumulatorResult",
    "DifferentialRow",
    "differential",
    "differential_dialects",
    "differential_table",
    "dialects_without_accumulators",
    "render_differential",
]

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
    text: str | None = None
    """The turn's visible text as it kept it (langchain-core: the wire's); ``None``: not kept."""

    @property
    def outcome(self) -> Any:
        """A comparable value: the calls (and the text, where kept), or the exception's name."""
        if self.calls is None:
            return ("raised", (self.error or "").split(":")[0])
        return json.dumps(self.calls, sort_keys=True, ensure_ascii=False)

    def verdict(self, expected: list[ToolCallDict], text: str | None = None) -> str:
        """How the result compares with the plan: ``= plan``, ``≠ plan: ...``, ``raised ...``.

        ``text``: the plan's text, compared where the accumulator keeps its text.
        """
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.calls is None:
            return f"raised {self.error}"
        problems = [] if self.calls == expected else [_diff(self.calls, expected)]
        if text is not None and self.text is not None and self.text != text:
            problems.append(_text_diff(self.text, text))
        verdict = f"≠ plan: {'; '.join(problems)}" if problems else "= plan"
        return f"{verdict} (then raised {self.error})" if self.error else verdict


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
    text: str = ""
    """The plan's text: ``text_before`` then ``text_after``."""

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
            if reference.skipped:
                continue
            texts_differ = None not in (result.text, reference.text) and (
                result.text != reference.text and result.calls is not None
            )
            if reference.outcome == result.outcome and not texts_differ:
                continue
            if result.calls is None or reference.calls is None:
                what = f"raised {result.error}" if result.calls is None else "returned calls"
            elif reference.outcome != result.outcome:
                what = _diff(result.calls, reference.calls)
            else:
                what = _text_diff(result.text or "", reference.text or "")
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
            "text": self.text,
            "lossless": self.lossless,
            "results": [
                {
                    "accumulator": r.accumulator,
                    "dialect": r.dialect,
                    "calls": r.calls,
                    "text": r.text,
                    "error": r.error,
                    "skipped": r.skipped,
                    "verdict": r.verdict(self.expected, self.text),
                }
                for r in self.results
            ],
            "disagreements": self.disagreements(),
        }


# -- normalising -----------------------------------------------------------------------------


def _call(name: Any, args: Any, call_id: Any) -> ToolCallDict:
    if isinstance(args, str):
        try:
            parsed = loads(args)
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


def _text_diff(got: str, want: str) -> str:
    return f"text {json.dumps(got, ensure_ascii=False)} vs {json.dumps(want, ensure_ascii=False)}"


def _brief(calls: list[ToolCallDict]) -> str:
    return ", ".join(
        f"{c['name']}({json.dumps(c['args'], ensure_ascii=False)}) id={c['id']!r}" for c in calls
    )


# -- the accumulators --------------------------------------------------------------------------


def differential_dialects() -> tuple[str, ...]:
    """The dialects a differential renders by default: those that declare an accumulator."""
    return tuple(n for n in dialect_names() if get_dialect(n).accumulators)


def dialects_without_accumulators() -> dict[str, str]:
    """Every dialect with no accumulator, and why it has none (its ``no_accumulator``)."""
    return {
        n: get_dialect(n).no_accumulator for n in dialect_names() if not get_dialect(n).accumulators
    }


def _langchain(dialect: str, wire: Wire) -> AccumulatorResult:
    """langchain-core's merge of the dialect's parse; its text is the wire's."""
    resolved = get_dialect(dialect)
    deltas = resolved.parse(wire.body)
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
    said = wire_text(resolved, wire)
    return AccumulatorResult(
        LANGCHAIN, dialect, calls, error, text=None if said is None else said.text
    )


_adapter = functools.cache(accumulator_adapter)
"""One adapter per accumulator and dialect: the stage keys its clients by the adapter's
id, which a new adapter per stream could take over from a collected one (and its client)."""


def _accumulate(
    stage: _Stage, dialect: str, accumulator: Accumulator, wire: Wire
) -> AccumulatorResult:
    """Run ``accumulator`` on ``wire``: its SDK client reads it from the engine's fake provider."""
    adapter = _adapter(accumulator, dialect)
    resolved = get_dialect(dialect)
    client = stage.client(adapter, resolved)
    stage.serve(adapter, resolved, wire)
    made = raw_turn(accumulator.run(client, ()))
    calls = [_call(name, args, call_id) for name, args, call_id in made.calls]
    return AccumulatorResult(accumulator.name, dialect, calls, text=made.text)


def _accumulator_names(dialect: str) -> list[str]:
    return [LANGCHAIN, *(a.name for a in get_dialect(dialect).accumulators)]


def _run_dialect(stage: _Stage, dialect: str, wire: Wire) -> list[AccumulatorResult]:
    results = [_langchain(dialect, wire)]
    for accumulator in get_dialect(dialect).accumulators:
        name = accumulator.name
        missing = [m for m in accumulator.requires if not installed(m)]
        if missing:
            results.append(
                AccumulatorResult(name, dialect, skipped=f"{missing[0]} is not installed")
            )
            continue
        try:
            results.append(_accumulate(stage, dialect, accumulator, wire))
        except Exception as raised:
            message = " ".join(str(raised).split())[:160]
            results.append(
                AccumulatorResult(name, dialect, error=f"{type(raised).__name__}: {message}")
            )
    return results


def differential(
    scenario_or_plan: Scenario | Plan,
    *,
    dialects: Sequence[str] | None = None,
    quirks: Iterable[Any] = (),
    seed: int | None = None,
) -> DifferentialRow:
    """Run one scenario (or plan plus quirks) through every accumulator of every dialect.

    Args:
        scenario_or_plan: A scenario (its quirks come first) or a plan.
        dialects: The dialects to render (default: :func:`differential_dialects`);
            langchain-core reads each, each dialect's declared accumulators read theirs.
        quirks: Extra quirks.
        seed: Fixes the quirks' random choices (default: the scenario's, or 0).

    Returns:
        The row; a dialect that cannot express the quirks gives skipped results.
    """
    with _staged(needs_server=False) as stage:
        return _differential(stage, scenario_or_plan, dialects, quirks, seed)


def _differential(
    stage: _Stage,
    scenario_or_plan: Scenario | Plan,
    dialects: Sequence[str] | None,
    quirks: Iterable[Any] = (),
    seed: int | None = None,
) -> DifferentialRow:
    if isinstance(scenario_or_plan, Scenario):
        name, plan = scenario_or_plan.name, scenario_or_plan.plan
        all_quirks = [*scenario_or_plan.quirks, *quirks]
        seed = scenario_or_plan.seed if seed is None else seed
    else:
        name, plan, all_quirks = "plan", scenario_or_plan, list(quirks)
    seed = 0 if seed is None else seed
    results: list[AccumulatorResult] = []
    for dialect in differential_dialects() if dialects is None else dialects:
        try:
            wire = get_dialect(dialect).render(plan, all_quirks, seed)
        except TooltapeUsageError as error:
            reason = f"{dialect} cannot express it ({' '.join(str(error).split())[:100]}...)"
            results += [
                AccumulatorResult(a, dialect, skipped=reason) for a in _accumulator_names(dialect)
            ]
            continue
        results += _run_dialect(stage, dialect, wire)
    chunk_quirks = [q for q in map(parse_quirk, all_quirks) if q.stage < Stage.EVENTS]
    lossless = stream_plan(plan, chunk_quirks, seed=seed).lossless
    text = plan.text_before + plan.text_after
    return DifferentialRow(name, plan.expected_calls(), lossless, tuple(results), text)


def differential_table(
    scenarios: Iterable[Scenario | Plan], *, dialects: Sequence[str] | None = None
) -> list[DifferentialRow]:
    """:func:`differential` for each scenario, in order (one engine stage serves them all)."""
    with _staged(needs_server=False) as stage:
        return [_differential(stage, scenario, dialects) for scenario in scenarios]


def render_differential(rows: Iterable[DifferentialRow]) -> str:
    """The rows as plain text: per scenario, each accumulator's verdict, then the disagreements."""
    blocks = []
    for row in rows:
        kind = "lossless" if row.lossless else "lossy"
        lines = [f"{row.scenario} ({kind}): plan {_brief(row.expected) or 'no calls'}"]
        width = max((len(r.accumulator) for r in row.results), default=0)
        for result in row.results:
            verdict = result.verdict(row.expected, row.text)
            lines.append(f"  {result.dialect:<18} {result.accumulator:<{width}}  {verdict}")
        lines += [f"  ! {line}" for line in row.disagreements()]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
