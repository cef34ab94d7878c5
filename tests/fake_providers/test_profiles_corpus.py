"""Every OpenAI-compatible provider in the corpus is claimed by a profile that renders like it.

For each Chat Completions recording whose provider is not OpenAI, the claiming
profile renders a plan with the recorded calls, text, reasoning and finish, and
the rendering must have the recording's chunk field sets (envelope, choice,
delta, tool-call entry and function keys, as sets) and event order (runs of
equal chunks collapsed, as in test_openai_chat_corpus.py). Azure and Gemini
serialise with sorted keys; the profile must too, and only those.

A few features vary between recordings of one provider (model, upstream or
date): the test detects them in the recording and adds the quirk that selects
them, only when the profile does not already choose; everything else must come
from the profile.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _corpus import corpus_params

from tooltape.fake_providers import get_dialect
from tooltape.fake_providers.dialects.openai_chat import read_chat_stream
from tooltape.fake_providers.dialects.openai_compatible._profiles import PROFILES, corpus_claims
from tooltape.harness import Plan, PlannedCall, parse_quirk, reference_merge

pytestmark = [
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

CLAIMS = dict(corpus_claims())
BUNDLES = {p.name: {parse_quirk(q).kind for q in p.quirks} for p in PROFILES}


def _compatible_records() -> list[Any]:
    params = corpus_params("chat_completions")
    return [p for p in params if p.values[0]["provider"] != "openai"]


def _payloads(body: str) -> list[Any]:
    blocks = [b for b in body.replace("\r\n", "\n").split("\n\n") if b.strip()]
    lines = [[ln[5:].lstrip() for ln in b.split("\n") if ln.startswith("data:")] for b in blocks]
    data = ["\n".join(block) for block in lines]
    return [d if d == "[DONE]" else json.loads(d) for d in data if d]


def _keys(mapping: Any) -> frozenset[str]:
    return frozenset(mapping) if isinstance(mapping, dict) else frozenset()


def _signature(payload: Any) -> tuple[Any, ...]:
    """The key sets of a chunk at every level: what 'same field sets' compares."""
    if payload == "[DONE]":
        return ("[DONE]",)
    choices = payload.get("choices") or []
    delta = (choices[0].get("delta") or {}) if choices else {}
    entries = tuple((_keys(e), _keys(e.get("function"))) for e in delta.get("tool_calls") or [])
    finish = bool(choices and choices[0].get("finish_reason"))
    return _keys(payload), tuple(_keys(c) for c in choices), _keys(delta), entries, finish


def _shape(payloads: list[Any]) -> list[tuple[Any, ...]]:
    shape: list[tuple[Any, ...]] = []
    for signature in map(_signature, payloads):
        if not shape or shape[-1] != signature:
            shape.append(signature)
    return shape


def _all_sorted(value: Any) -> bool:
    if isinstance(value, dict):
        return list(value) == sorted(value) and all(map(_all_sorted, value.values()))
    if isinstance(value, list):
        return all(map(_all_sorted, value))
    return True


def _deltas(payloads: list[Any]) -> list[dict[str, Any]]:
    chunks = [p for p in payloads if isinstance(p, dict) and p.get("choices")]
    return [c["choices"][0].get("delta") or {} for c in chunks]


def _plan_of(record: dict[str, Any], payloads: list[Any]) -> Plan:
    """The recording's calls (as ChatOpenAI merges them), text, reasoning and finish."""
    merged = reference_merge(read_chat_stream(record["response_body"].encode()).deltas)
    calls = tuple(
        PlannedCall(name=c["name"], args=c["args"], id=c["id"]) for c in merged.tool_calls
    )
    text, reasoning, seen_call = ["", ""], "", False
    for delta in _deltas(payloads):
        seen_call = seen_call or bool(delta.get("tool_calls"))
        text[seen_call] += delta.get("content") or ""
        reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
    choices = [c for p in payloads if isinstance(p, dict) for c in p.get("choices") or []]
    finishes = [c.get("finish_reason") for c in choices]
    finish = next((f for f in reversed(finishes) if f), None)
    if finish is None:
        finish = "error" if any(isinstance(p, dict) and "error" in p for p in payloads) else "eof"
    plan = Plan(calls=calls, text_before=text[0], text_after=text[1], reasoning=reasoning)
    return plan.model_copy(update={"finish": finish})


def _variable_features(payloads: list[Any], profile: str) -> list[str]:
    """Quirks for what this recording shows and its profile leaves open."""
    chunks = [p for p in payloads if isinstance(p, dict) and "choices" in p]
    choices = [c for p in chunks for c in p["choices"]]
    deltas = _deltas(payloads)
    entries = [e for d in deltas for e in d.get("tool_calls") or []]
    continuations = [e for e in entries if e.get("id") is None]
    finish_at = next((n for n, p in enumerate(chunks) if _signature(p)[-1]), len(chunks))
    seen = {
        "no_logprobs": not any("logprobs" in c for c in choices),
        "no_system_fingerprint": not any("system_fingerprint" in p for p in chunks),
        "no_index": bool(entries) and not any("index" in e for e in entries),
        "whole_call": bool(entries) and not continuations,
        "type_on_every_chunk": any(e.get("type") for e in continuations),
        "content_with_tool_calls": any(
            "content" in d and "role" not in d for d in deltas if d.get("tool_calls")
        ),
        "finish_on_last_delta": any(
            (c.get("delta") or {}).get("tool_calls") for c in choices if c.get("finish_reason")
        ),
        "usage_chunk_choice": any(p.get("usage") and p["choices"] for p in chunks[finish_at + 1 :]),
    }
    chosen = BUNDLES[profile] | (
        {"finish_on_last_delta"} if "one_chunk_turn" in BUNDLES[profile] else set()
    )
    return [kind for kind, shown in seen.items() if shown and kind not in chosen]


def test_every_compatible_provider_in_the_corpus_is_claimed() -> None:
    providers = {p.values[0]["provider"] for p in _compatible_records()}
    assert providers, "no OpenAI-compatible recording in the corpus"
    assert providers <= set(CLAIMS), providers - set(CLAIMS)
    assert all(profile in BUNDLES for profile in CLAIMS.values())


@pytest.mark.parametrize("record", _compatible_records())
def test_the_claiming_profile_renders_the_recordings_field_sets_and_order(
    record: dict[str, Any],
) -> None:
    profile = CLAIMS[record["provider"]]
    recorded = _payloads(record["response_body"])
    plan = _plan_of(record, recorded)
    features = _variable_features(recorded, profile)
    rendered = _payloads(get_dialect(profile).render(plan, features).body.decode())
    assert _shape(rendered) == _shape(recorded)
    assert _all_sorted(rendered) == _all_sorted(recorded)
    assert len(plan.calls) == record["observed"]["client_calls"]


@pytest.mark.parametrize("record", _compatible_records())
def test_plain_openai_chat_does_not_render_the_recording(record: dict[str, Any]) -> None:
    """The claim is not vacuous: without the profile's quirks the shapes differ."""
    recorded = _payloads(record["response_body"])
    features = _variable_features(recorded, CLAIMS[record["provider"]])
    plain = get_dialect("openai_chat").render(_plan_of(record, recorded), features)
    assert _shape(_payloads(plain.body.decode())) != _shape(recorded)
