"""Each dialect's DEFAULT render against the real recordings (tests/corpus).

For every recording a dialect (or profile) stands for, the plan behind the
recording (its calls, without their ids, its text and finish) is rendered with
no quirks, for the recorded request, and both bodies are reduced to the same
structural fingerprint:

- ``framing``: line ends, ``event:`` lines, padding before a payload's last
  ``}``, JSON separators, a ``[DONE]`` sentinel;
- ``sequence``: the event kinds in order, runs of one kind collapsed;
- ``fields``: for each event kind, the key order of its payload and of the
  objects nested in it (first event of that kind, three levels deep);
- ``ids``: the shapes of the tool-call ids (prefix, character class, length).

Every difference must be listed in :data:`DELIBERATE` with the reason it is
left; an unlisted one fails. Profiles are held to framing, event order and id
shapes only.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from _corpus import corpus_records

from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._plan_from import plan_from_recording
from tooltape.cassettes._recorded_merge import searchable
from tooltape.cassettes.body_events import read_events
from tooltape.fake_providers import ProviderRequest, get_dialect
from tooltape.fake_providers.dialects.openai_compatible._profiles import corpus_claims
from tooltape.harness import Plan, PlannedCall, reference_merge

_BASE = {
    ("openai", "chat_completions"): "openai_chat",
    ("azure_openai", "chat_completions"): "openai_chat",
    ("openai", "responses"): "openai_responses",
    ("anthropic", "anthropic_messages"): "anthropic_messages",
    ("gemini", "gemini"): "gemini",
    ("cohere", "cohere_v2_chat"): "cohere_v2",
    ("bedrock", "bedrock_converse_stream"): "bedrock_converse",
    ("bedrock", "bedrock_invoke_stream"): "bedrock_invoke",
    ("mistral", "chat_completions"): "mistral_native",
}
"""(corpus provider, api) -> the dialect whose default should look like it."""


def _dialects_for(provider: str, api: str) -> list[str]:
    """The dialect and the profile (Mistral has both) that stand for these recordings."""
    found = [_BASE[provider, api]] if (provider, api) in _BASE else []
    if api == "chat_completions" and provider in dict(corpus_claims()):
        found.append(dict(corpus_claims())[provider])
    return found


# --- the fingerprint -------------------------------------------------------------------


def _tag(dialect: str, kind: str, data: Any) -> str:
    """The kind of one event, as the fingerprint's sequence names it."""
    if not isinstance(data, dict):
        return str(data)
    if isinstance(data.get("bytes"), str):  # Bedrock invoke: an Anthropic event inside
        data = json.loads(base64.b64decode(data["bytes"]))
        kind = str(data.get("type"))
    if dialect in ("anthropic_messages", "bedrock_invoke"):
        inner = data.get("content_block") or data.get("delta") or {}
        sub = inner.get("type") if isinstance(inner, dict) else None
        return f"{kind}:{sub}" if sub and kind.startswith("content_block") else kind
    if dialect == "gemini":
        candidate = (data.get("candidates") or [{}])[0]
        parts = (candidate.get("content") or {}).get("parts") or []
        names = sorted({"thought" if p.get("thought") else next(iter(p), "?") for p in parts})
        return "+".join(names) + ("|finish" if candidate.get("finishReason") else "")
    if dialect.startswith("bedrock"):
        for key in ("start", "delta"):
            if isinstance(data.get(key), dict):
                return f"{kind}:{next(iter(data[key]), '')}"
        return kind
    if "choices" in data:  # Chat Completions and profiles
        choices = data["choices"]
        if not choices:
            return "usage" if data.get("usage") else "no_choices"
        choice = choices[0]
        delta = choice.get("delta") or {}
        calls = delta.get("tool_calls") or []
        if choice.get("finish_reason"):
            return "finish"
        if calls:
            return "tool_header" if any(c.get("id") for c in calls) else "tool_args"
        if delta.get("role"):
            return "role"
        return "content"
    return str(data.get("type") or kind)


def _keys(value: Any, path: str, depth: int, out: dict[str, tuple[str, ...]]) -> None:
    if isinstance(value, list) and value:
        _keys(value[0], path + "[]", depth, out)
    if not isinstance(value, dict) or depth == 0:
        return
    out.setdefault(path or ".", tuple(value))
    for key, inner in value.items():
        _keys(inner, f"{path}.{key}", depth - 1, out)


_ID_PREFIX = re.compile(r"^(?:\{name\}_|[a-z]+[_-]|\d\d_)*")
_ID_CLASSES = (("9", r"\d+"), ("f", r"[0-9a-f]+"), ("a", r"[0-9a-z]+"), ("A", r"[\w-]+"))
"""Digits, lower-case hex, lower-case letters and digits, any letters, digits, ``_``, ``-``."""


def _id_shape(call_id: str, name: str) -> str:
    """``call_A24`` for ``call_`` plus 24 letters and digits, and so on."""
    text = call_id.replace(name, "{name}") if name else call_id
    prefix = _ID_PREFIX.match(text)
    head = prefix.group() if prefix else ""
    tail = text[len(head) :]
    if not tail:
        return text
    shape = next((c for c, pattern in _ID_CLASSES if re.fullmatch(pattern, tail)), "?")
    return f"{head}{shape}{len(tail)}"


def _framing_of(api: str) -> str:
    return "eventstream" if api.startswith("bedrock") else "sse"


def fingerprint(dialect: str, api: str, body: bytes) -> dict[str, Any]:
    """The structural fingerprint of one body (see the module docstring)."""
    framing = _framing_of(api)
    events = [e for e in read_events(body, framing, aborted=True) if e.dispatched]
    sequence: list[str] = []
    fields: dict[str, dict[str, tuple[str, ...]]] = {}
    for event in events:
        tag = _tag(dialect, event.kind, event.data)
        if not sequence or sequence[-1] != tag:
            sequence.append(tag)
        if tag not in fields and isinstance(event.data, dict):
            data = event.data
            if isinstance(data.get("bytes"), str):
                data = json.loads(base64.b64decode(data["bytes"]))
            fields[tag] = {}
            _keys(data, "", 3, fields[tag])
    merged = reference_merge(get_dialect(dialect).parse(body))
    haystack = searchable(body, framing)
    ids = sorted(
        {
            _id_shape(str(c["id"]), str(c.get("name")))
            for c in merged.tool_calls
            if c.get("id") is not None and str(c["id"]).encode() in haystack
        }
    )
    text = body if framing == "sse" else b""
    frame = {
        "line_end": "crlf" if b"\r\n" in text else "lf",
        "event_lines": b"\nevent:" in b"\n" + text,
        "padded": re.search(rb"[\]}\"el0-9] +}\r?\n", text) is not None,
        "spaced_json": re.search(rb'"[A-Za-z_]+": ', text) is not None,
        "done": b"[DONE]" in text,
    }
    return {"framing": frame, "sequence": sequence, "fields": fields, "ids": ids}


def differences(real: dict[str, Any], ours: dict[str, Any]) -> Iterator[str]:
    """One line per difference, ``component: detail``."""
    for key, value in real["framing"].items():
        if ours["framing"][key] != value:
            yield f"framing.{key}: real {value!r}, ours {ours['framing'][key]!r}"
    if real["sequence"] != ours["sequence"]:
        yield f"sequence: real {real['sequence']}, ours {ours['sequence']}"
    for tag in sorted(real["fields"].keys() & ours["fields"].keys()):
        theirs, mine = real["fields"][tag], ours["fields"][tag]
        for path in sorted(theirs.keys() & mine.keys()):
            if theirs[path] != mine[path]:
                yield f"fields[{tag}]{path}: real {list(theirs[path])}, ours {list(mine[path])}"
    if real["ids"] != ours["ids"]:
        yield f"ids: real {real['ids']}, ours {ours['ids']}"


# --- deliberate differences --------------------------------------------------------------

_OLDER_CHAT = "no_service_tier, no_obfuscation and first_call_on_role_chunk give older envelopes"
_GEMINI_2 = "a Gemini 2.x recording; the default is Gemini 3 (gemini_model, missing_id and "
_GEMINI_2 += "finish_with_last_part give the 2.x shape)"
_SERVER_TOOLS = "server-side tools (web search, tool search) are not part of a plan"
_NO_PLAN = "the recording holds no plan to render (invalid or nameless calls)"

DELIBERATE: list[tuple[str, str, str, str]] = [
    # OpenAI Chat Completions: the default is the 2025-2026 envelope (gpt-4o/4.1/5 recordings).
    ("openai_chat", "*", "fields[*].: real *", "envelope keys of another date; " + _OLDER_CHAT),
    (
        "openai_chat",
        "*",
        "sequence: real ['tool_header', *",
        "the call rides on the role "
        "chunk in gpt-4o-mini/4.1 recordings; first_call_on_role_chunk gives it",
    ),
    ("openai_chat", "*", "fields[tool_header].choices[].delta: *", "first_call_on_role_chunk"),
    (
        "openai_chat",
        "openai/chatlas*",
        "fields[*].choices[]: *",
        "gpt-5 sends no logprobs; no_logprobs gives it",
    ),
    (
        "openai_chat",
        "openai/activeagent*",
        "sequence: *",
        "this recording got no usage chunk "
        "though it asked include_usage (recorded through a proxy)",
    ),
    (
        "openai_chat",
        "azure_openai/*",
        "*",
        "Azure's envelope (prompt_filter_results, sorted "
        "keys, content_filter_results) is the azure profile's, not openai_chat's",
    ),
    (
        "openai_chat",
        "openai/dd-trace-py__contrib-litellm*",
        "plan: *",
        _NO_PLAN + " (n=2 choices merged by the adapter)",
    ),
    # OpenAI Responses: the default is the 2026 Response object and event key order.
    (
        "openai_responses",
        "*",
        "fields[*].: real *",
        "event keys of another date (2025: "
        "sequence_number second or absent); the 2026 order is alphabetical after type",
    ),
    ("openai_responses", "*", "fields[*].response: *", "Response fields of another date"),
    ("openai_responses", "*", "fields[*].response.text: *", "verbosity arrived in 2025-08"),
    (
        "openai_responses",
        "*",
        "fields[*].response.reasoning: *",
        "reasoning fields vary by model and date",
    ),
    (
        "openai_responses",
        "*",
        "fields[*].response.tools[]: *",
        "tools are echoed in the shape "
        "of function tools; hosted tools' own fields (output_schema, filters) are not invented",
    ),
    (
        "openai_responses",
        "*",
        "fields[*].item: *",
        "reasoning items (encrypted_content) and older item key order",
    ),
    ("openai_responses", "*", "fields[*].response.output[]: *", "as the items above"),
    (
        "openai_responses",
        "openai/pydantic-ai*",
        "sequence: *",
        "reasoning items with encrypted content and hosted web search are not part of a plan",
    ),
    # Anthropic: the default is a 2026 Claude (claude-sonnet-5, haiku-4-5 recordings).
    (
        "anthropic_messages",
        "*",
        "fields[message_start].message: *",
        "stop_details arrived in 2026, and 2024 models put id first",
    ),
    ("anthropic_messages", "*", "fields[message_delta].delta: *", "stop_details arrived in 2026"),
    (
        "anthropic_messages",
        "*",
        "fields[*]*usage: *",
        "usage fields vary by model and account "
        "(server_tool_use, inference_geo, output_tokens_details)",
    ),
    (
        "anthropic_messages",
        "*",
        "fields[content_block_start:tool_use].content_block: *",
        "caller arrived in 2026",
    ),
    ("anthropic_messages", "*", "fields[message_delta].: *", "context_management is beta-only"),
    ("anthropic_messages", "anthropic/*web_search*", "sequence: *", _SERVER_TOOLS),
    ("anthropic_messages", "anthropic/*tool_search*", "sequence: *", _SERVER_TOOLS),
    ("anthropic_messages", "anthropic/dd-trace-py__*beta_tools*", "sequence: *", _SERVER_TOOLS),
    (
        "anthropic_messages",
        "anthropic/chatlas*",
        "sequence: *",
        "no ping in this recording; "
        "the live API sends one after the first block start in all others",
    ),
    (
        "anthropic_messages",
        "anthropic/chatlas*",
        "framing.spaced_json: *",
        "the only spaced JSON on Anthropic's wire is the ping's, absent here",
    ),
    (
        "anthropic_messages",
        "anthropic/crewAI*",
        "sequence: *",
        "the ping came after the first "
        "text delta here; the dialect sends it right after the first block start",
    ),
    # Gemini: the default is a Gemini 3 model.
    ("gemini", "*", "sequence: real ['functionCall|finish'], *", _GEMINI_2),
    ("gemini", "*", "ids: real [], *", _GEMINI_2),
    ("gemini", "*", "fields[*].usageMetadata: *", "usage fields vary by model"),
    (
        "gemini",
        "gemini/llm-gemini*",
        "plan: *",
        "a JSON-array body without alt=sse; inspect and parse do not read it yet (issue 13)",
    ),
    ("gemini", "gemini/lmnr-python__test_litellm*", "plan: *", _NO_PLAN),
    # Bedrock and Cohere.
    (
        "bedrock_converse",
        "*",
        "fields[contentBlockStart:toolUse].start.toolUse: *",
        "type arrived with server tools in 2025",
    ),
    ("bedrock_converse", "*", "fields[metadata].usage: *", "serverToolUsage arrived in 2025"),
    ("bedrock_converse", "bedrock/pydantic-ai*", "plan: *", _NO_PLAN),
    (
        "bedrock_invoke",
        "*",
        "fields[chunk].bytes.message: *",
        "Claude 3 on Bedrock put id first; the default is a 2025 Claude",
    ),
    (
        "mistral_native",
        "mistral/openinference*",
        "fields[*].choices[]*: *",
        "mistral-small in 2024-08 sent logprobs: null and content: null beside the calls; "
        "mistral-large in 2024-11 (magentic) did not, and the default follows it",
    ),
    ("cohere_v2", "*", "plan: *", _NO_PLAN + " (Cohere's legacy tool-call deltas)"),
    # Profiles: only framing, event order and id shapes are compared (see _PROFILE_FIELDS).
    (
        "databricks",
        "*",
        "ids: *",
        "Databricks relays Claude's toolu_bdrk_ ids for Claude "
        "endpoints and call_ ids for others; the profile mints call_",
    ),
    ("groq", "*", "ids: *", "Groq's fc_ ids; the profile mints call_"),
    ("openrouter", "*", "ids: *", "OpenRouter relays each upstream's ids; the profile mints call_"),
    (
        "openrouter",
        "*",
        "sequence: *",
        "OpenRouter's trailing role chunk and a Gemini upstream's "
        "call-in-finish chunk are not reproduced by default",
    ),
]
"""``(dialect, recording glob, difference glob, reason)``: differences left on purpose."""

_PROFILE_FIELDS = "profiles' field order is their bundled quirks' approximation"
"""Why a profile's ``fields`` are not compared."""


# --- the test ---------------------------------------------------------------------------


def _cases() -> list[Any]:
    cases = []
    for name, record in corpus_records():
        if record.get("response_status", 200) != 200:
            continue
        for dialect in _dialects_for(record["provider"], record["api"]):
            cases.append(pytest.param(dialect, name, record, id=f"{dialect}-{name}"))
    assert cases, "no recording with a status of 200 in the corpus"
    return cases


def _body(record: dict[str, Any]) -> bytes:
    body = record["response_body"]
    if record.get("response_body_encoding") == "base64":
        return base64.b64decode(body)
    return str(body).encode()


def _plan(dialect: str, api: str, body: bytes) -> Plan:
    """The recording's plan with its ids left out, so the dialect mints its own."""
    framing = _framing_of(api)
    reading = get_dialect(dialect)
    recorded = plan_from_recording(
        reading,
        reading.parse(body),
        read_events(body, framing, aborted=True),
        searchable(body, framing),
    )
    fields = recorded.model_dump(exclude={"calls"})
    return Plan(calls=[PlannedCall(name=c.name, args=c.args) for c in recorded.calls], **fields)


def _request(record: dict[str, Any]) -> ProviderRequest:
    path = re.sub(r"^https?://[^/]+", "", record.get("request_url") or "").split("?")[0]
    body = json.dumps(record.get("request") or {}).encode()
    return ProviderRequest("POST", path, body=body)


def _deliberate(dialect: str, name: str, difference: str) -> str | None:
    """The reason a difference is left, if :data:`DELIBERATE` lists it (``*`` globs only)."""
    for who, recordings, pattern, reason in DELIBERATE:
        literal = pattern.replace("[", "[[]")  # brackets are field paths, not classes
        matched = fnmatch.fnmatchcase(name, recordings) and fnmatch.fnmatchcase(difference, literal)
        if who == dialect and matched:
            return reason
    return None


@pytest.mark.parametrize(("dialect", "name", "record"), _cases())
def test_default_render_is_structurally_the_recording(
    dialect: str, name: str, record: dict[str, Any]
) -> None:
    body = _body(record)
    try:
        plan = _plan(dialect, record["api"], body)
    except CassetteError as error:  # no plan behind it: nothing to render
        found = [f"plan: {str(error).partition(': ')[2][:80]}"]
    else:
        wire = get_dialect(dialect).render(plan, request=_request(record))
        real = fingerprint(dialect, record["api"], body)
        found = list(differences(real, fingerprint(dialect, record["api"], wire.body)))
        if dialect not in _BASE.values():  # a profile (see _PROFILE_FIELDS)
            found = [d for d in found if not d.startswith("fields")]
    unlisted = [d for d in found if _deliberate(dialect, name, d) is None]
    assert not unlisted, f"{name} ({dialect}): " + "\n  ".join(["", *unlisted])
