"""``run_matrix`` in-process: cell order across preparation blocks, and what a subject emitted.

Cells are rendered, parsed and merged a block at a time before their subjects
stream them; the results, their order and one progress call per cell must not
show it. A subject's warnings and log records are its own: the one handler the
run keeps on the root logger hands each subject only what it logged.
"""

from __future__ import annotations

import logging
import warnings

import pytest

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import get_dialect
from tooltape.harness import Plan
from tooltape.plugin._engine.expectations import Expectation, Expectations
from tooltape.plugin._engine.run import (
    _PREPARED_AHEAD,
    Cell,
    Result,
    _align_generated_ids,
    _prepared,
    _run_subject,
    _staged,
    run_matrix,
)
from tooltape.plugin._engine.subjects import Adapter, Merged, Turn


def test_cells_come_in_scenario_then_dialect_order_across_blocks() -> None:
    scenarios = bundled_scenarios()
    dialects = ["openai_chat", "anthropic_messages"]
    assert len(scenarios) * len(dialects) > _PREPARED_AHEAD  # more than one block
    seen: list[tuple[str, str]] = []

    cells = run_matrix(
        scenarios,
        dialects,
        [],  # no subject: the reference only
        Expectations((), "test"),
        lambda cell: seen.append((cell.scenario.name, cell.dialect)),
    )

    expected = [(s.name, d) for s in scenarios for d in dialects]
    assert [(c.scenario.name, c.dialect) for c in cells] == expected
    assert seen == expected
    rendered = [c for c in cells if not c.skipped]
    assert rendered and all(c.results[0].adapter == "reference" for c in rendered)


def _noisy_subject(message: str) -> Adapter:
    def run(_client: object, _plan: Plan) -> Turn:
        logging.getLogger("some.sdk").warning("bad SSE data: %s", message)
        warnings.warn(f"deprecated: {message}", DeprecationWarning, stacklevel=1)
        return Turn([], [])

    return Adapter("noisy", ("openai_chat",), (), lambda _dialect, _url: None, run)


def test_a_subject_keeps_what_it_logged_and_warned_and_nothing_else() -> None:
    dialect = get_dialect("openai_chat")
    cell, wire = _prepared(get_scenario("parallel_sequential"), dialect)
    assert wire is not None

    with _staged(needs_server=False) as stage:
        logging.getLogger("elsewhere").warning("logged between two subjects")
        first = _run_subject(stage, _noisy_subject("one"), dialect, cell, wire)
        second = _run_subject(stage, _noisy_subject("two"), dialect, cell, wire)

    assert first.warnings == ["bad SSE data: one", "deprecated: one"]
    assert second.warnings == ["bad SSE data: two", "deprecated: two"]
    assert first.status == "differs"  # it merged nothing; the reference has two calls


def _subject_merging(merged: Merged) -> Adapter:
    turn = Turn(*merged)
    return Adapter("fixed", ("openai_chat",), (), lambda _d, _u: None, lambda _c, _p: turn)


@pytest.mark.parametrize("scenario_name", ["parallel_sequential", "missing_id", "late_name"])
def test_a_subject_that_merges_as_the_reference_gets_its_outcome(scenario_name: str) -> None:
    dialect = get_dialect("openai_chat")
    cell, wire = _prepared(get_scenario(scenario_name), dialect)
    assert wire is not None and cell.reference is not None
    reference = cell.results[0]
    valid, invalid = cell.reference_calls

    with _staged(needs_server=False) as stage:
        same = _run_subject(stage, _subject_merging((valid, invalid)), dialect, cell, wire)
        nothing = _run_subject(stage, _subject_merging(([], [])), dialect, cell, wire)

    assert (same.status, same.detail) == (reference.status, reference.detail)
    assert nothing.status == "differs"
    assert nothing.detail.startswith("--- reference\n+++ subject")


def _judged(scenario_name: str, dialect_name: str, merged: Merged) -> tuple[Result, Cell]:
    dialect = get_dialect(dialect_name)
    cell, wire = _prepared(get_scenario(scenario_name), dialect)
    assert wire is not None and cell.reference is not None
    with _staged(needs_server=False) as stage:
        return _run_subject(stage, _subject_merging(merged), dialect, cell, wire), cell


def test_keeping_invalid_what_langchain_core_repaired_is_better_not_worse() -> None:
    # A cut argument: langchain-core's parse_partial_json closes it into {"city": "Pa"}.
    kept = [{"name": "get_weather", "args": '{"city": "Pa', "id": "call_weather_1"}]

    result, cell = _judged("truncated_mid_string", "openai_chat", ([], kept))

    assert cell.reference_calls[0] == [
        {"name": "get_weather", "args": {"city": "Pa"}, "id": "call_weather_1"}
    ]
    assert result.status == "better", result.detail
    assert result.detail.startswith(
        "better than the reference: keeps invalid the arguments langchain-core repaired"
    )
    assert Expectations((), "test").judge("fixed", "openai_chat", "x", "better", None).expected


def test_recovering_the_plan_where_langchain_core_loses_it_is_better() -> None:
    scenario = get_scenario("shared_index_idless")  # langchain-core glues Oslo's args on Paris
    planned = scenario.plan.expected_calls()

    result, cell = _judged("shared_index_idless", "openai_chat", (planned, []))

    assert cell.reference_calls != (planned, [])
    assert result.status == "better"
    assert "recovers the plan, which langchain-core does not" in result.detail


def test_differing_from_both_the_reference_and_the_plan_is_worse() -> None:
    wrong = [{"name": "get_weather", "args": '{"city": "Oslo', "id": "call_weather_1"}]

    result, _cell = _judged("truncated_mid_string", "openai_chat", ([], wrong))

    assert result.status == "differs"


@pytest.mark.parametrize(
    ("message", "expected"),
    [(r"expected value at line \d+", True), (r"^Unterminated", False), (None, True)],
)
def test_a_crash_expectation_can_pin_the_message(message: str | None, expected: bool) -> None:
    entry = Expectation(
        adapter="fixed",
        scenarios=("openai_golden",),
        outcome="crashes",
        error="ValueError",
        message=message,
        reason="a bare JSON error",
    )
    detail = "ValueError: expected value at line 1 column 7"

    verdict = Expectations((entry,), "exp.yaml").judge(
        "fixed", "openai_chat", "openai_golden", "crashes", "ValueError", detail
    )

    assert verdict.expected is expected
    if not expected:
        assert "does not match the message '^Unterminated' exp.yaml expects" in verdict.reason


def test_a_message_that_is_not_a_pattern_is_refused() -> None:
    with pytest.raises(ValueError, match="not a regular expression"):
        Expectation(adapter="fixed", scenarios=("x",), outcome="crashes", message="(", reason="r")


UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"
OTHER = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def _calls(*ids: object) -> Merged:
    return [{"name": "f", "args": {}, "id": call_id} for call_id in ids], []


@pytest.mark.parametrize(
    ("subject", "reference", "aligned"),
    [
        ((None, None), ("", ""), ("", "")),  # "" and None alike: the stream sent no id
        ((None,), (UUID,), (UUID,)),  # the reference minted one, the subject left it out
        (("", ""), (UUID, OTHER), (UUID, OTHER)),  # by position, even when equal
        (("pyd_ai_" + UUID.replace("-", ""),), (None,), (None,)),  # the subject minted it
        ((None,), ("call_1",), (None,)),  # the provider sent it: the subject lost it
        (("null", "null"), (UUID, OTHER), ("null", "null")),  # a made-up constant
        ((None, None), (UUID,), (None, None)),  # counts differ: nothing to pair
    ],
)
def test_ids_no_provider_sent_are_aligned_by_position(
    subject: tuple[object, ...], reference: tuple[object, ...], aligned: tuple[object, ...]
) -> None:
    assert _align_generated_ids(_calls(*subject), _calls(*reference)) == _calls(*aligned)


def test_a_batched_subjects_wires_are_rendered_once_and_read_by_the_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tooltape.plugin._engine import run as matrix_run
    from tooltape.plugin._engine.js_subjects import BatchCell, BatchOutcome

    dialect = get_dialect("anthropic_messages")
    renders: list[str] = []
    render = type(dialect).render

    def counted(self: object, plan: Plan, *args: object, **kwargs: object) -> object:
        renders.append(str(plan.calls[0].name if plan.calls else ""))
        return render(self, plan, *args, **kwargs)  # type: ignore[arg-type]

    batched: list[BatchCell] = []

    def batch(cells: list[BatchCell], _timeout: float | None) -> list[BatchOutcome]:
        batched.extend(cells)
        return [BatchOutcome(([], []), None, 0.0) for _ in cells]

    subject = Adapter(
        "batched", ("anthropic_messages",), (), lambda _d, _u: None, lambda _c, _p: Turn([], []),
        batch=batch,  # type: ignore[arg-type]
    )  # fmt: skip
    monkeypatch.setattr(matrix_run, "adapters", lambda: (subject,))
    monkeypatch.setattr(type(dialect), "render", counted)
    scenarios = [get_scenario("parallel_sequential"), get_scenario("shared_index_idless")]

    cells = run_matrix(scenarios, ["anthropic_messages"], None, Expectations((), "test"))

    assert len(renders) == 2  # once each, for the batch; the cells take the same wires
    assert len(batched) == 1  # the scenario the dialect cannot say is not batched
    assert cells[0].deltas is not None and [r.adapter for r in cells[0].results] == [
        "reference",
        "batched",
    ]
    assert "shared_index cannot be rendered" in cells[1].skipped and not cells[1].results
