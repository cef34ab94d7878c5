"""The botocore seam: boto3 and langchain-aws requests to a cassette handler.

botocore sends with urllib3 through ``URLLib3Session.send``, which no httpx
patch reaches (vcrpy patches botocore separately too). While
:func:`patched_botocore` is open, each request botocore sends goes to the same
:class:`~tooltape.cassettes.transport_seam.Handler` as httpx's: a recording answers
it, or it goes out and its response is recorded. Either way the client's own
stack (urllib3's decoding, botocore's event-stream parser) reads the body.

A recorded response is read whole before botocore sees it, in the reads urllib3
gave (an HTTP chunk each, for the chunked event streams Bedrock sends); a
replayed one is read back from those bytes, with the reads urllib3 asks for.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tooltape.cassettes._botocore_send import Send, wrapped_botocore_send
from tooltape.cassettes._model import Interaction, RecordedRequest
from tooltape.cassettes._streams import Capture
from tooltape.cassettes.transport_seam import DECODED_DROPS, Handler, recorded_response
from tooltape.fake_providers import Wire

__all__ = ["patched_botocore"]


class _WireBody(io.RawIOBase):
    """A wire's reads as a file; an aborted wire raises urllib3's read error at its end."""

    def __init__(self, wire: Wire) -> None:
        self._reads = list(wire.reads)
        self._error: str | None = getattr(wire, "error", None)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while self._reads and not self._reads[0]:
            self._reads.pop(0)
        if not self._reads:
            if self._error is not None:
                from urllib3.exceptions import ProtocolError

                raise ProtocolError(self._error)
            return 0
        read = self._reads[0][: len(buffer)]
        self._reads[0] = self._reads[0][len(read) :]
        buffer[: len(read)] = read
        return len(read)


def _body(body: Any) -> bytes:
    """A botocore request body (bytes, text, a file or nothing) as bytes; a file is rewound."""
    if body is None:
        return b""
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    start = body.tell()
    data = body.read()
    body.seek(start)
    return data if isinstance(data, bytes) else str(data).encode("utf-8")


def _headers(headers: Any) -> list[tuple[str, str]]:
    return [
        (name, value.decode("latin-1") if isinstance(value, bytes) else str(value))
        for name, value in headers.items()
    ]


def _aws_response(url: str, status: int, headers: list[tuple[str, str]], body: Any) -> Any:
    from botocore.awsrequest import AWSResponse  # type: ignore[import-untyped]
    from urllib3.response import HTTPResponse

    raw = HTTPResponse(
        body=io.BufferedReader(body), status=status, preload_content=False, decode_content=True
    )
    raw.headers.extend(headers)  # repeated names kept (a dict would drop them)
    return AWSResponse(url, status, raw.headers, raw)


def _record(handler: Handler, live: RecordedRequest, request: Any, real: Any) -> Any:
    done = handler.begin(live)
    headers = _headers(real.headers)
    reason = getattr(real.raw, "reason", None) or ""
    coding = real.headers.get("content-encoding", "")
    if not request.stream_output:  # botocore has read (and decoded) it already
        headers = [(k, v) for k, v in headers if not coding or k.lower() not in DECODED_DROPS]
        coding = ""

    def finished(capture: Capture) -> None:
        response = recorded_response(handler.scrubber, real.status_code, reason, headers, capture)
        done(None if response is None else Interaction(live, response))

    capture = Capture(coding, finished)
    if not request.stream_output:
        capture.add(real.content)
    else:
        try:
            for chunk in real.raw.stream(decode_content=False):
                capture.add(chunk)
        except Exception as error:
            capture.finish(aborted=f"{type(error).__name__}: {error}")
            raise
        finally:
            real.raw.release_conn()
    body = b"".join(capture.reads)  # as sent: urllib3 undoes the coding for the client
    capture.finish()
    return _aws_response(request.url, real.status_code, headers, io.BytesIO(body))


@contextmanager
def patched_botocore(handler: Handler) -> Iterator[None]:
    """Route every botocore request through ``handler`` (a no-op without botocore)."""

    def wrap(original: Send) -> Send:
        def send(self: Any, request: Any) -> Any:
            live = handler.scrubber.request(
                request.method, request.url, _headers(request.headers), _body(request.body)
            )
            if (
                live is None
            ):  # a before_record_request hook leaves it out: not replayed, not recorded
                return original(self, request)
            wire = handler.answer(live)
            if wire is not None:
                return _aws_response(request.url, wire.status, list(wire.headers), _WireBody(wire))
            return _record(handler, live, request, original(self, request))

        return send

    with wrapped_botocore_send(wrap):
        yield
