"""No secret on disk, and nothing else changed: recording through real clients, then replay.

The clients are real (the official ``openai`` and ``anthropic`` SDKs on httpx2,
plain ``httpx``, LangChain's ``ChatOpenAI``); the provider is the leaky one of
the conftest, on 127.0.0.1, which echoes secrets back in every form.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import anthropic
import httpx
import httpx2
import openai
import pytest
from _leaky import (
    COOKIE_PLAN,
    ECHOED,
    SET_COOKIE_SECRET,
    echo_block,
    files_under,
    leaked_forms,
)
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tooltape.cassettes import CassetteError, load_cassette, record, use_cassette
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._secret_names import looks_secret

OPENAI_KEY = "sk-openai-Q8v2LmZ4xT7pW1"
ANTHROPIC_KEY = "sk-ant-api03-Hy6Tg3Rf0Ed"
BASIC_PASSWORD = "proxy-pass-5Gh8Jk2Lz"
USERINFO_PASSWORD = "userinfo-pass-9Lk3Jh6Gf2"
COOKIES = {"session": "cookie-session-3Xc6Vb9Nm1", "csrf_token": "cookie-csrf-8Mn2Bv5Cx4"}

HEADERS = {
    "X-Auth-Token": ECHOED["raw"],
    "x-client-secret": ECHOED["json"],
    "x-goog-api-key": ECHOED["base64"],
    "Api-Key": "hdr-api-key-7Hq2Lm9Vx3",
    "OCP-APIM-SUBSCRIPTION-KEY": "hdr-ocp-key-4Nz8Kw1Pd6",
    "X-Amz-Security-Token": "hdr-amz-token-2Rf5Ty8Gh1",
    "X-Session-Token": "hdr-session-token-6Yu3Io9Pk2",
    "X-Access-Token": "hdr-access-token-1Qw4Er7Ty0",
    "Proxy-Authorization": "Basic " + base64.b64encode(f"proxy:{BASIC_PASSWORD}".encode()).decode(),
    "openai-organization": "org-Secret7Lk4Jh1Gf8",
    "openai-project": "proj-Secret2Hg5Fd8Sa1",
    "Cookie": "; ".join(f"{k}={v}" for k, v in COOKIES.items()) + "; theme=dark",
    "x-debug": f"copy of {OPENAI_KEY}",  # an echo under an innocent name
    "x-request-purpose": "tokens secretary Domain=127.0.0.1",
}
QUERY = {
    "key": "q-key-Ab3Cd6Ef9Gh",
    "api_key": "q-api-key-Jk2Lm5Np8",
    "accessToken": ECHOED["percent"],
    "X-Goog-Signature": "q-goog-sig-Qr4St7Uv0",
    "X-Amz-Signature": "q-amz-sig-Wx1Yz4Ab7",
    "X-Amz-Credential": "AKIAEXAMPLE7/20240101/us-east-1/s3/aws4_request",
    "sig": "q-azure-sig-Cd0Ef3Gh6",
    "client_secret": "q-client-secret-Ij9Kl2Mn5",
    "token": "q-token-Op8Qr1St4",
    "api-version": "2024-10-21",
}
BODY = {
    "password": "body-password-Uv7Wx0Yz3",
    "api_key": "body-api-key-Ab6Cd9Ef2",
    "credential": "body-credential-Gh5Ij8Kl1",
    "x-api-key": "body-x-api-key-Mn4Op7Qr0",
    "metadata": {
        "session_token": "body-session-token-St3Uv6Wx9",
        "nested": [
            {
                "clientSecret": ECHOED["unicode"],
                "accessToken": "body-access-token-Yz2Ab5Cd8",
                "private_key": "-----BEGIN KEY-----body-pk-Ef1Gh4Ij7-----END KEY-----",
                "token_count": 3,
                "secretary": "Ms Moneypenny",
            }
        ],
    },
}
FORM = {
    "client_secret": "form-client-secret-Kl0Mn3Op6",
    "password": "form-password-Qr9St2Uv5",
    "refresh_token": "form-refresh-token-Wx8Yz1Ab4",
    "grant_type": "refresh_token",
    "username": "alice",
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_cookie_policy",
            "parameters": {"type": "object", "properties": {"password": {"type": "string"}}},
        },
    }
]


def _places() -> list[tuple[str, str]]:
    """Every place a secret is sent or echoed, with the secret."""
    places = [("authorization", OPENAI_KEY), ("x-api-key", ANTHROPIC_KEY)]
    places += [(f"header {k}", v) for k, v in HEADERS.items() if looks_secret(k, "header")]
    places.remove(("header Cookie", HEADERS["Cookie"]))
    places += [(f"cookie {k}", v) for k, v in COOKIES.items()]
    places += [("set-cookie", SET_COOKIE_SECRET), ("userinfo", USERINFO_PASSWORD)]
    places += [("basic auth", BASIC_PASSWORD), ("echo x-debug", OPENAI_KEY)]
    places += [(f"query {k}", v) for k, v in QUERY.items() if looks_secret(k, "query")]
    places += [(f"body {k}", v) for k, v in BODY.items() if isinstance(v, str)]
    places += [("body metadata.session_token", BODY["metadata"]["session_token"])]  # type: ignore[index]
    nested = BODY["metadata"]["nested"][0]  # type: ignore[index]
    places += [(f"body nested {k}", nested[k]) for k in ("clientSecret", "accessToken")]
    places += [("body nested private_key", nested["private_key"])]
    places += [(f"form {k}", v) for k, v in FORM.items() if looks_secret(k, "query")]
    places += [("echo in a user message", OPENAI_KEY)]
    places += [("response header echo", ECHOED[k]) for k in ("raw", "base64", "percent")]
    places += [(f"response body echo {k}", v) for k, v in ECHOED.items()]
    places += [("response JSON echo", ECHOED["json"])]
    return places


PLACES = _places()
SECRETS = sorted({secret for _, secret in PLACES})


def _record_everything(url: str) -> dict[str, object]:
    """Send the secrets through every client; what each got back."""
    got: dict[str, object] = {}
    with openai.OpenAI(
        api_key=OPENAI_KEY,
        base_url=url + "/v1",
        default_headers=HEADERS,
        default_query=QUERY,
        max_retries=0,
    ) as client:
        stream = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": f"my key is {OPENAI_KEY}"}],
            tools=TOOLS,  # type: ignore[arg-type]
            max_tokens=256,
            stream=True,
            extra_body=BODY,
        )
        deltas = [c.choices[0].delta for c in stream if c.choices]
    got["openai"] = "".join(
        t.function.arguments or "" for d in deltas for t in d.tool_calls or [] if t.function
    )
    with (
        anthropic.Anthropic(
            api_key=ANTHROPIC_KEY,
            base_url=url,
            default_headers=HEADERS,
            default_query=QUERY,
            max_retries=0,
        ) as claude,
        claude.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=256,
            messages=[{"role": "user", "content": "hi"}],
            extra_body=BODY,
        ) as events,
    ):
        message = events.get_final_message()
    got["anthropic"] = [b.input for b in message.content if b.type == "tool_use"]
    closing = httpx2.Client()
    model = ChatOpenAI(
        http_client=closing,
        model="gpt-4o-mini",
        api_key=SecretStr(OPENAI_KEY),
        base_url=url + "/v1",
        default_headers=HEADERS,
        default_query=QUERY,
        extra_body=BODY,
        max_retries=0,
    )
    full = None
    with closing:
        for chunk in model.stream("hello"):
            full = chunk if full is None else full + chunk
    got["langchain"] = full.tool_calls if full is not None else None  # type: ignore[attr-defined]
    host = url.removeprefix("http://")
    with httpx.Client() as plain:
        response = plain.post(
            f"http://alice:{USERINFO_PASSWORD}@{host}/oauth/token",
            data=FORM,
            params=QUERY,
            headers={"Cookie": HEADERS["Cookie"], "x-debug": HEADERS["x-debug"]},
        )
    got["httpx"] = response.json()
    return got


def test_secrets_sit_in_at_least_forty_places():
    assert len(PLACES) >= 40, len(PLACES)
    assert all(len(secret) >= 16 for secret in SECRETS)


@pytest.mark.parametrize("request_headers", ["all", ("content-type",)])
def test_no_byte_of_any_secret_in_any_form_reaches_any_file(
    tmp_path, leaky_provider, request_headers
):
    url, _ = leaky_provider
    with record(tmp_path / "sub" / "secrets.yaml", request_headers=request_headers) as session:
        _record_everything(url)
    assert len(session.recorded) == 4
    files = files_under(tmp_path)
    assert files == [tmp_path / "sub" / "secrets.yaml"]
    for path in files:
        data = path.read_bytes()
        for secret in SECRETS:
            for form in leaked_forms(secret):
                assert form not in data, (path.name, secret, form)
    text = files[0].read_text()
    assert "127.0.0.1" in text and "api-version=2024-10-21" in text
    if request_headers == "all":
        assert "tokens secretary Domain=127.0.0.1" in text  # an innocent header, untouched


def _expected_request_body(sent: dict) -> dict:
    """What the recorded JSON body must be: ``sent`` without the credential fields."""
    body = {k: v for k, v in sent.items() if k not in ("password", "api_key", "credential")}
    body.pop("x-api-key")
    nested = {"token_count": 3, "secretary": "Ms Moneypenny"}
    body["metadata"] = {"nested": [nested]}
    return body


def test_replay_of_the_scrubbed_cassette_is_faithful_in_everything_but_the_secrets(
    tmp_path, leaky_provider
):
    url, wires = leaky_provider
    path = tmp_path / "secrets.yaml"
    with record(path):
        first = _record_everything(url)
    cassette = load_cassette(path)
    echo = echo_block()
    for interaction in cassette.interactions[:3]:
        wire = wires[interaction.request.path]
        body = interaction.response.body
        # The stream after the echo is byte for byte the server's; the echo only lost secrets.
        assert body[len(echo) :] == wire.body
        assert (len(body) == len(echo) and body != echo) or len(body) == len(echo) + len(wire.body)
        assert all(a == b or a == ord("*") for a, b in zip(body, echo, strict=False))
        assert body[: len(echo)].count(b"\n") == echo.count(b"\n")
        headers = dict(interaction.response.headers)
        assert "set-cookie" not in headers and headers["x-echo-raw"] == "*" * len(ECHOED["raw"])
        assert headers["content-type"] == dict(wire.headers)["content-type"]
        request = interaction.request
        assert request.uri.startswith(url + interaction.request.path)  # host kept: 127.0.0.1
        assert request.query == [("api-version", "2024-10-21")]
    chat = cassette.interactions[0].request.json()
    assert chat["tools"] == TOOLS and chat["max_tokens"] == 256
    assert chat["messages"] == [{"role": "user", "content": "my key is " + "*" * len(OPENAI_KEY)}]
    for name, value in _expected_request_body(BODY).items():
        assert chat[name] == value, name
    form = cassette.interactions[3].request
    assert form.body == b"grant_type=refresh_token&username=alice"
    assert form.uri.startswith("http://127.0.0.1:")  # userinfo gone, host intact

    # Replayed (live calls blocked), every client gets what it got while recording.
    with use_cassette(path) as replayed:
        again = _record_everything(url)
    assert replayed.player.play_counts == [1, 1, 1, 1]
    args = COOKIE_PLAN.calls[0].args
    assert json.loads(str(again["openai"])) == json.loads(str(first["openai"])) == args
    assert again["anthropic"] == first["anthropic"] == [args]
    assert again["langchain"] == first["langchain"]
    assert again["langchain"][0]["args"] == args  # type: ignore[index]
    assert again["httpx"] == {"ok": True, "echo": "*" * len(json.dumps(ECHOED["json"])[1:-1])}


def test_cookie_attributes_and_names_are_not_secrets():
    scrubber = Scrubber(request_headers=None)
    scrubber.clean_headers(
        [("set-cookie", "sid=abcdef0123456789; Domain=127.0.0.1; Path=/; Secure; HttpOnly")],
        None,
    )
    scrubber.clean_headers(
        [("cookie", "session_identifier=v4lue-0123456789; theme=darkmode")], None
    )
    assert scrubber.secrets == {"abcdef0123456789", "v4lue-0123456789", "darkmode"}
    args = b'{"cookie": "sid; Domain=127.0.0.1; Secure; HttpOnly", "session_identifier": 1}'
    assert scrubber.finder().mask(args) == args
    assert scrubber.finder().mask(b"x abcdef0123456789 y") == b"x " + b"*" * 16 + b" y"


@pytest.mark.parametrize(
    "name",
    ["token", "secret", "accessToken", "clientSecret", "session_token", "x-api-key",
     "X_API_KEY", "password", "api_key", "apiKey", "Authorization", "credential", "private_key",
     "privateKey", "refresh-token", "aws_secret_access_key", "client-secret", "PASSWD"],
)  # fmt: skip
def test_credential_names_in_any_style(name):
    assert looks_secret(name, "field") and looks_secret(name, "header")
    assert looks_secret(name, "query")


@pytest.mark.parametrize(
    "name",
    ["max_tokens", "input_tokens", "output_tokens", "tokens", "token_count", "completion_tokens",
     "prompt_tokens", "cache_creation_input_tokens", "totalTokenCount", "maxOutputTokens",
     "secretary", "token_type", "prompt_cache_key", "idempotency-key", "eos_token",
     "next_page_token", "password_length", "secret_name", "signature", "key", "x-request-id",
     "x-ratelimit-remaining-tokens"],
)  # fmt: skip
def test_ordinary_names_are_not_credentials(name):
    assert not looks_secret(name, "field")


def test_signatures_and_a_bare_key_are_credentials_only_in_a_url_or_header():
    assert looks_secret("X-Goog-Signature", "query") and looks_secret("sig", "query")
    assert looks_secret("key", "query") and not looks_secret("key", "header")
    # A thinking block's signature must go back to the API unchanged.
    assert not looks_secret("signature", "field") and not looks_secret("thoughtSignature")


def test_short_values_and_words_are_removed_but_never_swept():
    scrubber = Scrubber()
    body = json.dumps({"token": "abc", "password": "Secure", "api_key": "HttpOnly"}).encode()
    request = scrubber.request("POST", "https://x.test/v1", [], body)
    assert request is not None and request.json() == {}
    text = b"abc Secure HttpOnly 127.0.0.1"
    assert scrubber.finder().mask(text) == text and scrubber.leaked(text) == []


def test_user_rules_the_vcrpy_way(tmp_path, leaky_provider):
    url, _ = leaky_provider
    seen = []

    def before_request(request):
        seen.append(request.uri)
        return request

    def before_response(response):
        return response if response.status == 200 else None

    with (
        record(
            tmp_path / "c.yaml",
            request_headers="all",
            filter_headers=["x-request-purpose", ("x-debug", "REDACTED")],
            filter_query_parameters=[("api-version", lambda k, v, r: "v-" + v[:4])],
            filter_post_data_parameters=["username"],
            before_record_request=before_request,
            before_record_response=[before_response],
        ),
        httpx.Client() as client,
    ):
        client.post(
            url + "/form",
            data={"username": "alice-wonderland", "grant_type": "x"},
            params={"api-version": "2024-10-21"},
            headers={"x-request-purpose": "purpose-Xy12", "x-debug": "debug-Zz34"},
        )
    request = load_cassette(tmp_path / "c.yaml").interactions[0].request
    headers = dict(request.headers)
    assert "x-request-purpose" not in headers and headers["x-debug"] == "REDACTED"
    assert request.query == [("api-version", "v-2024")] and request.body == b"grant_type=x"
    assert seen and "alice-wonderland" not in (tmp_path / "c.yaml").read_text()


def test_option_names_are_checked_with_did_you_mean(tmp_path):
    with pytest.raises(TypeError, match="filter_header"):
        use_cassette(tmp_path / "x.yaml", filter_header=["a"]).__enter__()  # type: ignore[call-arg]
    with (
        pytest.raises(CassetteError, match="did you mean 'filter_headers'"),
        record(tmp_path / "x.yaml", filter_header=["a"]),
    ):
        pass
    with (
        pytest.raises(CassetteError, match="a name or a \\(name, replacement\\) pair"),
        record(tmp_path / "x.yaml", filter_headers=[("a", 1)]),
    ):
        pass
    assert not Path(tmp_path / "x.yaml").exists()
