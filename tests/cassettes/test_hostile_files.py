"""Hostile files: 30 inputs an attacker (or a corrupt disk) could hand tooltape.

Each gives a clean one-line error naming the file (and interaction and event where
there is one) or a visible warning on the inspection, never a traceback, never a
silent "no tool calls", and stays within 100 MB of traced memory. The 30 milder
bad inputs live in test_bad_input.py; the shared builders in conftest.py.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _hostile import (
    bomb_in,
    cassette_text,
    deep_eventstream_body,
    dialect_body,
    golden_data,
    many_calls_cassette,
    write_cassette,
)

from tooltape.cassettes import generate_library, inspect_cassette, load_cassette
from tooltape.cassettes._inspect import inspect_body
from tooltape.harness import TooltapeUsageError
from tooltape.plugin.cli import main

DEEP = "[" * 100_000
HUGE = "9" * 5_000
MB = 1_000_000


def _file(tmp: Path, text: str | bytes, name: str = "bad.yaml") -> Path:
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def _load_text(text: str) -> Callable[[Path], Any]:
    return lambda tmp: load_cassette(_file(tmp, text))


def _sse_body(body: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        data = golden_data()
        data["interactions"][0]["response"]["body"]["string"] = body
        data["interactions"][0]["response"].pop("tooltape", None)  # its read offsets
        return inspect_cassette(write_cassette(tmp / "bad.yaml", data))

    return run


def _chunk(delta_or_payload: Any, whole: bool = False) -> str:
    payload = delta_or_payload if whole else {"choices": [{"index": 0, "delta": delta_or_payload}]}
    return f"data: {json.dumps(payload)}\n\n"


def _dialect(dialect: str, mutate: Callable[[Any], Any]) -> Callable[[Path], Any]:
    return lambda tmp: inspect_body(dialect_body(dialect, mutate), dialect, source=str(tmp / "b"))


def _set(path: str, value: Any) -> Callable[[Any], Any]:
    """Set a dotted path (``a.0.b``) in an event payload."""

    def mutate(payload: Any) -> Any:
        target = payload
        *keys, last = [int(k) if k.isdigit() else k for k in path.split(".")]
        for key in keys:
            target = target[key]
        target[last] = value
        return payload

    return mutate


def _deep_eventstream(tmp: Path) -> Any:
    return inspect_body(deep_eventstream_body(), "bedrock_converse", source=str(tmp / "b"))


def _scenarios(text: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        path = _file(tmp, text, "scenarios.yaml")
        return generate_library(tmp / "lib", scenarios_file=path, dialects=["openai_chat"])

    return run


def _serve(script: str) -> Callable[[Path], Any]:
    def run(tmp: Path) -> Any:
        path = _file(tmp, script, "turns.yaml")
        main(["serve", "--script", str(path), "--port", "0", "--max-requests", "1"])

    return run


_WHOLE = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}

CASES: list[tuple[str, Callable[[Path], Any], str]] = [
    # YAML alias bombs (billion laughs) in every field of a cassette
    *[
        (f"bomb in {field}", _load_text(bomb_in(field)), "an alias bomb?")
        for field in ("uri", "method", "headers", "body", "status", "response_headers", "string")
    ],
    ("bomb in metadata", _load_text(alias_bomb := bomb_in("uri")), "expand it to more than"),
    ("alias cycle", _load_text("a: &a [*a]\n" + cassette_text()), "an alias bomb?"),
    ("5,000-digit status", _load_text(cassette_text(status=HUGE)), "4300 digits"),
    ("deep YAML", _load_text(DEEP), "exceeded maximum nesting depth"),
    # huge integers and deep nesting wherever JSON is parsed
    ("huge int event", _sse_body(f'data: {{"n": {HUGE}}}\n\n'), "event 0: data is not JSON"),
    ("deep event", _sse_body(f"data: {DEEP}\n\n"), "event 0: data is not JSON (it nests too deep)"),
    (
        "deep ndjson line",
        lambda tmp: inspect_body(b'{"a": 1}\n' + DEEP.encode() + b"\n", "ollama"),
        "event 1: data is not JSON (it nests too deep)",
    ),
    (
        "deep eventstream payload",
        _deep_eventstream,
        "cannot read the body (RecursionError: nested too deep to read)",
    ),
    (
        "deep arguments",
        _sse_body(
            _chunk({"tool_calls": [{**_WHOLE, "function": {"name": "f", "arguments": DEEP}}]})
        ),
        "invalid_call",
    ),
    (
        "huge int arguments",
        _sse_body(
            _chunk({"tool_calls": [{**_WHOLE, "function": {"name": "f", "arguments": HUGE}}]})
        ),
        "invalid_call",
    ),
    # structurally wrong events, every dialect
    (
        "chat choices not a list",
        _sse_body(_chunk({"choices": {"0": {}}}, whole=True)),
        "choices is an object, expected list",
    ),
    (
        "chat tool_calls not a list",
        _sse_body(_chunk({"tool_calls": _WHOLE})),
        "tool_calls is an object, expected list",
    ),
    (
        "chat index a string",
        _sse_body(_chunk({"tool_calls": [{**_WHOLE, "index": "0"}]})),
        "tool_calls[0].index is a string, expected int",
    ),
    (
        "chat event not an object",
        _sse_body(_chunk([1, 2], whole=True)),
        "the event is a list, expected a JSON object",
    ),
    (
        "anthropic index a string",
        _dialect("anthropic_messages", _set("index", "0")),
        "index is a string",
    ),
    (
        "responses item a string",
        _dialect("openai_responses", _set("item", "fc")),
        "item is a string",
    ),
    (
        "gemini parts not a list",
        _dialect("gemini", _set("candidates.0.content.parts", {})),
        "parts is an object",
    ),
    (
        "ollama tool_calls an object",
        _dialect("ollama", _set("message.tool_calls", {})),
        "tool_calls is an object",
    ),
    (
        "converse index a string",
        _dialect("bedrock_converse", _set("contentBlockIndex", "0")),
        "contentBlockIndex is a string",
    ),
    (
        "invoke index a string",
        _dialect("bedrock_invoke", _set("index", "0")),
        "bytes.index is a string",
    ),
    (
        "cohere function a string",
        _dialect("cohere_v2", _set("delta.message.tool_calls.function", "f")),
        "function is a string",
    ),
    # scenario files and serve scripts
    (
        "scenario file bomb",
        _scenarios(alias_bomb.split("version:")[0] + "scenarios: *b8\n"),
        "an alias bomb?",
    ),
    ("scenario file deep", _scenarios("scenarios: " + DEEP), "nest"),
    (
        "scenario file huge int",
        _scenarios(f"scenarios:\n  - {{name: x, seed: {HUGE}}}\n"),
        "4300 digits",
    ),
    (
        "serve error abc",
        _serve("turns:\n  - {error: abc}\n"),
        "turn 0: error: expected an HTTP error status",
    ),
    (
        "serve invalid plan",
        _serve("turns:\n  - {plan: {calls: [{name: ''}]}}\n"),
        "turn 0: plan.calls.0.name",
    ),
    (
        "serve script bomb",
        _serve(alias_bomb.split("version:")[0] + "turns: *b8\n"),
        "an alias bomb?",
    ),
]


def test_there_are_thirty_new_cases():
    assert len(CASES) >= 30


def _outcome(action: Callable[[Path], Any], tmp: Path, capsys: Any) -> tuple[str, int]:
    """What the action said (error text, CLI stderr or inspection warnings) and peak memory."""
    tracemalloc.start()
    try:
        try:
            result = action(tmp)
        except TooltapeUsageError as error:
            chained = error.__cause__ is not None or (
                error.__context__ is not None and not error.__suppress_context__
            )
            text = str(error) + " (chained!)" * chained
        except SystemExit:
            text = capsys.readouterr().err.strip()
        else:
            warnings = list(result.warnings) + [str(h) for h in result.hazards]
            assert warnings, "a hostile input read as a clean stream"
            text = " | ".join(warnings)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return text, peak


@pytest.mark.parametrize(("action", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input_is_refused_or_flagged_in_bounded_memory(tmp_path, capsys, action, expected):
    text, peak = _outcome(action, tmp_path, capsys)
    assert expected in text
    assert "\n" not in text and "Traceback" not in text
    assert len(text) < 3_000
    assert peak < 100 * MB


def test_inspect_reads_twenty_thousand_parallel_calls(tmp_path):
    # 100,000 calls is bench/run.py's case (timing belongs there); this proves the
    # lane-by-lane merge end to end at a size the quadratic scan could not finish.
    path = many_calls_cassette(tmp_path / "many.yaml", 20_000)
    result = inspect_cassette(path)
    assert len(result.tool_calls) == 20_000
    assert result.tool_calls[-1] == {
        "name": "get_weather",
        "args": {"city": "c19999"},
        "id": "call_19999",
    }
    assert result.hazards == [] and result.warnings == []
    assert "more lane(s) not shown" in result.lanes


def test_the_bundled_library_reads_without_warnings():
    from tooltape.cassettes import library_path

    root = library_path("openai_golden", "openai_chat").parent.parent
    flagged = {p.name: inspect_cassette(p).warnings for p in root.rglob("*.yaml")}
    assert not {k: v for k, v in flagged.items() if v}


def test_inspect_exits_one_on_malformed_events(tmp_path, capsys):
    body = tmp_path / "b.sse"
    body.write_bytes(_chunk({"tool_calls": _WHOLE}).encode())
    with pytest.raises(SystemExit) as exited:
        main(["inspect", str(body), "--dialect", "openai_chat"])
    assert exited.value.code == 1
    out, err = capsys.readouterr()
    assert "warning event 0: choices[0].delta.tool_calls is an object" in out
    assert "1 malformed event warning(s)" in err


def test_every_dialect_declares_the_types_of_its_tool_call_fields():
    from tooltape.fake_providers import dialect_names, get_dialect

    assert all(get_dialect(name).event_shape for name in dialect_names(profiles=True))
