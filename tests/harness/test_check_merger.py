"""check_merger against a correct merger and five realistic buggy ones."""

import json

import pytest
from langchain_core.utils.json import parse_partial_json

from tooltape.harness import MergeMismatch, check_merger, check_rechunking


def _finish(merged, strict):
    calls = []
    for chunk in merged:
        text = chunk["args"] or ""
        try:
            args = (json.loads(text) if strict else parse_partial_json(text)) if text else {}
        except ValueError:
            continue
        if isinstance(args, dict):
            calls.append({"name": chunk["name"] or "", "args": args, "id": chunk["id"]})
    return calls


def make_merger(
    *, id_check=True, concat_ids=False, overwrite_args=False, flatten_first=False, strict=False
):
    """A hand-written merger in the style of many agent frameworks, with one switchable bug."""

    def merge(deltas):
        merged = []
        for number, delta in enumerate(deltas):
            for chunk in delta:
                index, target = chunk.get("index"), None
                if (number > 0 or flatten_first) and isinstance(index, int):
                    for candidate in merged:
                        same_call = (
                            not id_check
                            or None in (candidate["id"], chunk.get("id"))
                            or ""
                            in (
                                candidate["id"],
                                chunk.get("id"),
                            )
                            or candidate["id"] == chunk.get("id")
                        )
                        if candidate["index"] == index and same_call:
                            target = candidate
                            break
                if target is None:
                    merged.append({k: chunk.get(k) for k in ("name", "args", "id", "index")})
                    continue
                for key in ("name", "args", "id"):
                    value = chunk.get(key)
                    if value is None:
                        continue
                    if target[key] is None:
                        target[key] = value
                    elif key == "id" and target[key] == value and not concat_ids:
                        continue
                    elif key == "args" and overwrite_args:
                        target[key] = value
                    else:
                        target[key] += value
        return _finish(merged, strict)

    return merge


def test_a_correct_merger_passes():
    check_merger(make_merger(), max_examples=150)


@pytest.mark.parametrize(
    "bug",
    [
        pytest.param({"id_check": False}, id="keyed-by-index-only"),
        pytest.param({"concat_ids": True}, id="ids-concatenated"),
        pytest.param({"overwrite_args": True}, id="args-overwritten"),
        pytest.param({"strict": True}, id="strict-json-loads"),
        pytest.param({"flatten_first": True}, id="first-message-flattened"),
    ],
)
def test_realistic_bugs_are_caught_with_a_shrunk_counterexample(bug):
    with pytest.raises(MergeMismatch) as error:
        check_merger(make_merger(**bug), max_examples=100)
    text = str(error.value)
    assert text.startswith("tooltape: the merger disagrees with langchain-core")
    assert "msg │ index" in text
    assert "← subject and reference diverge here" in text
    assert "--- expected" in text and "+++ subject" in text
    assert "quirks: " in text and "seed: " in text


def test_a_crashing_merger_is_reported_with_the_exception():
    correct = make_merger()

    def crashes_on_packed_messages(deltas):
        if any(len(delta) > 1 for delta in deltas):
            raise ValueError("expected one chunk per message")
        return correct(deltas)

    with pytest.raises(MergeMismatch) as error:
        check_merger(crashes_on_packed_messages, max_examples=50)
    text = str(error.value)
    assert "the merger raised ValueError: expected one chunk per message" in text
    assert "pack_fragments(size=2)" in text  # shrunk to the smallest packing


def test_rechunking_property_passes_a_correct_merger():
    check_rechunking(make_merger(), max_examples=60)


def test_rechunking_property_catches_a_merger_that_keys_on_ids():
    def keyed_by_id(deltas):
        calls, last = {}, None
        for delta in deltas:
            for chunk in delta:
                last = chunk.get("id") or last
                call = calls.setdefault(last, {"name": "", "args": "", "id": last})
                call["name"] += chunk.get("name") or ""
                call["args"] += chunk.get("args") or ""
        return [{**c, "args": json.loads(c["args"] or "{}")} for c in calls.values()]

    with pytest.raises(MergeMismatch, match="diverge here"):
        check_rechunking(keyed_by_id, max_examples=100)
