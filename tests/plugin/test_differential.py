"""The cross-accumulator differential: the known disagreements between real accumulators, pinned.

Each pin names what one real accumulator does with bytes where the others do
something else; a change in any of them (a new SDK or core release) fails here.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable

import pytest

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import dialect_names
from tooltape.harness import Plan, TooltapeUsageError
from tooltape.plugin._engine.differential import (
    LANGCHAIN,
    DifferentialRow,
    dialects_without_accumulators,
    differential,
    differential_dialects,
    differential_table,
    render_differential,
)

CHAT_STATE = "openai.ChatCompletionStreamState"
MESSAGE_STREAM = "anthropic.MessageStream"
RESPONSE_STATE = "openai.ResponseStreamState"
LITELLM_OPENAI = "litellm.completion (openai/)"
LITELLM_ANTHROPIC = "litellm.completion (anthropic/)"
SDK_DIALECTS = ("anthropic_messages", "bedrock_invoke", "openai_chat", "openai_responses")
"""The dialects whose official SDK merges a stream (the rest have only LiteLLM)."""
HAS_LITELLM = importlib.util.find_spec("litellm") is not None
PYDANTIC_AI = {
    "pydantic_ai.OpenAIChatModel", "pydantic_ai.OpenAIResponsesModel", "pydantic_ai.AnthropicModel"
}  # fmt: skip
"""pydantic-ai's model classes for the SDK dialects."""
HAS_PYDANTIC_AI = importlib.util.find_spec("pydantic_ai") is not None
OPENAI_AGENTS = {"agents.OpenAIChatCompletionsModel", "agents.OpenAIResponsesModel"}
"""The OpenAI Agents SDK's model classes (the subjects extra only)."""
HAS_OPENAI_AGENTS = importlib.util.find_spec("agents") is not None
LIBRARIES = {
    "haystack": {"haystack.OpenAIChatGenerator", "haystack_integrations.AnthropicChatGenerator"},
    "smolagents": {"smolagents.OpenAIServerModel"},
}
"""The Haystack and smolagents accumulators, by the module each needs (pinned in the matrix)."""
INSTALLED_LIBRARIES = {
    name
    for module, names in LIBRARIES.items()
    if importlib.util.find_spec(module)
    for name in names
}


@pytest.fixture(scope="module")
def rows() -> dict[str, DifferentialRow]:
    names = [
        "openai_golden",
        "id_on_every_chunk",
        "repeated_name",
        "shared_index_idless",
        "no_index_whole_calls",
        "truncated_mid_string",
        "parallel_interleaved",
    ]
    table = differential_table(map(get_scenario, names), dialects=SDK_DIALECTS)
    return {row.scenario: row for row in table}


def _sdk_disagreements(row: DifferentialRow) -> list[str]:
    """The official SDKs' helpers' disagreements (the libraries' are pinned apart)."""
    libraries = ("litellm", "pydantic_ai", "agents.", "haystack", "smolagents", "llama_index")
    return [d for d in row.disagreements() if not d.startswith(libraries)]


def test_a_clean_stream_agrees_everywhere(rows: dict[str, DifferentialRow]) -> None:
    row = rows["openai_golden"]
    assert row.agree
    ran = [r for r in row.results if not r.skipped]
    litellm = {LITELLM_OPENAI, LITELLM_ANTHROPIC} if HAS_LITELLM else set()
    assert {r.accumulator for r in ran} == {
        LANGCHAIN, CHAT_STATE, MESSAGE_STREAM, f"{MESSAGE_STREAM} (Bedrock)", RESPONSE_STATE,
        *litellm,
        *(PYDANTIC_AI if HAS_PYDANTIC_AI else ()),
        *(OPENAI_AGENTS if HAS_OPENAI_AGENTS else ()),
        *INSTALLED_LIBRARIES,
    }  # fmt: skip
    assert all(r.calls == row.expected for r in ran)
    assert all(r.verdict(row.expected) == "= plan" for r in ran)


def test_repeated_ids_are_concatenated_by_the_openai_helper(
    rows: dict[str, DifferentialRow],
) -> None:
    """Pinned: ChatCompletionStreamState glues an id sent on every chunk; core keeps one."""
    row = rows["id_on_every_chunk"]
    assert row.result(LANGCHAIN, "openai_chat").calls == row.expected
    ids = [c["id"] for c in row.result(CHAT_STATE).calls or []]
    assert ids[0].startswith("call_paris_01call_paris_01")
    assert ids[1].startswith("call_oslo_02call_oslo_02")
    assert any(
        CHAT_STATE in line and "id 'call_paris_01call" in line for line in row.disagreements()
    )


def test_a_repeated_name_doubles_in_core_and_in_the_openai_helper(
    rows: dict[str, DifferentialRow],
) -> None:
    """Pinned: both concatenate the name: they agree with each other, not with the plan."""
    row = rows["repeated_name"]
    names = {r.accumulator: r.calls[0]["name"] for r in row.results if r.calls}
    names.pop(LITELLM_OPENAI, None)  # LiteLLM keeps the name once: a disagreement of its own
    # Haystack concatenates it too; smolagents keeps the last chunk's (matrix_expectations.yaml)
    assert names.pop("haystack.OpenAIChatGenerator", names[LANGCHAIN]) == names[LANGCHAIN]
    assert names.pop("smolagents.OpenAIServerModel", "get_weather") == "get_weather"
    # pydantic-ai concatenates the name too
    assert names.pop("pydantic_ai.OpenAIChatModel", names[LANGCHAIN]) == names[LANGCHAIN]
    # the Agents SDK's stream handler sets the name from each chunk: it stays whole
    assert names.pop("agents.OpenAIChatCompletionsModel", "get_weather") == "get_weather"
    assert names == {LANGCHAIN: "get_weatherget_weatherget_weather", CHAT_STATE: names[CHAT_STATE]}
    assert names[CHAT_STATE] == names[LANGCHAIN]
    assert _sdk_disagreements(row) == []
    assert "≠ plan: call 0 name 'get_weatherget_weatherget_weather'" in render_differential([row])
    assert row.result(MESSAGE_STREAM).skipped is not None  # Anthropic sends the name once


def test_a_shared_index_glues_two_calls_in_the_openai_helper(
    rows: dict[str, DifferentialRow],
) -> None:
    """Pinned: the helper merges by index alone; core keeps two calls (the second {})."""
    row = rows["shared_index_idless"]
    core = row.result(LANGCHAIN, "openai_chat").calls or []
    assert [c["id"] for c in core] == ["call_paris_01", "call_oslo_02"]
    assert core[1]["args"] == {}
    helper = row.result(CHAT_STATE).calls or []
    assert helper == [
        {
            "name": "get_weatherget_weather",
            "args": '{"city": "Paris"}{"city": "Oslo"}',
            "id": "call_paris_01call_oslo_02",
        }
    ]


def test_a_missing_index_crashes_the_openai_helper(rows: dict[str, DifferentialRow]) -> None:
    """Pinned: with no index the helper indexes its snapshot with None; core keeps both."""
    row = rows["no_index_whole_calls"]
    assert row.result(LANGCHAIN, "openai_chat").calls == row.expected
    helper = row.result(CHAT_STATE)
    assert helper.calls is None
    assert helper.error is not None and helper.error.startswith("TypeError: list indices")
    assert not row.agree


def test_truncated_json_is_read_three_different_ways(rows: dict[str, DifferentialRow]) -> None:
    """Pinned: core repairs ``{"city": "Pa`` to a valid call; the SDKs do not agree with it.

    openai's helper and pydantic-ai (every model class) leave the raw text;
    anthropic's MessageStream parses with jiter's partial mode, which drops the
    unfinished string (on Bedrock invoke too, through AnthropicBedrock); openai's
    Responses helper refuses a stream without ``response.completed``.
    """
    row = rows["truncated_mid_string"]
    for dialect in ("openai_chat", "anthropic_messages", "openai_responses"):
        assert row.result(LANGCHAIN, dialect).calls == [
            {"name": "get_weather", "args": {"city": "Pa"}, "id": "call_weather_1"}
        ]
    assert (row.result(CHAT_STATE).calls or [])[0]["args"] == '{"city": "Pa'
    assert (row.result(MESSAGE_STREAM).calls or [])[0]["args"] == {}
    assert (row.result(f"{MESSAGE_STREAM} (Bedrock)").calls or [])[0]["args"] == {}
    assert row.result(RESPONSE_STATE).error == (
        "RuntimeError: Didn't receive a `response.completed` event."
    )
    if HAS_PYDANTIC_AI:
        for name in PYDANTIC_AI:
            assert (row.result(name).calls or [])[0]["args"] == '{"city": "Pa'
    assert len(_sdk_disagreements(row)) == 4
    assert not row.lossless


def test_interleaved_responses_items_split_in_core_only(rows: dict[str, DifferentialRow]) -> None:
    """Pinned: ChatOpenAI bumps the chunk index at each switch between interleaved items,
    so core splits the two calls into fragments; openai's Responses helper keeps them whole.
    """
    row = rows["parallel_interleaved"]
    assert row.result(RESPONSE_STATE).calls == row.expected
    core = row.result(LANGCHAIN, "openai_responses").calls or []
    assert len(core) > 2
    assert row.result(LANGCHAIN, "openai_chat").calls == row.expected


def test_litellm_is_skipped_cleanly_when_absent(without_modules: Callable[..., None]) -> None:
    """Where LiteLLM is not installed its row says so and the SDK rows still run."""
    without_modules("litellm")
    row = differential(get_scenario("openai_golden"), dialects=["openai_chat"])
    result = row.result(LITELLM_OPENAI)
    assert result.skipped == "litellm is not installed"
    assert result.verdict([]) == "skipped: litellm is not installed"
    assert row.result(CHAT_STATE).calls == row.expected


def test_the_text_report_names_each_accumulator_and_disagreement(
    rows: dict[str, DifferentialRow],
) -> None:
    text = render_differential([rows["openai_golden"], rows["no_index_whole_calls"]])
    lines = text.splitlines()
    assert lines[0].startswith("openai_golden (lossless): plan get_weather(")
    assert any(CHAT_STATE in line and "raised TypeError" in line for line in lines)
    assert any(
        line.startswith(f"  ! {CHAT_STATE} disagrees with {LANGCHAIN} on openai_chat")
        for line in lines
    )
    assert "skipped: anthropic_messages cannot express it" in text


def test_rows_serialise_to_json(rows: dict[str, DifferentialRow]) -> None:
    data = json.loads(json.dumps([row.as_dict() for row in rows.values()]))
    by_name = {row["scenario"]: row for row in data}
    verdicts = [r["verdict"] for r in by_name["no_index_whole_calls"]["results"]]
    assert "raised TypeError: list indices must be integers or slices, not NoneType" in verdicts
    assert by_name["openai_golden"]["disagreements"] == []


def test_a_plan_with_quirks_and_chosen_dialects() -> None:
    plan = Plan(calls=[{"name": "get_time", "args": {}, "id": "call_t"}])
    row = differential(plan, dialects=["openai_chat"], quirks=["empty_args"])
    assert row.scenario == "plan"
    assert {r.dialect for r in row.results} == {"openai_chat"}
    assert row.result(LANGCHAIN).calls == [{"name": "get_time", "args": {}, "id": "call_t"}]
    # the helper leaves "" where no argument text came; json.loads("") would fail
    assert row.result(CHAT_STATE).calls == [{"name": "get_time", "args": "", "id": "call_t"}]
    with pytest.raises(TooltapeUsageError, match="no result for 'nope'"):
        row.result("nope")


def test_every_bundled_scenario_runs() -> None:
    table = differential_table(
        [s for s in bundled_scenarios() if not s.name.startswith("framing")],
        dialects=["openai_chat"],
    )
    assert all(row.result(LANGCHAIN, "openai_chat").skipped is None for row in table)
    disagreeing = {row.scenario for row in table if not row.agree}
    assert {"id_on_every_chunk", "shared_index_idless", "no_index_whole_calls"} <= disagreeing
    assert "openai_golden" not in disagreeing


def test_every_dialect_has_an_accumulator() -> None:
    """The official SDKs' helpers where they exist, and LiteLLM's route for every dialect."""
    assert differential_dialects() == tuple(dialect_names())
    assert dialects_without_accumulators() == {}


def test_anthropic_bedrock_accumulates_the_bedrock_invoke_stream(
    rows: dict[str, DifferentialRow],
) -> None:
    golden = rows["openai_golden"]
    bedrock = golden.result("anthropic.MessageStream (Bedrock)", "bedrock_invoke")
    assert bedrock.skipped is None and bedrock.error is None
    assert bedrock.calls == golden.expected
    assert golden.result(LANGCHAIN, "bedrock_invoke").calls == golden.expected
