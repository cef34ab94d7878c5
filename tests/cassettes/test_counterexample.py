"""A check_merger counterexample saved as a cassette becomes a regression test."""

import json

import pytest
from hypothesis import strategies as st

from tooltape.cassettes import inspect_cassette, load_cassette, save_counterexample
from tooltape.fake_providers import get_dialect
from tooltape.harness import (
    IdOnEveryChunk,
    MergeMismatch,
    SplitArgs,
    check_merger,
    normalize_calls,
    reference_merge,
)


def id_gluing_merger(deltas):
    """Concatenates every id it sees for an index: a realistic bug."""
    calls = {}
    for delta in deltas:
        for chunk in delta:
            call = calls.setdefault(chunk.get("index"), {"name": "", "args": "", "id": ""})
            call["name"] += chunk.get("name") or ""
            call["args"] += chunk.get("args") or ""
            call["id"] += chunk.get("id") or ""
    return [{**c, "args": json.loads(c["args"] or "{}")} for c in calls.values()]


# Ids on every chunk, arguments in two pieces: a shape every dialect's first
# message leaves alone, so the saved bytes reproduce the failure exactly.
QUIRKS = st.just([SplitArgs(pieces=2), IdOnEveryChunk()])


def test_the_shrunk_stream_is_written_and_still_fails(tmp_path):
    path = tmp_path / "regress.yaml"
    with pytest.raises(MergeMismatch, match=r"the counterexample was saved: .*regress\.yaml"):
        check_merger(
            id_gluing_merger,
            max_examples=50,
            quirks_strategy=QUIRKS,
            on_counterexample=save_counterexample(path),
        )
    cassette = load_cassette(path)
    assert cassette.info.dialect == "openai_chat"
    body = cassette.interactions[0].response.body
    deltas = get_dialect("openai_chat").parse(body)
    # Replaying the saved bytes reproduces the disagreement: a ready regression test.
    assert normalize_calls(id_gluing_merger(deltas)) != normalize_calls(reference_merge(deltas))
    assert inspect_cassette(path).as_dict()["tool_calls"]


def test_it_never_overwrites_unless_asked(tmp_path):
    path = tmp_path / "regress.yaml"
    path.write_text("keep me")
    with pytest.raises(Exception, match=r"regress\.yaml"):
        check_merger(
            id_gluing_merger,
            max_examples=20,
            quirks_strategy=QUIRKS,
            on_counterexample=save_counterexample(path),
        )
    assert path.read_text() == "keep me"
