"""Build the bundled cassette library: every scenario in every dialect that can play it.

The command is ``tooltape library generate`` (``tooltape library check`` compares). Each scenario is
rendered by each registered dialect (scenarios a dialect cannot express are
skipped), served by the fake provider on a real
server on 127.0.0.1, and recorded by the cassette recorder through a real
httpx2 client, read boundaries included. The files land in
``cassettes/library/<scenario>/<dialect>.yaml`` with the scenario's plan,
quirks and seed and the reference merge of the recorded body.

The output is byte-for-byte reproducible: the recorded URL is rewritten to the
provider's public address, only the ``content-type`` response header is kept,
``recorded_at`` is fixed, keys are sorted, and a recording whose bytes or read
boundaries differ from the render (a TCP read split on a busy machine) is
recorded again.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

import filecmp
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2

from tooltape.cassettes._errors import CassetteError
from tooltape.cassettes._library_requests import request_for
from tooltape.cassettes._model import Cassette, CassetteInfo, Interaction, tooltape_version
from tooltape.cassettes._recorded_merge import reference_of
from tooltape.cassettes._scrub import Scrubber
from tooltape.cassettes._store import cassette_text
from tooltape.cassettes.transport_seam import MemoryHandler, patched_transports
from tooltape.fake_providers import (
    Dialect,
    FakeProvider,
    Wire,
    dialect_names,
    get_dialect,
    serve_in_thread,
)
from tooltape.fake_providers.framing import AbortedWire
from tooltape.harness import Scenario, TooltapeUsageError, load_scenarios

__all__ = [
    "GENERATED_AT",
    "LIBRARY_DIR",
    "bundled_dialects",
    "generate_library",
    "library_path",
    "stale_files",
]

LIBRARY_DIR = Path(__file__).with_name("library")
"""Where the bundled cassettes live."""

GENERATED_AT = "2025-01-01T00:00:00Z"
"""The fixed ``recorded_at`` of generated cassettes (a real time would make them churn)."""

_ATTEMPTS = 5


def bundled_dialects() -> list[str]:
    """The dialects tooltape ships (not ones a test or a user registered), sorted."""
    return [
        name
        for name in dialect_names()
        if type(get_dialect(name)).__module__.startswith("tooltape.fake_providers.")
    ]


def library_path(scenario: str, dialect: str) -> Path:
    """The bundled cassette of ``scenario`` in ``dialect``.

    Raises:
        CassetteError: There is none; the message lists the dialects that scenario has.
    """
    path = LIBRARY_DIR / scenario / f"{dialect}.yaml"
    if path.is_file():
        return path
    folder = LIBRARY_DIR / scenario
    if not folder.is_dir():
        known = sorted(p.name for p in LIBRARY_DIR.iterdir() if p.is_dir())
        raise CassetteError(
            f"no bundled cassette for scenario {scenario!r}; scenarios: {', '.join(known)}"
        )
    dialects = sorted(p.stem for p in folder.glob("*.yaml"))
    raise CassetteError(
        f"scenario {scenario!r} has no bundled cassette in dialect {dialect!r}; it has: "
        f"{', '.join(dialects)}"
    )


def _public_origin(dialect: str) -> str:
    try:
        base = FakeProvider(dialect).base_url
    except TooltapeUsageError:
        return f"https://{dialect.replace('_', '-')}.tooltape.invalid"
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}"


def _same(interaction: Interaction, wire: Wire) -> bool:
    response = interaction.response
    return (
        response.body == wire.body
        and list(response.boundaries or ()) == wire.boundaries
        and (response.aborted is not None) == isinstance(wire, AbortedWire)
    )


class _Studio:
    """One fake provider on a real server, and a recording client pointed at it."""

    def __init__(
        self, dialect: Dialect, url: str, provider: FakeProvider, client: httpx2.Client
    ) -> None:
        self.dialect, self.url, self.provider, self.client = dialect, url, provider, client
        self.handler = MemoryHandler(Scrubber(response_headers=frozenset({"content-type"})))

    def take(self, scenario: Scenario, wire: Wire) -> Interaction:
        """Serve ``wire`` and record one request for ``scenario``."""
        path, query, body = request_for(self.dialect, scenario)
        self.provider.stream(wire)
        with (
            patched_transports(self.handler),
            self.client.stream("POST", self.url + path, params=query, json=body) as response,
        ):
            try:
                for _read in response.iter_raw():
                    pass
            except httpx2.TransportError:
                pass  # a cut wire: the recorder kept the read error
        return self.handler.interactions[-1]


def _record_one(studio: _Studio, scenario: Scenario, wire: Wire) -> Interaction:
    dialect = studio.dialect
    for _ in range(_ATTEMPTS):
        interaction = studio.take(scenario, wire)
        if interaction.response.status != 200:
            raise RuntimeError(
                f"the fake {dialect.name} provider refused the library request for "
                f"{scenario.name!r}: {interaction.response.status} {interaction.response.body!r}"
            )
        if _same(interaction, wire):
            return interaction
    raise RuntimeError(
        f"recording {scenario.name!r} in {dialect.name} did not reproduce the render's bytes "
        f"and read boundaries in {_ATTEMPTS} attempts"
    )


def _cassette(scenario: Scenario, dialect: Dialect, interaction: Interaction) -> Cassette:
    request = interaction.request
    parts = urlsplit(request.uri)
    public = _public_origin(dialect.name) + parts.path + (f"?{parts.query}" if parts.query else "")
    recorded = Interaction(
        type(request)(request.method, public, request.headers, request.body),
        interaction.response,
    )
    info = CassetteInfo(
        tooltape_version=tooltape_version(),
        dialect=dialect.name,
        scenario=scenario.name,
        description=scenario.description,
        plan=scenario.plan,
        quirks=scenario.quirks,
        seed=scenario.seed,
        recorded_at=GENERATED_AT,
        reference=reference_of(dialect, interaction.response.body),
    )
    return Cassette((recorded,), info)


def _renders(scenario: Scenario, dialect: Dialect) -> Wire | None:
    if scenario.dialects is not None and dialect.name not in scenario.dialects:
        return None
    try:
        return dialect.render(scenario.plan, scenario.quirks, scenario.seed)
    except TooltapeUsageError:
        return None


def generate_library(
    dest: str | Path = LIBRARY_DIR,
    *,
    scenarios: Sequence[Scenario] | None = None,
    scenarios_file: str | Path | None = None,
    dialects: Sequence[str] | None = None,
    echo: Callable[[str], Any] = lambda _: None,
) -> list[Path]:
    """Record every scenario in every dialect that can play it, into ``dest``.

    Args:
        dest: The library folder (files are replaced; other files are left alone).
        scenarios: The scenarios (default: the bundled ones, or ``scenarios_file``'s).
        scenarios_file: A scenario YAML file to read them from.
        dialects: The dialects (default: the bundled ones, profiles excluded).
        echo: Called with one line per file written.

    Returns:
        The files written, sorted.

    Raises:
        ScenarioFileError: ``scenarios_file`` is broken.
        TooltapeUsageError: An unknown dialect.
    """
    from tooltape.cassettes._library import bundled_scenarios

    if scenarios is None:
        scenarios = load_scenarios(scenarios_file) if scenarios_file else bundled_scenarios()
    names = list(dialects) if dialects is not None else bundled_dialects()
    dest = Path(dest)
    written = []
    for name in names:
        dialect = get_dialect(name)
        jobs = [(s, w) for s in scenarios if (w := _renders(s, dialect)) is not None]
        if not jobs:
            continue
        provider = FakeProvider(dialect, base_url="http://127.0.0.1")
        with serve_in_thread(provider) as url, httpx2.Client(timeout=60) as client:
            studio = _Studio(dialect, url, provider, client)
            for scenario, wire in jobs:
                interaction = _record_one(studio, scenario, wire)
                path = dest / scenario.name / f"{name}.yaml"
                path.parent.mkdir(parents=True, exist_ok=True)
                text = cassette_text(_cassette(scenario, dialect, interaction))
                path.write_bytes(text.encode("utf-8"))
                written.append(path)
                echo(f"wrote {path}")
    return sorted(written)


def stale_files(
    library: str | Path = LIBRARY_DIR, *, dialects: Sequence[str] | None = None
) -> list[str]:
    """Regenerate in a temporary folder and list what differs from ``library``.

    Args:
        library: The committed library.
        dialects: Compare only these dialects (default: the bundled ones).

    Returns:
        One line per stale, missing or extra file (empty when the library is current).
    """
    library = Path(library)
    names = list(dialects) if dialects is not None else bundled_dialects()
    with tempfile.TemporaryDirectory() as temp:
        fresh = {p.relative_to(temp) for p in generate_library(temp, dialects=names)}
        committed = {p.relative_to(library) for p in library.glob("*/*.yaml") if p.stem in names}
        problems = [f"missing: {p}" for p in sorted(fresh - committed)]
        problems += [f"no longer generated: {p}" for p in sorted(committed - fresh)]
        problems += [
            f"stale: {p}"
            for p in sorted(fresh & committed)
            if not filecmp.cmp(Path(temp) / p, library / p, shallow=False)
        ]
    return problems
