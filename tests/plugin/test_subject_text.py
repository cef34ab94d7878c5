"""The matrix judges a turn's text and the order of its parts, not only its calls.

Hand-written subjects read an OpenAI Chat stream themselves and report a
:class:`Turn`: one keeps every part in place, one drops the text sent after the
tool call, one moves the text after the call. ``text_around_call`` sends text
before and after the call.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _adapter_streams import rendered

from tooltape.cassettes import bundled_scenarios, get_scenario
from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.harness import TooltapeAssertionError
from tooltape.plugin import Subject, Turn, check_subject, differential
from tooltape.plugin._engine.expectations import Expectations
from tooltape.plugin._engine.run import Cell, is_lossless, run_matrix
from tooltape.plugin._engine.subjects import message_text
from tooltape.plugin._engine.turns import Text, plan_text, wire_text
from tooltape.plugin._subjects import as_adapter


def _read(base_url: str, tools: list[dict[str, Any]], mode: str) -> Turn:
    """Stream a chat completion; the calls, the texts before and after them, and the order."""
    body = {"model": "m", "stream": True, "tools": tools, "messages": []}
    calls: dict[int, dict[str, Any]] = {}
    before: list[str] = []
    after: list[str] = []
    kinds: list[str] = []
    with httpx.stream("POST", base_url + "/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices", []):
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    (after if calls else before).append(delta["content"])
                    kinds.append("text")
                for part in delta.get("tool_calls") or []:
                    kinds.append("call")
                    new = {"name": "", "args": "", "id": None}
                    call = calls.setdefault(part.get("index", 0), new)
                    call["id"] = call["id"] or part.get("id")
                    function = part.get("function") or {}
                    call["name"] += function.get("name") or ""
                    call["args"] += function.get("arguments") or ""
    made = [calls[index] for index in sorted(calls)]
    if mode == "drops_text_after":
        return Turn.of(made, text="".join(before), parts=kinds[: kinds.index("call") + 1])
    if mode == "moves_text_after":  # all the text, said before the call
        return Turn.of(made, text="".join(before + after), parts=["text", "call"])
    return Turn.of(made, text="".join(before + after), parts=kinds)


def _subject(mode: str) -> Subject:
    return Subject(mode.replace("_", "-"), ("openai_chat",), lambda url, t: _read(url, t, mode))


def _cell(mode: str, scenario: str = "text_around_call") -> Cell:
    subject = _subject(mode)
    (cell,) = run_matrix(
        [get_scenario(scenario)], ["openai_chat"], ["reference", subject.name],
        Expectations((), "test"), extra=[as_adapter(subject)],
    )  # fmt: skip
    return cell


def test_a_subject_that_keeps_the_text_and_its_place_is_as_the_reference() -> None:
    cell = _cell("keeps")

    assert [(r.adapter, r.status) for r in cell.results] == [
        ("reference", "pass"),
        ("keeps", "pass"),
    ]
    assert check_subject(_subject("keeps"), scenarios=["text_around_call", "tool_after_text"]) == []


def test_a_subject_that_drops_the_text_after_the_call_is_worse_and_the_message_names_it() -> None:
    result = _cell("drops_text_after").results[1]

    assert result.status == "differs"
    assert result.detail.startswith(
        'text: the reference has "Let me check the weather. I will tell you what it says.", '
        'the subject "Let me check the weather."'
    )
    assert '-text "Let me check the weather. I will tell you what it says."' in result.detail
    assert "+parts (text, call)" in result.detail
    with pytest.raises(
        TooltapeAssertionError, match="text_around_call x openai_chat: differs: text"
    ):
        check_subject(_subject("drops_text_after"), scenarios=["text_around_call"])


def test_a_subject_that_moves_the_text_after_the_call_before_it_is_worse_on_the_order() -> None:
    result = _cell("moves_text_after").results[1]

    assert result.status == "differs"
    assert result.detail.startswith(
        "parts: the reference has (text, call, text), the subject (text, call)"
    )
    # where no text follows the call, the same order is the stream's: as the reference
    assert _cell("moves_text_after", "tool_after_text").results[1].status == "pass"


def test_a_subject_that_reports_calls_only_is_not_judged_on_text() -> None:
    def calls_only(url: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        turn = _read(url, tools, "drops_text_after")
        return [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in turn.valid]

    subject = Subject("calls-only", ("openai_chat",), calls_only)
    assert check_subject(subject, scenarios=["text_around_call"]) == []


def test_the_wire_is_read_only_for_a_turn_that_is_not_the_plans_and_then_dropped() -> None:
    said = "Let me check the weather. I will tell you what it says."
    kept, dropped = _cell("keeps"), _cell("drops_text_after")

    assert kept.plan_text == Text(said, ("text", "call", "text"))
    assert kept.wire is None and kept.reference_text is None  # never read: it kept the plan
    assert dropped.wire is None and dropped.reference_text == kept.plan_text


def test_every_lossless_bundled_wire_carries_the_plans_text() -> None:
    # What lets a turn with the plan's text skip reading the wire (and the reference's text
    # be the wire's): a dialect that loses or invents text in a lossless cell fails here.
    checked = []
    for dialect in map(get_dialect, dialect_names(profiles=True)):
        for scenario in bundled_scenarios():
            if not is_lossless(scenario, dialect):
                continue
            wire = rendered(dialect.name, scenario)
            if wire is None:
                continue
            said = wire_text(dialect, wire)
            where = f"{scenario.name} x {dialect.name}"
            assert said is not None and said.text == plan_text(scenario.plan).text, where
            checked.append(where)
    assert len(checked) > 300


@pytest.mark.parametrize(
    ("content", "text", "parts"),
    [
        ("plain", "plain", None),
        ([{"type": "text", "text": "a", "index": 0}, {"type": "text", "text": "b"}], "ab", None),
        (
            [
                {"type": "thinking", "thinking": "hm"},
                {"type": "text", "text": "a"},
                {"type": "tool_use", "id": "t", "name": "f", "input": {}},
                {"type": "text", "text": "b"},
            ],
            "ab",
            ("text", "call", "text"),
        ),
    ],
)
def test_a_langchain_message_gives_its_text_and_the_order_its_blocks_keep(
    content: Any, text: str, parts: tuple[str, ...] | None
) -> None:
    assert message_text(content) == (text, parts)


def test_the_differential_shows_a_text_an_accumulator_lost() -> None:
    row = differential(
        get_scenario("text_around_call"), dialects=["openai_chat", "anthropic_messages"]
    )

    ran = [r for r in row.results if not r.skipped]
    assert {r.accumulator for r in ran} >= {"langchain-core", "openai.ChatCompletionStreamState"}
    assert {r.text for r in ran} == {"Let me check the weather. I will tell you what it says."}
    assert row.as_dict()["text"] == ran[0].text and row.agree
    assert all(r.verdict(row.expected, "Lost.").endswith('vs "Lost."') for r in ran)
