"""A saved counterexample fails the same way when replayed through the real adapter."""

import pytest
from _mergers import (
    concatenates_ids,
    correct,
    first_name_wins,
    ignores_message_boundaries,
    strict_json_loads,
)
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import get_scenario, load_cassette, save_counterexample, use_cassette
from tooltape.harness import MergeMismatch, check_merger
from tooltape.harness._assertions import normalize_calls


def raises_on_split_names(deltas):
    """Crashes when a call's name arrives in pieces."""
    if sum(1 for delta in deltas for chunk in delta if chunk.get("name")) > 1:
        raise KeyError("name")
    return correct(deltas)


def _replayed_deltas(path):
    """The tool-call chunks ChatOpenAI streams from the cassette, one list per message."""
    model = ChatOpenAI(model="gpt-4o-mini", api_key=SecretStr("sk-test"), max_retries=0)
    with use_cassette(path):
        chunks = list(model.stream("hi"))
    return [[dict(c) for c in chunk.tool_call_chunks] for chunk in chunks]


def _outcome(merger, deltas):
    try:
        return normalize_calls(merger(deltas))
    except Exception as error:
        return type(error)


CASES = {
    # An unambiguous disagreement (the library's split_name scenario).
    "unambiguous": (first_name_wins, "split_name", "has no hazard"),
    # A disagreement where langchain-core repairs truncated arguments (a hazard).
    "hazard": (strict_json_loads, "truncated_mid_string", "args_repaired"),
    # A merger that raises.
    "raises": (raises_on_split_names, "split_name", "the merger raised KeyError"),
}


@pytest.mark.parametrize("case", CASES)
def test_the_saved_cassette_fails_the_same_way_through_chat_openai(case, tmp_path):
    merger, scenario, said = CASES[case]
    path = tmp_path / "regress.yaml"
    with pytest.raises(MergeMismatch) as error:
        check_merger(
            merger,
            max_examples=5,
            scenarios=[get_scenario(scenario)],
            on_counterexample=save_counterexample(path),
        )
    text = str(error.value)
    assert said in text and f"on_counterexample: saved to {path}" in text
    reference = load_cassette(path).info.reference["tool_calls"]
    deltas = _replayed_deltas(path)
    got = _outcome(merger, deltas)
    assert got != normalize_calls(reference)
    assert got == _outcome(merger, deltas)  # and it stays failing
    if case == "raises":
        assert got is KeyError


def test_a_stream_the_dialect_cannot_carry_is_not_saved(tmp_path):
    # OpenAI Chat sends a role chunk first, so langchain-core's first-message rule
    # never shows there: the packed first message no longer disagrees.
    path = tmp_path / "regress.yaml"
    with pytest.raises(MergeMismatch, match=r"not saved to .*no longer fails the same way"):
        check_merger(
            ignores_message_boundaries,
            max_examples=5,
            scenarios=[get_scenario("packed_first_message")],
            on_counterexample=save_counterexample(path),
        )
    assert not path.exists()


def test_it_never_overwrites_unless_asked(tmp_path):
    path = tmp_path / "regress.yaml"
    path.write_text("keep me")
    with pytest.raises(Exception, match=r"regress\.yaml"):
        check_merger(
            concatenates_ids,
            max_examples=5,
            scenarios=[get_scenario("id_on_every_chunk")],
            on_counterexample=save_counterexample(path),
        )
    assert path.read_text() == "keep me"
