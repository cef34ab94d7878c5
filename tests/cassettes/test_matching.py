"""Body matching: a changed request fails with the nearest recording and a diff.

Recorded through the openai SDK against tooltape's fake provider on 127.0.0.1,
replayed through the same SDK: the same request replays; changed tools, a
changed message or a new turn fail; what legitimately changes between runs
(key order, ``user``, ``metadata``, ``stream_options``, fields the user adds)
does not.
"""

from __future__ import annotations

import openai
import pytest

from tooltape.cassettes import CassetteError, UnmatchedRequest, library_path, use_cassette
from tooltape.cassettes._match import IGNORED_BODY_FIELDS
from tooltape.fake_providers import FakeProvider, serve_in_thread
from tooltape.harness import Plan, PlannedCall

PLAN = Plan(calls=[PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_1")])
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]


def _ask(url: str, **changes) -> list[str]:
    request = {"model": "gpt-4o-mini", "messages": MESSAGES, "tools": TOOLS, "stream": True}
    request.update(changes)
    with openai.OpenAI(api_key="sk-test", base_url=url + "/v1", max_retries=0) as client:
        chunks = list(client.chat.completions.create(**request))
    return [
        call.function.name
        for chunk in chunks
        if chunk.choices
        for call in chunk.choices[0].delta.tool_calls or []
        if call.function and call.function.name
    ]


@pytest.fixture
def recorded(tmp_path):
    path = tmp_path / "weather.yaml"
    provider = FakeProvider("openai_chat", base_url="http://127.0.0.1").stream(PLAN)
    with serve_in_thread(provider) as url:
        with use_cassette(path, record_mode="once"):
            assert _ask(url, user="alice", metadata={"run": "1"}) == ["get_weather"]
        yield path, url, provider
    assert len(provider.requests) == 1  # every replay below stayed off the server


def test_the_same_request_replays(recorded):
    path, url, _ = recorded
    with use_cassette(path):
        assert _ask(url, user="alice", metadata={"run": "1"}) == ["get_weather"]


def test_what_changes_between_runs_is_ignored(recorded):
    path, url, _ = recorded
    assert {"user", "metadata", "stream_options"} <= set(IGNORED_BODY_FIELDS)
    # use_cassette's docstring spells the list out; it is not a public name
    assert all(f"``{field}``" in (use_cassette.__doc__ or "") for field in IGNORED_BODY_FIELDS)
    with use_cassette(path):
        assert _ask(
            url, user="bob", metadata={"run": "2"}, stream_options={"include_usage": True}
        ) == ["get_weather"]


def test_a_field_the_user_names_is_ignored_too(recorded):
    path, url, _ = recorded
    with pytest.raises(UnmatchedRequest, match="differs on body"), use_cassette(path):
        _ask(url, temperature=0.5)
    with use_cassette(path, ignore_body_fields=["temperature", "messages.*.name"]):
        assert _ask(url, temperature=0.5, messages=[{**MESSAGES[0], "name": "x"}])


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ({"tools": [*TOOLS, {"type": "function", "function": {"name": "get_time"}}]}, "get_time"),
        ({"messages": [{"role": "user", "content": "Weather in Rome?"}]}, "Rome"),
        (
            {"messages": [*MESSAGES, {"role": "assistant", "content": "Sunny"}]},
            '+      "content": "Sunny"',
        ),
    ],
    ids=["changed tools", "changed message", "a new turn"],
)
def test_a_changed_request_fails_naming_the_nearest_recording_with_a_diff(recorded, change, shown):
    path, url, _ = recorded
    with (
        pytest.raises(UnmatchedRequest) as caught,
        use_cassette(path),
        pytest.raises(openai.NotFoundError),  # what the SDK sees: a 404
    ):
        _ask(url, **change)
    message = str(caught.value)
    assert "Nearest: interaction 0" in message and "differs on body" in message
    assert "--- recorded" in message and "+++ live" in message
    assert shown in message


def test_bad_ignore_fields_are_refused(recorded):
    path, _, _ = recorded
    with pytest.raises(CassetteError, match="list of dotted paths"):
        use_cassette(path, ignore_body_fields="temperature").__enter__()
    with pytest.raises(CassetteError, match="not a dotted path"):
        use_cassette(path, ignore_body_fields=["a..b"]).__enter__()


def test_a_generated_cassette_matches_on_the_url_only():
    path = library_path("openai_golden", "openai_chat")
    with use_cassette(path) as session, serve_in_thread(FakeProvider("openai_chat")):
        assert session.player.match_on == ("method", "scheme", "host", "port", "path", "query")
        assert _ask("https://api.openai.com") == ["get_weather"]
