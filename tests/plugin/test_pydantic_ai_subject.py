"""pydantic-ai as a matrix subject: a streamed agent run through each of its model classes.

The pydantic-ai column runs the real pydantic-ai (Agent.iter, each model class's
own streaming code, the provider SDKs it drives) against the fake providers.
These cells pin what it does where it matches langchain-core, where it does
better, and where it is worse, so a pydantic-ai release that changes any of
them shows here and in ``tooltape matrix``.
"""

from __future__ import annotations

import pytest

from tooltape.cassettes import get_scenario
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin._engine.run import Cell, Result, _align_generated_ids, run_matrix

pytest.importorskip("pydantic_ai", reason="pydantic-ai is in the subjects extra")

DIALECTS = ["openai_chat", "openai_responses", "anthropic_messages", "gemini", "mistral_native"]
SCENARIOS = ["openai_golden", "truncated_mid_string", "shared_index_idless", "missing_id"]


@pytest.fixture(scope="module")
def cells() -> dict[tuple[str, str], Cell]:
    ran = run_matrix(
        [get_scenario(name) for name in [*SCENARIOS, "framing_close_mid_event"]],
        DIALECTS,
        ["pydantic-ai"],
        load_expectations(),
    )
    return {(cell.scenario.name, cell.dialect): cell for cell in ran}


def _pydantic_ai(cell: Cell) -> Result:
    (result,) = [r for r in cell.results if r.adapter == "pydantic-ai"]
    return result


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_model_class_merges_a_clean_turn_as_the_reference(
    cells: dict[tuple[str, str], Cell], dialect: str
) -> None:
    result = _pydantic_ai(cells["openai_golden", dialect])
    assert (result.status, result.detail) == ("pass", "")


def test_a_cut_argument_stays_invalid_where_langchain_core_repairs_it(
    cells: dict[tuple[str, str], Cell],
) -> None:
    for dialect in ("openai_chat", "openai_responses", "anthropic_messages"):
        result = _pydantic_ai(cells["truncated_mid_string", dialect])
        assert result.status == "better", dialect
        assert '+invalid {"args": "{\\"city\\": \\"Pa"' in result.detail


def test_two_calls_sharing_an_index_are_glued_into_one(
    cells: dict[tuple[str, str], Cell],
) -> None:
    result = _pydantic_ai(cells["shared_index_idless", "openai_chat"])
    assert result.status == "differs"
    assert '"name": "get_weatherget_weather"' in result.detail
    assert result.expected, result.reason  # pinned in matrix_expectations.yaml
    assert "Worse than the reference" in result.reason


def test_minted_ids_are_aligned_and_mistral_s_null_ids_are_not(
    cells: dict[tuple[str, str], Cell],
) -> None:
    gemini = cells["missing_id", "gemini"]
    assert _pydantic_ai(gemini).status == gemini.results[0].status == "pass"
    # langchain-core keeps openai_chat's idless calls idless; the ids pydantic-ai mints pair up
    assert _pydantic_ai(cells["missing_id", "openai_chat"]).status == "better"
    mistral = _pydantic_ai(cells["missing_id", "mistral_native"])
    assert mistral.status == "differs"
    assert '+call {"args": {"city": "Oslo"}, "id": "null"' in mistral.detail


def test_a_dropped_connection_raises_pydantic_ai_s_own_error(
    cells: dict[tuple[str, str], Cell],
) -> None:
    for dialect in DIALECTS:
        result = _pydantic_ai(cells["framing_close_mid_event", dialect])
        assert (result.status, result.error) == ("crashes", "ModelConnectionError"), dialect


def test_every_cell_is_as_the_expectations_file_says(cells: dict[tuple[str, str], Cell]) -> None:
    assert [(k, c.unexpected) for k, c in cells.items() if c.unexpected] == []


def test_an_id_the_subject_minted_for_an_idless_call_is_aligned() -> None:
    minted = "pyd_ai_0f8fad5bd9cb469fa16570867728950e"
    got = ([{"name": "f", "args": {}, "id": minted}], [])
    assert _align_generated_ids(got, ([{"name": "f", "args": {}, "id": None}], [])) == (
        [{"name": "f", "args": {}, "id": None}],
        [],
    )
    # an id the provider sent is the subject's to keep: not aligned away
    sent = ([{"name": "f", "args": {}, "id": "call_1"}], [])
    assert _align_generated_ids(got, sent) == got
