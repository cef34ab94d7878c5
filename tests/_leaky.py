"""A leaky provider on 127.0.0.1 and the forms of a secret (the secret-scrubbing tests).

The leaky provider stands in for a real one that echoes credentials back: it
serves OpenAI Chat and Anthropic Messages streams (and a form endpoint), sets a
cookie with every attribute, and echoes secrets in its headers and, in a
leading SSE comment, in every form a server might use.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from urllib.parse import quote, quote_plus

from tooltape.fake_providers import Wire, get_dialect
from tooltape.harness import Plan, PlannedCall

# Tool-call arguments full of words a careless scrubber takes for secrets.
COOKIE_PLAN = Plan(
    calls=[
        PlannedCall(
            name="set_cookie_policy",
            args={
                "cookie": "theme=dark; Domain=127.0.0.1; Path=/; Secure; HttpOnly; SameSite=Lax",
                "host": "127.0.0.1",
                "words": "Secure HttpOnly Domain Max-Age=3600 Expires session token secret",
                "max_tokens": 256,
            },
            id="call_cookie_1",
        )
    ]
)

ECHOED = {
    "raw": "echo-raw-Zq8sV2mK7pLx3N",
    "json": 'echo-json-"quoted"/slash\\back-9fTq',
    "unicode": "echo-unicode-é-ü-Wm4r7Kd2",
    "percent": "echo-percent/?&=+ #-Hd82jQv",
    "base64": "echo-base64-Pv7Lq2Zx9WmT4k",
}
"""Secrets the client sends (as headers) that the server echoes, each in its form."""


def echo_forms(secret: str) -> dict[str, str]:
    """A secret in every form a server echoes it in."""
    return {
        "raw": secret,
        "json": json.dumps(secret)[1:-1],
        "json_ascii": json.dumps(secret, ensure_ascii=True)[1:-1],
        "unicode": "".join(f"\\u{ord(c):04x}" for c in secret),
        "percent": quote(secret, safe=""),
        "percent_plus": quote_plus(secret),
        "base64": base64.b64encode(secret.encode()).decode(),
        "base64_url": base64.urlsafe_b64encode(("::" + secret).encode()).decode(),
    }


def leaked_forms(secret: str) -> list[bytes]:
    """What must not be in any written file for ``secret``: each form (base64 by its core)."""
    forms = echo_forms(secret)
    found = [forms[k].encode() for k in ("raw", "json", "json_ascii", "unicode", "percent")]
    found.append(forms["percent_plus"].encode())
    for prefix in (b"", b"a", b"ab"):  # every alignment inside a longer base64 text
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(prefix + secret.encode())[4:-4]
            found.append(core)
    return found


def echo_block() -> bytes:
    """An SSE comment event echoing every :data:`ECHOED` secret in every form."""
    lines = [f": {name} {form}" for s in ECHOED.values() for name, form in echo_forms(s).items()]
    return ("\n".join(lines) + "\n\n").encode()


SET_COOKIE = "sid={}; Domain=127.0.0.1; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=3600"
SET_COOKIE_SECRET = "setcookie-Vb71xQ-secret-9KpL"


def leaky_app(wires: dict[str, Wire]):  # type: ignore[no-untyped-def]
    """An ASGI provider: ``wires`` by path; echoes secrets in headers and an SSE comment."""

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        wire = wires.get(scope["path"])
        headers = [(b"set-cookie", SET_COOKIE.format(SET_COOKIE_SECRET).encode())]
        headers += [
            (b"x-echo-raw", ECHOED["raw"].encode()),
            (b"x-echo-b64", echo_forms(ECHOED["base64"])["base64"].encode()),
            (b"x-echo-pct", echo_forms(ECHOED["percent"])["percent"].encode()),
        ]
        if wire is None:  # the form endpoint: a JSON echo
            body = json.dumps({"ok": True, "echo": ECHOED["json"]}).encode()
            headers.append((b"content-type", b"application/json"))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        headers += [(k.encode(), v.encode()) for k, v in wire.headers]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for read in (echo_block(), *wire.reads):
            await send({"type": "http.response.body", "body": read, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def provider_wires() -> dict[str, Wire]:
    """The streams the leaky provider serves, by path."""
    return {
        "/v1/chat/completions": get_dialect("openai_chat").render(COOKIE_PLAN),
        "/v1/messages": get_dialect("anthropic_messages").render(COOKIE_PLAN),
    }


def files_under(root: Path) -> list[Path]:
    """Every file under ``root``, hidden ones included."""
    return [Path(d) / name for d, _, names in os.walk(root) for name in names]
