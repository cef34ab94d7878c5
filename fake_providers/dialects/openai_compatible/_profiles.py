"""OpenAI-compatible server profiles: ``openai_chat`` plus the quirks a named server shows.

A profile (``azure``, ``vllm``, ``openrouter``...) is the ``openai_chat``
dialect with a fixed bundle of quirks, listed in :data:`PROFILES` (the registry in
:mod:`tooltape.fake_providers.dialects` reads it); ``get_dialect("vllm")``
renders, parses and validates like ``openai_chat`` with those quirks applied
before the caller's. Every profile names the corpus
recordings it reproduces. Tool-chunk quirks shape what a merger sees; the
EVENTS quirks of :mod:`~tooltape.fake_providers.dialects.openai_compatible._quirks`,
:mod:`~tooltape.fake_providers.dialects.openai_compatible._server_quirks` and
:mod:`~tooltape.fake_providers.dialects.openai_compatible._call_quirks` reshape the chunks the
way the server does. A caller's quirk of the same kind replaces the profile's
(EVENTS), and a second argument splitter is refused (tool-chunk quirks), so a
profile cannot render a scenario that contradicts it.

:func:`profile_table` lists the profiles with their quirks; :func:`corpus_claims`
says which profile reproduces the recordings of each corpus provider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# Importing the quirk modules registers their kinds, which the bundles below name.
from tooltape.fake_providers.dialects.openai_compatible import (  # noqa: F401
    _call_quirks,
    _quirks,
    _server_quirks,
)
from tooltape.harness import parse_quirk
from tooltape.harness.name_checks import unknown_name

__all__ = ["PROFILES", "Profile", "corpus_claims", "profile_base_url", "profile_table"]

QuirkSpec = str | dict[str, Any]


@dataclass(frozen=True)
class Profile:
    """One OpenAI-compatible server as ``openai_chat`` plus quirks."""

    name: str
    """The registry name: ``get_dialect(name)``."""
    quirks: tuple[QuirkSpec, ...]
    """The quirks always applied, before the caller's."""
    base_url: str
    """Where the real server answers (``ChatOpenAI(base_url=...)``)."""
    description: str
    """What the server does, naming the corpus recordings."""
    claims: tuple[str, ...] = ()
    """Corpus providers whose Chat Completions recordings this profile reproduces."""
    base: str = "openai_chat"
    """The dialect underneath."""


def _reasoning(field: str) -> dict[str, Any]:
    return {"kind": "reasoning_deltas", "field": field}


def _usage(on: str, before: str) -> dict[str, Any]:
    return {"kind": "usage_placement", "on": on, "before": before}


_COMPAT: tuple[QuirkSpec, ...] = ("no_service_tier", "no_obfuscation")
_LOCAL: tuple[QuirkSpec, ...] = (*_COMPAT, "no_usage_chunk", "no_system_fingerprint")
_AZURE: tuple[QuirkSpec, ...] = (
    {"kind": "first_call_on_role_chunk", "refusal": True},
    "no_service_tier",
    "azure_content_filter",
    "sorted_keys",
)
_GEMINI: tuple[QuirkSpec, ...] = (
    "whole_call",
    "no_index",
    "missing_id",
    "empty_string_continuations",
    "one_chunk_turn",
    "stop_after_tool_calls",
    "no_chunk_id",
    "no_system_fingerprint",
    *_COMPAT,
    "no_logprobs",
    "sorted_keys",
)
_OPENROUTER: tuple[QuirkSpec, ...] = (
    {"kind": "comments", "text": "OPENROUTER PROCESSING"},
    *_COMPAT,
    "role_on_every_delta",
    _usage("usage_chunk", "absent"),
    "openrouter_fields",
    _reasoning("reasoning"),
)
_LMSTUDIO: tuple[QuirkSpec, ...] = ("empty_string_continuations", *_LOCAL)
_LLAMACPP: tuple[QuirkSpec, ...] = (*_LOCAL, "no_logprobs")

PROFILES: tuple[Profile, ...] = (
    Profile(
        "azure",
        _AZURE,
        "https://tooltape.openai.azure.com/openai/deployments/gpt-4o-mini",
        "Azure OpenAI: an empty-choices first frame with prompt_filter_results and a "
        "blank envelope, content_filter_results on every choice, the filtered category "
        "on a content_filter finish, keys sorted; no service_tier (corpus: crewAI).",
        claims=("azure_openai",),
    ),
    Profile(
        "azure_async_filter",
        (*_AZURE, "azure_annotation_frames"),
        "https://tooltape.openai.azure.com/openai/deployments/gpt-4o-mini",
        "Azure OpenAI with the asynchronous content filter: azure plus an "
        "annotation frame whose choice has no delta (ChatOpenAI skips it).",
    ),
    Profile(
        "databricks",
        (
            *_COMPAT,
            "no_logprobs",
            "no_system_fingerprint",
            "role_on_every_delta",
            _usage("finish_chunk", "running"),
        ),
        "https://tooltape.cloud.databricks.com/serving-endpoints",
        "Databricks model serving (Claude behind Chat Completions): role and content on "
        "every delta, no role-only chunk, a running usage object on every chunk whose "
        "completion counts are null until the finish chunk, no usage chunk (corpus: chatlas).",
        claims=("databricks",),
    ),
    Profile(
        "deepseek",
        (
            *_COMPAT,
            _reasoning("reasoning_content"),
            "finish_delta_fields",
            _usage("finish_chunk", "null"),
            {"kind": "call_id_format", "style": "deepseek"},
        ),
        "https://api.deepseek.com",
        "DeepSeek: reasoning_content deltas before the calls, call_00_-style ids "
        "(call_id_format: plan ids in that format pass unchanged), usage: null on every "
        "chunk and the usage on the finish chunk, whose delta is "
        '{"content": "", "reasoning_content": null} (corpus: chatlas).',
        claims=("deepseek",),
    ),
    Profile(
        "gemini_openai",
        _GEMINI,
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "Gemini's OpenAI-compatible endpoint: the whole turn in one chunk, each call "
        'whole, without index and with id "" (2025 captures), finish_reason stop after '
        "tool calls, usage on that chunk, no chunk id, keys sorted "
        "(corpus: magentic).",
        claims=("gemini_openai_compat",),
    ),
    Profile(
        "gemini_openai_thinking",
        (*_GEMINI, "thought_signatures", {"kind": "functionless_entry", "variant": "gemini"}),
        "https://generativelanguage.googleapis.com/v1beta/openai",
        "Gemini's OpenAI-compatible endpoint with a thinking model: gemini_openai plus "
        "extra_content.google.thought_signature on each call and a signature-only entry "
        ", on which ChatOpenAI raises AttributeError.",
    ),
    Profile(
        "groq",
        (
            "whole_call",
            *_COMPAT,
            _reasoning("reasoning"),
            "reasoning_channel",
            _usage("finish_chunk", "absent"),
            "x_groq",
            "groq_tool_use_failed",
        ),
        "https://api.groq.com/openai/v1",
        "Groq: each call whole in one delta, gpt-oss reasoning as reasoning+channel "
        "deltas, x_groq (request id and seed first; usage with timings at the finish), usage "
        "on the finish chunk only, and an error turn ends with event: error, code "
        "tool_use_failed and no [DONE] (corpus: pydantic-ai).",
        claims=("groq",),
    ),
    Profile(
        "kimi",
        ({"kind": "call_id_format", "style": "kimi"}, *_COMPAT),
        "https://api.moonshot.ai/v1",
        "Kimi K2 (Moonshot; vLLM and SGLang kimi_k2 parsers): call ids functions.<name>:<n> "
        "(sglang #9606, llxprt-code #712; n counts calls in the turn here, in the whole "
        "conversation on the real API).",
    ),
    Profile(
        "llamacpp",
        ("args_on_header", *_LLAMACPP),
        "http://127.0.0.1:8080/v1",
        "llama.cpp server with --jinja: the header delta carries name, id, type and the "
        "first argument piece; no usage chunk, no system fingerprint.",
    ),
    Profile(
        "llamacpp_legacy",
        ("repeat_name", "id_in_function", *_LLAMACPP),
        "http://127.0.0.1:8080/v1",
        "llama.cpp before #13800: the name on every delta and the id nested in "
        "function, so ChatOpenAI doubles the name and loses the id.",
    ),
    Profile(
        "lmstudio",
        _LMSTUDIO,
        "http://127.0.0.1:1234/v1",
        'LM Studio: continuations with name "" (and id ""); no usage chunk.',
    ),
    Profile(
        "lmstudio_trailing_entry",
        (*_LMSTUDIO, {"kind": "functionless_entry", "variant": "lmstudio"}),
        "http://127.0.0.1:1234/v1",
        'LM Studio with the trailing {"id": "", "type": "function"} entry, on which '
        "ChatOpenAI raises AttributeError.",
    ),
    Profile(
        "mistral",
        (
            "whole_call",
            "no_index",
            {"kind": "pack_fragments", "size": 64},
            "no_call_type",
            {"kind": "call_id_format", "style": "mistral"},
            *_COMPAT,
            "no_system_fingerprint",
            _usage("finish_chunk", "absent"),
            "finish_on_last_delta",
        ),
        "https://api.mistral.ai/v1",
        "Mistral La Plateforme: every call whole, all in one chunk with no index and no "
        "type, 9-character ids (plan ids in that format pass unchanged), finish_reason "
        "and usage on that chunk, no usage elsewhere (corpus: magentic, openinference).",
        claims=("mistral",),
    ),
    Profile(
        "ollama_openai",
        (
            "whole_call",
            *_COMPAT,
            "no_logprobs",
            "no_usage_chunk",
            {"kind": "call_id_format", "style": "ollama"},
            _reasoning("reasoning"),
            {"kind": "role_on_every_delta", "tool_content": ""},
        ),
        "http://127.0.0.1:11434/v1",
        "Ollama's OpenAI-compatible endpoint: whole calls, role and content on every "
        'delta (content "" beside calls), reasoning deltas, no usage (corpus: activeagent, '
        "magentic; servers before 0.4.7 also drop the index).",
        claims=("ollama",),
    ),
    Profile(
        "openrouter",
        _OPENROUTER,
        "https://openrouter.ai/api/v1",
        "OpenRouter: ': OPENROUTER PROCESSING' keep-alive comments, provider and "
        "native_finish_reason fields, role and content on every delta, usage only on the "
        "final choices: [] chunk (corpus: activeagent, chatlas, magentic).",
        claims=("openrouter",),
    ),
    Profile(
        "openrouter_double_finish",
        (*_OPENROUTER, "duplicate_finish"),
        "https://openrouter.ai/api/v1",
        "OpenRouter sending two terminal chunks with finish_reason, the second with usage "
        ': ChatOpenAI reports finish_reason "tool_callstool_calls".',
    ),
    Profile(
        "qwen",
        ("id_on_every_chunk", "type_on_every_chunk", *_COMPAT, "no_usage_chunk"),
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "Qwen on DashScope's compatible mode: name and arguments in separate "
        "chunks that repeat the id and type; langchain-core keeps one id.",
    ),
    Profile(
        "qwen_native",
        ("cumulative_args", "repeat_name", *_COMPAT, "no_usage_chunk"),
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "DashScope's native protocol forwarded as deltas: each frame repeats the "
        "arguments so far and the name, so merged arguments nest and the name doubles.",
    ),
    Profile(
        "sglang",
        (
            "shared_index",
            "id_on_every_chunk",
            {"kind": "call_id_format", "style": "sglang"},
            "stop_after_tool_calls",
            *_LOCAL,
        ),
        "http://127.0.0.1:30000/v1",
        'SGLang: ids "0", "1" repeated on every chunk while every call uses index 0 '
        "(lmdeploy #3412; calls stay apart only because the ids differ), finish_reason stop "
        "after tool calls (sglang #2877).",
    ),
    Profile(
        "vllm",
        ("repeat_name", "id_on_every_chunk", "type_on_every_chunk", *_LOCAL),
        "http://127.0.0.1:8000/v1",
        "vLLM with a parser that repeats name and id on every chunk: ChatOpenAI "
        "doubles the name; type on every entry; no usage chunk.",
    ),
    Profile(
        "vllm_no_ids",
        ("missing_id", "null_continuation_fields", "whole_args", *_LOCAL),
        "http://127.0.0.1:8000/v1",
        'vLLM sending "id": null: the name chunk, then the whole arguments; the '
        "merged call has no id, so ToolNode cannot pair its result.",
    ),
    Profile(
        "vllm_harmony",
        ("id_on_every_chunk", "changing_id", "type_on_every_chunk", *_LOCAL),
        "http://127.0.0.1:8000/v1",
        "vLLM's gpt-oss (harmony) path minting a new id mid-call: langchain-core "
        "splits the call into a head and a nameless tail.",
    ),
    Profile(
        "writer",
        (
            "null_continuation_fields",
            "no_obfuscation",
            "writer_chunks",
            "drop_done",
            {"kind": "call_id_format", "style": "vllm"},
        ),
        "https://api.writer.com/v1",
        "Writer palmyra: every choice mirrors its delta in message, nine mostly-null delta "
        "keys, id/type/name null on continuations, header arguments null, no [DONE] "
        "(corpus: openllmetry). Writer's own SDK posts to /v1/chat.",
        claims=("writer",),
    ),
    Profile(
        "xai",
        (
            "whole_call",
            "one_chunk_turn",
            *_COMPAT,
            "no_logprobs",
            {"kind": "call_id_format", "style": "xai"},
        ),
        "https://api.x.ai/v1",
        "xAI Grok: the whole turn in one chunk (role, every call whole, "
        "finish_reason, usage) (corpus: magentic).",
        claims=("xai",),
    ),
)
"""Every bundled profile, in table order."""


def profile_table() -> list[tuple[str, str, tuple[str, ...], str]]:
    """Every profile as ``(name, base dialect, quirk kinds, description)``."""
    return [
        (p.name, p.base, tuple(parse_quirk(q).kind for q in p.quirks), p.description)
        for p in PROFILES
    ]


def profile_base_url(name: str) -> str:
    """The base URL a client uses to reach profile ``name``.

    Raises:
        TooltapeUsageError: No profile has that name.
    """
    for profile in PROFILES:
        if profile.name == name:
            return profile.base_url
    raise unknown_name("profile", name, [p.name for p in PROFILES])


def corpus_claims() -> list[tuple[str, str]]:
    """``(corpus provider, profile)`` for every OpenAI-compatible provider in the corpus."""
    return sorted((claim, p.name) for p in PROFILES for claim in p.claims)
