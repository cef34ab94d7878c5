"""channel_in_name: vLLM's gpt-oss parser leaks ``<|channel|>commentary`` into tool names.

A tool-chunk quirk added in one class: the strategies draw it and every dialect says
it (it needs nothing from a wire) without a line elsewhere.
"""

from __future__ import annotations

import pytest
from hypothesis import find

from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.harness import Plan, parse_quirk, reference_merge, stream_plan
from tooltape.harness.quirks import ChannelInName
from tooltape.harness.strategies import quirk_sets

PLAN = Plan(
    calls=[
        {"name": "query_dataset", "args": {"sql": "select 1"}},
        {"name": "describe_datasets", "args": {}},
    ]
)
LEAKED = ["query_dataset<|channel|>commentary", "describe_datasets<|channel|>commentary"]


def names(calls: list[dict[str, object]]) -> list[object]:
    return [call["name"] for call in calls]


def test_the_merged_names_carry_the_special_token_and_the_stream_is_lossy() -> None:
    stream = stream_plan(PLAN, ["channel_in_name"], seed=1)
    assert not stream.lossless
    assert names(reference_merge(stream).calls()) == LEAKED
    assert names(PLAN.expected_calls()) == ["query_dataset", "describe_datasets"]


@pytest.mark.parametrize("where", ["split_name", "late_name", "whole_call"])
def test_the_token_follows_the_name_wherever_it_rides(where: str) -> None:
    stream = stream_plan(PLAN, [where, "channel_in_name"], seed=4)
    assert names(reference_merge(stream).calls()) == LEAKED


def test_the_suffix_is_a_parameter() -> None:
    quirk = parse_quirk({"kind": "channel_in_name", "suffix": "<|constrain|>json"})
    assert quirk == ChannelInName(suffix="<|constrain|>json")
    stream = stream_plan(PLAN, [quirk], seed=2)
    assert names(reference_merge(stream).calls())[0] == "query_dataset<|constrain|>json"


@pytest.mark.parametrize("name", dialect_names(profiles=True))
def test_every_dialect_and_profile_sends_the_leaked_name(name: str) -> None:
    dialect = get_dialect(name)
    assert "channel_in_name" in dialect.expresses
    deltas = dialect.parse(dialect.render(PLAN, ["channel_in_name"]).body)
    sent = "".join(c.get("name") or "" for delta in deltas for c in delta)
    assert "query_dataset<|channel|>commentary" in sent


def test_quirk_sets_draw_it() -> None:
    drawn = find(
        quirk_sets(kinds=["channel_in_name"]),
        lambda qs: any(q.kind == "channel_in_name" for q in qs),
    )
    assert [q.kind for q in drawn] == ["split_args", "channel_in_name"]
