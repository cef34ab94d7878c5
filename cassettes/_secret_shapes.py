"""Credentials found by what they look like, and by name inside what the server sends back.

A value is a credential by shape when it is:

- a JWT (``eyJ...`` header, ``.``, ``eyJ...`` payload, ``.``, signature);
- a key with a provider's published prefix: OpenAI and Anthropic ``sk-``
  (``sk-proj-``, ``sk-ant-``), Stripe ``sk_live_``/``rk_test_``..., AWS access
  key ids ``AKIA``/``ASIA``, Google API keys ``AIza``, GitHub ``ghp_``,
  ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``, ``github_pat_``, Slack ``xox[abposr]-``,
  Hugging Face ``hf_``, GitLab ``glpat-``, Groq ``gsk_``, Replicate ``r8_``,
  xAI ``xai-``, each followed by enough key characters not to be a word.

A server also mints credentials (an OAuth token response, a created API key):
:func:`minted_in` finds them in a parsed body, at any depth, in lists and in
JSON held inside strings (a tool call's ``arguments``), by name
(:func:`~tooltape.cassettes._secret_names.looks_secret`) when the value reads
as a credential (no whitespace, long enough: ``"secret_message": "hi there"``
is text), and by shape anywhere.

Composite credentials are remembered by their parts too
(:func:`credential_parts`): the access key id before the first ``/`` of an AWS
``Credential`` (``AKIA.../20240101/us-east-1/s3/aws4_request``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tooltape.cassettes._secret_forms import worth_sweeping
from tooltape.cassettes._secret_names import looks_secret, name_words
from tooltape.harness.json_text import loads

__all__ = ["SHAPES", "credential_parts", "minted_in", "shaped", "strings_as_json"]

_KEY = r"[A-Za-z0-9_\-]"
SHAPES = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JWT
    rf"|sk-{_KEY}{{20,}}"
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_\-]{35}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}"
    r"|gsk_[A-Za-z0-9]{30,}"
    r"|r8_[A-Za-z0-9]{30,}"
    r"|xai-[A-Za-z0-9]{30,}"
    r")(?![A-Za-z0-9_\-])"
)
"""Credentials by their shape (see the module docstring)."""
_SHAPES_BYTES = re.compile(SHAPES.pattern.encode())

_MIN_MINTED = 12
"""A named value shorter than this is not taken for a minted credential."""
_BARE_TOKEN = 20
"""``token`` alone also names a logprob's text: only a long value with a digit counts."""
_WHITESPACE = re.compile(r"\s")
_MAX_DEPTH = 64


def shaped(text: str | bytes) -> list[str]:
    """Every credential-shaped value in ``text``."""
    if isinstance(text, bytes):
        return [m.decode("latin-1") for m in _SHAPES_BYTES.findall(text)]
    return SHAPES.findall(text)


def credential_parts(value: str) -> list[str]:
    """The parts of a composite credential worth remembering on their own (may be empty)."""
    head, slash, _ = value.partition("/")
    if slash and worth_sweeping(head) and not head.startswith(("http", ".")):
        return [head]
    return []


def _reads_as_credential(name: str, value: str) -> bool:
    if len(value) < _MIN_MINTED or _WHITESPACE.search(value) or not worth_sweeping(value):
        return False
    if name_words(name) == ["token"]:
        return len(value) >= _BARE_TOKEN and any(c.isdigit() for c in value)
    return True


def strings_as_json(value: str) -> Any:
    """``value`` parsed when it holds a JSON object or array, else ``None``."""
    text = value.strip()
    if not text or text[0] not in "[{":
        return None
    try:
        return loads(text)
    except (ValueError, RecursionError):
        return None


def _walk(value: Any, depth: int) -> Iterator[str]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            named = looks_secret(str(key), "field")
            for leaf in item if isinstance(item, list) else [item]:
                if named and isinstance(leaf, str) and _reads_as_credential(str(key), leaf):
                    yield leaf
                    yield from credential_parts(leaf)
            yield from _walk(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, depth + 1)
    elif isinstance(value, str):
        yield from shaped(value)
        inner = strings_as_json(value)
        if inner is not None:
            yield from _walk(inner, depth + 1)


def minted_in(value: Any) -> set[str]:
    """Credentials in parsed JSON: by name at any depth, by shape, inside JSON strings."""
    return set(_walk(value, 0))
