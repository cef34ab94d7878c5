"""Secrets the server mints, hides or splits: the cases of issue 21's second round, and a count.

A provider on 127.0.0.1 (:func:`minted_app`) answers each case's path the way
a real service does: an OAuth token endpoint, an SSE stream announcing a new
key, a presigned redirect, zstd and stacked gzip bodies, a multipart upload,
JWT client assertions, Azure Functions keys, AWS presigned URLs, and a chat
stream echoing a key in 10-character argument fragments. Each :class:`Case`
records through real httpx, httpx2 or the official ``openai`` SDK.

:func:`secret_bytes` counts what a written cassette still holds of the
secrets: every form :func:`_leaky.leaked_forms` knows, inside compressed
bodies too, and a secret that the joined argument fragments of a stream spell.
Run this file to count them over every case (``python tests/_minted.py``).
"""

from __future__ import annotations

import base64
import gzip
import json
import sys
import tempfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import openai
import yaml
import zstandard
from _leaky import leaked_forms

# -- the secrets ------------------------------------------------------------------------

ACCESS_TOKEN = "at-Hq7Lm2Vx9Kp4Zw8Rt3Nb6Yc1"
REFRESH_TOKEN = "rt-Gf5Dk8Sj2Lq7Xv4Mb9Pz3Wn6"


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _jwt(subject: str) -> str:
    header, claims = _b64({"alg": "RS256", "typ": "JWT"}), _b64({"sub": subject, "exp": 1})
    return f"{header}.{claims}.c2lnLVpx8Lm4Vw2Kp7"


ID_TOKEN = _jwt("id-token-user-7731")
CLIENT_SECRET = "cs-Tz4Wq8Lk1Mv6Rb3Xn9"
MINTED_KEY = "ak-live-9f8e7d6c5b4a3f2e1d0c"
SIGNED_KEY = "gkey-Pw2Lm8Qx5Zr1Vk7Tn4"
SIGNATURE = "f3a9c81d27b6e05f4a1c9d8e7b6a5f403928c1d0e9f8a7b6c5d4e3f2a1b0c9d8"
ACCESS_KEY_ID = "AKIAQ3EGUTSHZRX7WN5D"
CREDENTIAL = f"{ACCESS_KEY_ID}/20260101/us-east-1/s3/aws4_request"
ECHOED_KEY = "sk-echo-Jb3Lq8Wm1Zv6Xk4Rp9Tn"
UPLOAD_KEY = "up-key-Vh6Nd2Lp9Qx4Mz7Wk1"
ASSERTION = _jwt("service-account-42")
CLIENT_ASSERTION = _jwt("client-app-77")
FUNCTION_CODE = "fn-code-Yr5Tk2Lp8Wq3Zm6Xv9"
FUNCTION_KEY = "fn-key-Bn4Hs7Lq1Wx8Zk3Pv6"
LISTED_KEYS = ["lk-one-Kp3Zq7Wm2Xv9Lt4", "lk-two-Rd6Nh1Qs8Yb5Jc2"]
ARGUMENT_KEY = "arg-key-Wv2Lm9Qp4Zx7Tk1Rn"
SPLIT_KEY = "sk-proj-Hx4Lp9Wq2Zm7Vk3Rt8Nb5Yc"

# -- the provider -----------------------------------------------------------------------


def _sse(events: list[dict[str, Any]]) -> bytes:
    return (
        b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + b"data: [DONE]\n\n"
    )


def _chunk(arguments: str, first: bool = False) -> dict[str, Any]:
    call: dict[str, Any] = {"index": 0, "function": {"arguments": arguments}}
    if first:
        call.update(id="call_split_1", type="function")
        call["function"]["name"] = "store_key"
    return {
        "id": "chatcmpl-split",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}],
    }


def split_stream(secret: str, size: int = 10) -> bytes:
    """An OpenAI Chat stream calling ``store_key`` with ``secret``, in ``size``-character pieces."""
    arguments = json.dumps({"api_key": secret, "label": "prod"})
    pieces = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    events = [_chunk("", first=True)] + [_chunk(p) for p in pieces]
    events.append(
        {**_chunk(""), "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    )
    return _sse(events)


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _respond(
    path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, list[tuple[str, str]], list[bytes]]:
    json_type = ("content-type", "application/json")
    if path == "/oauth/token":
        token = {
            "access_token": ACCESS_TOKEN,
            "refresh_token": REFRESH_TOKEN,
            "id_token": ID_TOKEN,
            "token_type": "Bearer",
            "expires_in": 3600,
        }
        return 200, [json_type], [json.dumps(token).encode()]
    if path == "/v1/keys/stream":
        events = [{"type": "key.created", "key": {"id": "key_1", "api_key": MINTED_KEY}}]
        events.append({"type": "done"})
        return 200, [("content-type", "text/event-stream")], [_sse(events)]
    if path == "/download":
        location = (
            f"https://storage.invalid/bucket/f.bin?key={SIGNED_KEY}&X-Amz-Algorithm=AWS4-HMAC-SHA256"
            f"&X-Amz-Credential={CREDENTIAL.replace('/', '%2F')}&X-Amz-Signature={SIGNATURE}"
        )
        return 302, [("location", location), ("content-length", "0")], [b""]
    if path in ("/zstd", "/gzip-gzip"):
        echoed = headers.get("authorization", "").removeprefix("Bearer ")
        text = json.dumps(_completion(f"your key {echoed} works")).encode()
        if path == "/zstd":
            return (
                200,
                [json_type, ("content-encoding", "zstd")],
                [zstandard.ZstdCompressor().compress(text)],
            )
        return (
            200,
            [json_type, ("content-encoding", "gzip, gzip")],
            [gzip.compress(gzip.compress(text))],
        )
    if path == "/v1/chat/completions" and headers.get("x-case") == "split":
        return 200, [("content-type", "text/event-stream")], [split_stream(SPLIT_KEY)]
    if path == "/s3/object":
        owner = f"<Owner><ID>{ACCESS_KEY_ID}</ID></Owner>".encode()
        return 200, [("content-type", "application/xml")], [b"<Result>" + owner + b"</Result>"]
    # Everything else: a chat completion, or an echo of the body's size.
    reply = (
        _completion("ok") if path.endswith("/chat/completions") else {"ok": True, "size": len(body)}
    )
    return 200, [json_type], [json.dumps(reply).encode()]


def minted_app():  # type: ignore[no-untyped-def]
    """An ASGI service answering each case's path (see :func:`_respond`)."""

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        status, out, reads = _respond(scope["path"], body, headers)
        raw = [(k.encode(), v.encode()) for k, v in out]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        for read in reads:
            await send({"type": "http.response.body", "body": read, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


# -- the cases --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One way a secret reached disk: what the client does, and the secrets it must not leave."""

    name: str
    what: str
    run: Callable[[str], Any]
    secrets: tuple[str, ...]
    replays: bool = False
    """Replay is part of the case (a random boundary, a compressed body)."""


def _oauth(url: str) -> Any:
    with httpx.Client() as client:
        form = {
            "grant_type": "client_credentials",
            "client_id": "app-1",
            "client_secret": CLIENT_SECRET,
        }
        return client.post(url + "/oauth/token", data=form).json()


def _sse_key(url: str) -> Any:
    with (
        httpx2.Client() as client,
        client.stream("POST", url + "/v1/keys/stream", json={}) as response,
    ):
        return "".join(response.iter_text())


def _redirect(url: str) -> Any:
    with httpx.Client(follow_redirects=False) as client:
        response = client.get(url + "/download", params={"file": "f.bin"})
        return response.status_code, response.headers["location"].split("?")[0]


def _compressed(path: str, client_type: Any) -> Callable[[str], Any]:
    def run(url: str) -> Any:
        with client_type() as client:
            headers = {"authorization": f"Bearer {ECHOED_KEY}"}
            response = client.post(url + path, json={"model": "m", "messages": []}, headers=headers)
            # httpx before 0.27.1 leaves zstd bodies coded (the oldest httpx we allow).
            return json.loads(_undo_codings(response.content))

    return run


def _gzip_request(url: str) -> Any:
    body = gzip.compress(
        json.dumps({"model": "m", "user_api_key": ECHOED_KEY, "input": "hi"}).encode()
    )
    headers = {"content-type": "application/json", "content-encoding": "gzip"}
    with httpx2.Client() as client:
        return client.post(url + "/v1/embeddings", content=body, headers=headers).json()


def _multipart(url: str) -> Any:
    with httpx.Client() as client:
        response = client.post(
            url + "/v1/files",
            data={"purpose": "fine-tune", "api_key": UPLOAD_KEY},
            files={"file": ("train.jsonl", b'{"messages": []}\n', "application/jsonl")},
        )
        return response.json()


def _assertions(url: str) -> Any:
    with httpx.Client() as client:
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": ASSERTION}
        first = client.post(url + "/token/jwt-bearer", data=form).json()
        body = {
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": CLIENT_ASSERTION,
        }
        return first, client.post(url + "/token/client", json=body).json()


def _azure_functions(url: str) -> Any:
    with httpx2.Client() as client:
        headers = {"x-functions-key": FUNCTION_KEY}
        return client.get(
            url + "/api/summarise", params={"code": FUNCTION_CODE}, headers=headers
        ).json()


def _listed(url: str) -> Any:
    with httpx.Client() as client:
        return client.post(
            url + "/v1/rotate", json={"api_key": LISTED_KEYS, "dry_run": True}
        ).json()


def _arguments(url: str) -> Any:
    with openai.OpenAI(
        api_key="sk-test-not-a-real-key-000000", base_url=url + "/v1", max_retries=0
    ) as client:
        arguments = json.dumps({"service": "billing", "api_key": ARGUMENT_KEY})
        messages: Any = [
            {"role": "user", "content": "connect billing"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "connect", "arguments": arguments},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "connected"},
        ]
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        return reply.choices[0].message.content


def _amz_credential(url: str) -> Any:
    query = {
        "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
        "X-Amz-Credential": CREDENTIAL,
        "X-Amz-Signature": SIGNATURE,
    }
    with httpx.Client() as client:
        return client.get(url + "/s3/object", params=query).text


def _split(url: str) -> Any:
    with openai.OpenAI(
        api_key=SPLIT_KEY, base_url=url + "/v1", max_retries=0, default_headers={"x-case": "split"}
    ) as client:
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "store my key"}], stream=True
        )
        return "".join(
            call.function.arguments or ""
            for chunk in stream
            for call in (chunk.choices[0].delta.tool_calls or [] if chunk.choices else [])
            if call.function
        )


CASES = (
    Case("oauth_tokens", "OAuth access/refresh/id tokens in a JSON response", _oauth,
         (ACCESS_TOKEN, REFRESH_TOKEN, ID_TOKEN, CLIENT_SECRET)),
    Case("sse_minted_key", "an api_key minted in an SSE event", _sse_key, (MINTED_KEY,)),
    Case("redirect_location", "an unfollowed redirect's signed Location", _redirect,
         (SIGNED_KEY, SIGNATURE, ACCESS_KEY_ID)),
    Case("zstd_body", "a zstd response body echoing the key", _compressed("/zstd", httpx.Client),
         (ECHOED_KEY,), replays=True),
    Case("gzip_gzip_body", "a 'gzip, gzip' response body echoing the key",
         _compressed("/gzip-gzip", httpx2.Client), (ECHOED_KEY,), replays=True),
    Case("gzip_request", "a gzip-compressed request body", _gzip_request, (ECHOED_KEY,),
         replays=True),
    Case("multipart", "multipart form fields (name=\"api_key\")", _multipart, (UPLOAD_KEY,),
         replays=True),
    Case("jwt_assertions", "JWTs in assertion and client_assertion", _assertions,
         (ASSERTION, CLIENT_ASSERTION)),
    Case("azure_functions", "Azure Functions ?code= and x-functions-key", _azure_functions,
         (FUNCTION_CODE, FUNCTION_KEY)),
    Case("list_api_key", "a list-valued \"api_key\": [...]", _listed, tuple(LISTED_KEYS)),
    Case("arguments_string", "an api_key inside a tool call's arguments string", _arguments,
         (ARGUMENT_KEY,), replays=True),
    Case("amz_credential", "the access key id inside X-Amz-Credential", _amz_credential,
         (ACCESS_KEY_ID, SIGNATURE)),
    Case("split_fragments", "a key echoed in 10-character argument fragments", _split, (SPLIT_KEY,),
         replays=True),
)  # fmt: skip


# -- counting what is left ----------------------------------------------------------------


def _undo_codings(data: bytes) -> bytes:
    """``data`` with any gzip, zlib or zstd layers undone (as far as they go)."""
    for _ in range(5):
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        elif data[:4] == b"\x28\xb5\x2f\xfd":
            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        elif data[:1] == b"\x78":
            try:
                data = zlib.decompress(data)
            except zlib.error:
                return data
        else:
            return data
    return data


def _fields(path: Path) -> list[bytes]:
    """Every URL, header value and body of the file, bodies with their codings undone."""
    data = yaml.safe_load(path.read_bytes()) or {}
    found = []
    for interaction in data.get("interactions", []):
        request, response = interaction["request"], interaction["response"]
        found.append(str(request.get("uri", "")).encode())
        for headers in (request.get("headers") or {}, response.get("headers") or {}):
            found += [str(v).encode() for values in headers.values() for v in values]
        for body in (request.get("body"), (response.get("body") or {}).get("string")):
            if body:
                found.append(_undo_codings(body if isinstance(body, bytes) else body.encode()))
    return found


def _joined_arguments(body: bytes) -> bytes:
    """The ``arguments`` fragments of an OpenAI Chat stream, joined as the client joins them."""
    joined = []
    for line in body.splitlines():
        if not line.startswith(b"data: {"):
            continue
        for choice in json.loads(line[6:]).get("choices", []):
            for call in choice.get("delta", {}).get("tool_calls") or []:
                joined.append(call.get("function", {}).get("arguments") or "")
    return "".join(joined).encode()


def secret_bytes(path: Path, secrets: tuple[str, ...]) -> int:
    """How many bytes of ``secrets`` the file holds: in any form, compressed, or split."""
    raw, fields = path.read_bytes(), _fields(path)
    total = 0
    for secret in secrets:
        forms = set(leaked_forms(secret))

        def count(data: bytes, forms: set[bytes] = forms) -> int:
            return sum(data.count(form) for form in forms)

        whole = max(count(raw), sum(count(f) for f in fields))
        split = sum(max(0, count(_joined_arguments(f)) - count(f)) for f in fields)
        total += len(secret) * (whole + split)
    return total


def measure(record: Callable[[Path], Any], url: str, root: Path) -> tuple[int, int]:
    """Record every case; the secret bytes left on disk and in how many cases."""
    total = cases = 0
    for case in CASES:
        path = root / f"{case.name}.yaml"
        try:
            with record(path):
                case.run(url)
        except Exception as error:  # a refused write leaves nothing; say what else went wrong
            print(f"{case.name}: {type(error).__name__}: {str(error)[:200]}", file=sys.stderr)
        left = secret_bytes(path, case.secrets) if path.exists() else 0
        print(f"{case.name:20} {left:5} secret bytes  ({case.what})")
        total += left
        cases += left > 0
    return total, cases


if __name__ == "__main__":
    from tooltape.cassettes import record
    from tooltape.fake_providers import serve_in_thread

    with tempfile.TemporaryDirectory() as folder, serve_in_thread(minted_app()) as url:
        total, cases = measure(record, url, Path(folder))
    print(f"{total} secret bytes in {cases} of {len(CASES)} cases")
