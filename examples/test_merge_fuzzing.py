"""Fuzz your own merge function against langchain-core's."""

import json

import pytest

from tooltape.harness import MergeMismatch, check_merger


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


def test_the_index_merger_is_caught():
    with pytest.raises(MergeMismatch, match="subject and reference diverge here"):
        check_merger(merge_by_index, max_examples=50)
