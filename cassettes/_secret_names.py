"""Which header, query and body names carry credentials: one rule, any case or style.

A name is split into words (``accessToken``, ``access_token``, ``Access-Token``
and ``ACCESS_TOKEN`` all read ``access token``) and is a credential when:

- it holds a credential word anywhere: ``password`` (``passwd``, ``pwd``,
  ``passphrase``), ``secret``, ``credential(s)``, ``apikey``, ``authorization``,
  ``cookie``; unless its last word only describes it (``password_length``,
  ``secret_name``, ``cookie_policy``);
- it ends in ``token``, ``auth``, ``jwt``, ``bearer`` or ``assertion`` (OAuth's
  ``assertion`` and ``client_assertion``, signed JWTs), unless the word before
  it makes it a count or a vocabulary entry (``max_token``, ``eos_token``,
  ``page_token``). Plural ``tokens`` is never a credential, so ``max_tokens``,
  ``input_tokens``, ``token_count``, ``cache_creation_input_tokens`` stay;
- it ends in ``key`` after a word naming a credential (``api_key``,
  ``x-api-key``, ``private_key``, ``ocp-apim-subscription-key``, Azure Functions'
  ``x-functions-key``), or, as a query or form parameter, it is ``key`` alone
  (Google's API key) or ``code`` alone (Azure Functions' ``?code=``, OAuth's
  authorization code); ``idempotency-key`` or a body field ``key`` or ``code``
  are not credentials;
- as a header or query parameter only, it holds ``signature`` or is ``sig``
  (``X-Goog-Signature``, ``X-Amz-Signature``, Azure's ``sig``): in a body,
  ``signature`` is the integrity signature of an Anthropic thinking block (or
  Gemini's ``thoughtSignature``), which the client must send back unchanged.

``secretary`` is one word, not ``secret``: not a credential.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Where", "looks_secret", "name_words"]

Where = Literal["header", "query", "field"]
"""Where a name appears: a header, a query (or form) parameter, a JSON body field."""

_STRONG = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "secret",
        "credential",
        "credentials",
        "apikey",
        "authorization",
        "cookie",
        "privatekey",
    }
)
_DESCRIBES = frozenset(
    {
        "name",
        "names",
        "type",
        "kind",
        "length",
        "len",
        "size",
        "count",
        "hint",
        "policy",
        "required",
        "enabled",
        "mode",
        "ref",
        "path",
        "file",
        "id",
        "field",
        "fields",
        "format",
        "prompt",
        "label",
        "url",
        "uri",
        "expires",
        "expiry",
        "ttl",
    }
)
_ENDINGS = frozenset({"token", "auth", "jwt", "bearer", "assertion"})
_NOT_CREDENTIAL_BEFORE_TOKEN = frozenset(
    {
        "max",
        "min",
        "num",
        "stop",
        "eos",
        "bos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "start",
        "end",
        "special",
        "next",
        "last",
        "first",
        "page",
        "input",
        "output",
        "prompt",
        "completion",
        "total",
        "reasoning",
        "cached",
        "cache",
    }
)
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "client",
        "subscription",
        "auth",
        "signing",
        "encryption",
        "master",
        "account",
        "app",
        "service",
        "license",
        "consumer",
        "shared",
        "session",
        "admin",
        "user",
        "functions",
        "function",
        "host",
    }
)
_QUERY_ALONE = frozenset({"key", "code"})
_SIGNATURES = frozenset({"signature", "sig"})

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def name_words(name: str) -> list[str]:
    """The lower-case words of a name in any style (``X-Goog-Signature``, ``clientSecret``)."""
    return [w.lower() for w in _WORD.findall(name)]


def looks_secret(name: str, where: Where = "field") -> bool:
    """True when a header, query parameter or body field of this name carries a credential."""
    words = name_words(name)
    if not words:
        return False
    last = words[-1]
    if where != "field" and (_SIGNATURES & set(words)):
        return True
    if where == "query" and len(words) == 1 and last in _QUERY_ALONE:
        return True
    if last not in _DESCRIBES and _STRONG & set(words):
        return True
    before = words[-2] if len(words) > 1 else ""
    if last in _ENDINGS:
        return before not in _NOT_CREDENTIAL_BEFORE_TOKEN
    return last == "key" and before in _KEY_QUALIFIERS
