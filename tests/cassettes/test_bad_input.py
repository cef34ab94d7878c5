"""Bad cassettes, bodies, options and records: each gets one paragraph, never a traceback.

Every case raises a TooltapeUsageError subclass (CassetteError, or ScenarioFileError
for a scenario file) whose message is one line naming the file (and the interaction
and event where there is one), with no chained YAML, vcrpy or JSON exception shown.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooltape.cassettes import (
    convert_corpus_files,
    convert_corpus_record,
    generate_library,
    inspect_cassette,
    library_path,
    load_cassette,
    mutate,
    use_cassette,
)
from tooltape.harness import TooltapeUsageError

BASE = library_path("openai_golden", "openai_chat")


def _data() -> dict[str, Any]:
    return yaml.safe_load(BASE.read_text(encoding="utf-8"))


def _cassette_file(tmp: Path, edit: Callable[[dict[str, Any]], Any]) -> Path:
    data = _data()
    edit(data)
    path = tmp / "bad.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _text_file(tmp: Path, text: str | bytes, name: str = "bad.yaml") -> Path:
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def _set(*keys_and_value: Any) -> Callable[[dict[str, Any]], None]:
    *keys, value = keys_and_value

    def edit(data: dict[str, Any]) -> None:
        target = data
        for key in keys[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value

    return edit


_DELETE = object()
I0 = ("interactions", 0)
RESP = (*I0, "response")


def _load(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], Any]:
    return lambda tmp: load_cassette(_cassette_file(tmp, edit))


def _load_text(text: str | bytes) -> Callable[[Path], Any]:
    return lambda tmp: load_cassette(_text_file(tmp, text))


def _inspect_body(body: str, content_type: str = "text/event-stream", **tooltape: Any):
    def edit(data: dict[str, Any]) -> None:
        data["interactions"][0]["response"]["body"]["string"] = body
        data["interactions"][0]["response"]["headers"] = {"content-type": [content_type]}
        data["interactions"][0]["response"]["tooltape"] = tooltape

    return lambda tmp: inspect_cassette(_cassette_file(tmp, edit))


def _inspect_raw(body: bytes, name: str, dialect: str | None) -> Callable[[Path], Any]:
    return lambda tmp: inspect_cassette(_text_file(tmp, body, name), dialect=dialect)


def _second_broken(data: dict[str, Any]) -> None:
    second = json.loads(json.dumps(data["interactions"][0]))
    second["request"]["uri"] = "not a url"
    data["interactions"].append(second)


def _unknown_url(data: dict[str, Any]) -> None:
    data["interactions"][0]["request"]["uri"] = "https://example.com/x"
    del data["tooltape"]


def _scenario_file(tmp: Path) -> Any:
    path = _text_file(
        tmp, "scenarios:\n  - {name: x, description: d, plan: {calls: []}, colour: red}\n", "s.yaml"
    )
    return generate_library(tmp / "lib", scenarios_file=path, dialects=["openai_chat"])


def _record(**changes: Any) -> dict[str, Any]:
    record = {
        "api": "chat_completions",
        "provider": "openai",
        "request_method": "POST",
        "request_url": "https://api.openai.com/v1/chat/completions",
        "request": {"model": "m"},
        "response_status": 200,
        "response_body": "data: [DONE]\n\n",
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not _DELETE}


def _use(**options: Any) -> Callable[[Path], Any]:
    def run(tmp: Path) -> None:
        with use_cassette(BASE, **options):
            pass

    return run


CASES = [
    ("missing file", lambda tmp: load_cassette(tmp / "absent.yaml"), "no such cassette"),
    ("not utf-8", _load_text(b"interactions: \xff\xfe"), "not UTF-8 text"),
    (
        "corrupt yaml",
        _load_text("interactions: [\n  {request: "),
        "not a valid YAML cassette at line",
    ),
    (
        "python tag",
        _load_text("x: !!python/object/apply:os.system [ls]\n"),
        "Python object tags are refused",
    ),
    ("empty file", _load_text(""), "got an empty file"),
    ("old vcrpy list", _load_text("- request: {}\n  response: {}\n"), "pre-1.0 vcrpy cassette"),
    ("a scalar", _load_text("hello\n"), "expected a cassette mapping, got str"),
    ("version 2", _load(_set("version", 2)), "expected vcrpy cassette 'version: 1', got 2"),
    (
        "no interactions key",
        _load(_set("interactions", _DELETE)),
        "expected an 'interactions' list",
    ),
    ("no interactions", _load(_set("interactions", [])), "has no interactions"),
    (
        "entry not a mapping",
        _load(_set("interactions", ["x"])),
        "interaction 0, the entry: expected a mapping",
    ),
    ("no request", _load(_set(*I0, "request", _DELETE)), "interaction 0, request: missing"),
    ("no response", _load(_set(*I0, "response", _DELETE)), "interaction 0, response: missing"),
    ("bad method", _load(_set(*I0, "request", "method", 42)), "interaction 0, request.method"),
    (
        "relative uri",
        _load(_set(*I0, "request", "uri", "/v1/x")),
        "request.uri: expected an absolute URL",
    ),
    (
        "headers list",
        _load(_set(*I0, "request", "headers", ["a"])),
        "request.headers: expected a mapping",
    ),
    (
        "request body dict",
        _load(_set(*I0, "request", "body", {"a": 1})),
        "request.body: expected text",
    ),
    (
        "no status",
        _load(_set(*RESP, "status", _DELETE)),
        "response.status.code: expected an HTTP status",
    ),
    ("status 999", _load(_set(*RESP, "status", "code", 999)), "got 999"),
    (
        "body without string",
        _load(_set(*RESP, "body", {"text": "x"})),
        "response.body: expected a mapping with 'string'",
    ),
    ("body string int", _load(_set(*RESP, "body", "string", 5)), "response.body.string"),
    (
        "header value dict",
        _load(_set(*RESP, "headers", {"content-type": [{"a": 1}]})),
        "response.headers.content-type",
    ),
    (
        "reads decreasing",
        _load(_set(*RESP, "tooltape", "reads", [90, 10])),
        "response.tooltape.reads",
    ),
    ("reads beyond body", _load(_set(*RESP, "tooltape", "reads", [10, 10**7])), "inside the"),
    ("reads text", _load(_set(*RESP, "tooltape", "reads", ["10"])), "increasing byte offsets"),
    (
        "tooltape key",
        _load(_set(*RESP, "tooltape", "colour", 1)),
        "unknown key 'colour'; known keys: aborted, reads",
    ),
    ("aborted number", _load(_set(*RESP, "tooltape", "aborted", 3)), "response.tooltape.aborted"),
    ("metadata field", _load(_set("tooltape", "colour", "red")), "tooltape.colour: Extra inputs"),
    (
        "metadata dialect",
        _load(_set("tooltape", "dialect", "klingon")),
        "tooltape.dialect: unknown dialect 'klingon'",
    ),
    (
        "metadata plan",
        _load(_set("tooltape", "plan", {"calls": [{"name": ""}]})),
        "tooltape.plan.calls.0.name",
    ),
    ("metadata format", _load(_set("tooltape", "format", 99)), "newer than this tooltape reads"),
    ("second interaction", _load(_second_broken), "interaction 1, request.uri"),
    (
        "body not sse",
        _inspect_body("<html>502 Bad Gateway</html>"),  # a JSON document is read as JSON
        "the body is not server-sent events",
    ),
    (
        "data not json",
        _inspect_body("data: {}\n\ndata: nope\n\n"),
        "interaction 0, event 1: data is not JSON",
    ),
    (
        "truncated event",
        _inspect_body('data: {}\n\ndata: {"id": "chat'),
        "event 1: data is not JSON",
    ),
    (
        "not utf-8 event",
        _inspect_raw(b"data: \xff\n\n", "b.sse", "openai_chat"),
        "event 0: not UTF-8 text",
    ),
    (
        "ndjson line",
        _inspect_raw(b'{"a": 1}\n{"b": \n', "b.ndjson", "ollama"),
        "event 1: data is not JSON",
    ),
    (
        "eventstream garbage",
        _inspect_raw(b"\x00\x00\x00\x20" + b"x" * 40, "b.bin", "bedrock_converse"),
        "not an AWS event-stream message",
    ),
    (
        "raw unknown dialect",
        _inspect_raw(b"data: {}\n\n", "b.sse", "klingon"),
        "unknown dialect 'klingon'",
    ),
    (
        "raw without dialect",
        _inspect_raw(b"data: {}\n\n", "b.sse", None),
        "to inspect a raw body, name its dialect",
    ),
    (
        "interaction range",
        lambda tmp: inspect_cassette(BASE, interaction=5),
        "no interaction 5; it holds 1",
    ),
    (
        "no dialect serves",
        lambda tmp: inspect_cassette(_cassette_file(tmp, _unknown_url)),
        "no dialect serves POST https://example.com/x",
    ),
    ("unknown quirk", lambda tmp: mutate(BASE, "nope"), "quirk 'nope'"),
    ("no quirk", lambda tmp: mutate(BASE), "needs at least one quirk"),
    (
        "quirk not expressible",
        lambda tmp: mutate(library_path("openai_golden", "anthropic_messages"), "split_name"),
        "interaction 0:",
    ),
    (
        "invalid calls",
        lambda tmp: mutate(library_path("malformed_args", "openai_chat"), "split_name"),
        "invalid call(s)",
    ),
    ("mutate range", lambda tmp: mutate(BASE, "split_name", interaction=3), "no interaction 3"),
    ("record mode", _use(record_mode="sometimes"), "unknown record mode 'sometimes'"),
    ("matcher", _use(match_on=("method", "colour")), "unknown request matcher 'colour'"),
    ("matcher string", _use(match_on="method"), "give a sequence of"),
    ("replay quirk", _use(quirks=["nope"]), "replay quirk 'nope'"),
    (
        "record field",
        lambda tmp: convert_corpus_record(_record(request_url=_DELETE)),
        "has no 'request_url' field",
    ),
    (
        "record api",
        lambda tmp: convert_corpus_record(_record(api="telepathy")),
        "unknown api 'telepathy'",
    ),
    (
        "record base64",
        lambda tmp: convert_corpus_record(
            _record(response_body_encoding="base64", response_body="@@@")
        ),
        "response_body is not base64",
    ),
    (
        "record status",
        lambda tmp: convert_corpus_record(_record(response_status="200")),
        "'response_status' has the wrong type",
    ),
    (
        "corpus missing",
        lambda tmp: convert_corpus_files(tmp / "nope", tmp / "out"),
        "no such corpus file or folder",
    ),
    (
        "corpus not json",
        lambda tmp: convert_corpus_files(_text_file(tmp, "{", "r.json"), tmp / "out"),
        "not a JSON corpus record",
    ),
    ("scenario field", _scenario_file, "scenario 'x', field colour: Extra inputs"),
    (
        "library scenario",
        lambda tmp: library_path("nope", "openai_chat"),
        "no bundled cassette for scenario 'nope'",
    ),
]


FILELESS = {
    "unknown record mode 'sometimes'",
    "unknown request matcher 'colour'",
    "give a sequence of",
    "replay quirk 'nope'",
    "has no 'request_url' field",
    "unknown api 'telepathy'",
    "response_body is not base64",
    "'response_status' has the wrong type",
    "no bundled cassette for scenario 'nope'",
}
"""Options and in-memory records: there is no file to name (records name their label)."""


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize(("action", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gets_one_paragraph(tmp_path, action, expected):
    with pytest.raises(TooltapeUsageError) as caught:
        action(tmp_path)
    error = caught.value
    message = str(error)
    assert expected in message
    assert "\n" not in message and "Traceback" not in message
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    if expected not in FILELESS:
        assert message.startswith((str(tmp_path), str(BASE.parent.parent))), message


def test_a_vcrpy_style_record_converts(tmp_path):
    cassette = convert_corpus_record(
        _record(
            response_body_encoding="base64",
            response_body=base64.b64encode(b"data: [DONE]\n\n").decode(),
        )
    )
    assert cassette.interactions[0].response.body == b"data: [DONE]\n\n"
