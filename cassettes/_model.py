"""What a cassette holds: recorded requests, streamed responses and tooltape's metadata.

A :class:`Cassette` is the in-memory form of one cassette file. Each
:class:`Interaction` pairs a :class:`RecordedRequest` with a
:class:`RecordedResponse`, whose body is kept as the exact bytes received,
with the offsets where the client's reads ended (``boundaries``) and, when the
connection dropped before the body was complete, the read error the client saw
(``aborted``). :class:`CassetteInfo` is the top-level ``tooltape:`` mapping:
the dialect, the scenario and plan it was rendered from, the quirks, when and
by which tooltape version it was recorded, and the reference merge.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from tooltape.fake_providers import Wire
from tooltape.fake_providers.framing import AbortedWire
from tooltape.harness import Plan
from tooltape.harness.json_text import loads

__all__ = [
    "FORMAT_VERSION",
    "Cassette",
    "CassetteInfo",
    "Interaction",
    "RecordedRequest",
    "RecordedResponse",
    "tooltape_version",
]

FORMAT_VERSION = 1
"""The version of the ``tooltape:`` metadata layout (vcrpy's own ``version`` is also 1)."""

Headers = tuple[tuple[str, str], ...]


def tooltape_version() -> str:
    """The installed tooltape version, written in every cassette."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tooltape")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0+unknown"


def _header(headers: Headers, name: str) -> str:
    return next((v for k, v in headers if k.lower() == name), "")


@dataclass(frozen=True)
class RecordedRequest:
    """A request as the cassette stores it (secrets already removed)."""

    method: str
    """The HTTP method, upper case."""
    uri: str
    """The full URL, query included."""
    headers: Headers = ()
    """The kept request headers, names in lower case."""
    body: bytes = b""
    """The body (JSON bodies are stored pretty-printed; matching compares parsed JSON)."""

    @property
    def path(self) -> str:
        """The URL's path."""
        return urlsplit(self.uri).path

    @property
    def query(self) -> list[tuple[str, str]]:
        """The query parameters, sorted (their order never matters to a match)."""
        return sorted(parse_qsl(urlsplit(self.uri).query, keep_blank_values=True))

    def json(self) -> Any:
        """The body parsed as JSON, or ``None`` when it is empty or not JSON."""
        try:
            return loads(self.body) if self.body else None
        except (ValueError, RecursionError):  # not JSON, a huge number, or too deep
            return None


@dataclass(frozen=True)
class RecordedResponse:
    """A response as the client read it: status, headers, body bytes and read boundaries."""

    status: int = 200
    """The HTTP status code."""
    reason: str = "OK"
    """The reason phrase."""
    headers: Headers = ()
    """Response headers, names in lower case."""
    body: bytes = b""
    """The body, byte for byte (decompressed when the server sent it compressed)."""
    boundaries: tuple[int, ...] | None = None
    """Offsets where one read ended and the next began; ``None`` when unknown (a plain
    vcrpy cassette), which replays one framed event per read."""
    aborted: str | None = None
    """The read error the client got after the last read (the connection dropped), if any."""

    @property
    def content_type(self) -> str:
        """The ``content-type`` header (empty when there is none)."""
        return _header(self.headers, "content-type")

    def reads(self) -> tuple[bytes, ...]:
        """The body cut at its boundaries (one framed event per read when they are unknown)."""
        if self.boundaries is None:
            from tooltape.cassettes.body_framing import split_frames

            return tuple(split_frames(self.body, self.content_type)) or (self.body,)
        cuts = [0, *self.boundaries, len(self.body)]
        return tuple(self.body[a:b] for a, b in itertools.pairwise(cuts))

    def wire(self) -> Wire:
        """The response as a :class:`Wire` a fake-provider transport streams lazily."""
        reads = self.reads()
        if self.aborted is not None:
            return AbortedWire(
                reads=reads, status=self.status, headers=self.headers, error=self.aborted
            )
        return Wire(reads=reads, status=self.status, headers=self.headers)

    @classmethod
    def from_wire(cls, wire: Wire, reason: str = "OK") -> RecordedResponse:
        """The response a wire stands for, boundaries and cut included."""
        return cls(
            status=wire.status,
            reason=reason,
            headers=tuple((k.lower(), v) for k, v in wire.headers),
            body=wire.body,
            boundaries=tuple(wire.boundaries),
            aborted=wire.error if isinstance(wire, AbortedWire) else None,
        )


@dataclass(frozen=True)
class Interaction:
    """One request and the response it got."""

    request: RecordedRequest
    response: RecordedResponse


class CassetteInfo(BaseModel):
    """The top-level ``tooltape:`` mapping of a cassette file (vcrpy ignores it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT_VERSION
    """The metadata layout version."""
    tooltape_version: str = ""
    """The tooltape version that wrote the file."""
    dialect: str | None = None
    """The dialect of the streamed bodies; ``None``: inferred from each request's URL."""
    scenario: str | None = None
    """The bundled scenario the recording plays, if any."""
    description: str = ""
    """One sentence about the recording."""
    plan: Plan | None = None
    """The plan the stream was rendered from (generated and mutated cassettes)."""
    quirks: tuple[str | dict[str, Any], ...] = ()
    """The quirks applied on top of the plan."""
    seed: int = Field(default=0, ge=0)
    """The seed of the quirks' random choices."""
    recorded_at: str | None = None
    """When it was recorded (ISO 8601); fixed for generated files so they reproduce."""
    reference: dict[str, Any] | None = None
    """``tool_calls``, ``invalid_tool_calls`` and ``hazards`` of the reference merge."""
    derived_from: str | None = None
    """What a mutated cassette was made from."""
    source: dict[str, Any] | None = None
    """Provenance of a converted recording (repository, path, commit, licence)."""


@dataclass(frozen=True)
class Cassette:
    """A cassette: its interactions, its metadata and the file it came from."""

    interactions: tuple[Interaction, ...]
    info: CassetteInfo = field(default_factory=CassetteInfo)
    path: Path | None = None
    """The file it was loaded from (``None`` for one built in memory)."""

    def with_interactions(self, interactions: tuple[Interaction, ...]) -> Cassette:
        """A copy holding other interactions."""
        return replace(self, interactions=interactions)

    def with_info(self, **changes: Any) -> Cassette:
        """A copy whose metadata has ``changes`` applied."""
        data = {**self.info.model_dump(exclude_defaults=True), **changes}
        return replace(self, info=CassetteInfo.model_validate(data))
