"""Fuzz your own merge function against langchain-core's."""

import json

import pytest

from tooltape.harness import MergeMismatch, check_merger, merger_property, reference_merge


def merge_by_index(deltas):
    """A hand-written merger: join fragments by index, as many agent frameworks do."""
    calls = {}
    for delta in deltas:
        for chunk in delta:
            call = calls.setdefault(chunk["index"], {"name": "", "args": "", "id": None})
            call["name"] += chunk.get("name") or ""
            call["args"] += chunk.get("args") or ""
            call["id"] = call["id"] or chunk.get("id")
    return [
        {"name": c["name"], "args": json.loads(c["args"] or "{}"), "id": c["id"]}
        for c in calls.values()
    ]


def test_the_index_merger_is_caught_on_every_run():
    # The library's scenarios run first, so this never depends on luck.
    with pytest.raises(MergeMismatch, match="the difference is the merger's") as error:
        check_merger(merge_by_index, max_examples=20)
    assert "reproduce:" in str(error.value)


def langchain_merge(deltas):
    """The reference itself: a merger that defers to langchain-core."""
    return reference_merge(deltas).calls()


# The same check as a plain Hypothesis test: pytest, pytest-xdist and HypoFuzz
# (`hypothesis fuzz -- examples/test_merge_fuzzing.py`) collect it; your
# settings profile decides how many streams it draws.
test_langchain_merge = merger_property(langchain_merge)
