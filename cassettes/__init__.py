"""tooltape.cassettes: the bundled scenario library, and cassettes recorded from real providers.

Cassettes are vcrpy YAML files (vcrpy and pytest-recording replay them) that
keep a streamed body readable, one event per paragraph, with the read
boundaries the client saw and tooltape's metadata beside it.
:func:`use_cassette` replays one (or records it, by record mode) for every
httpx and httpx2 client in a block; :func:`mutate` derives quirk variants of a
recording in its own dialect; :func:`inspect_cassette` shows what
langchain-core makes of it; :func:`drift` says what a re-recording changed.
The bundled library holds every scenario recorded in every dialect
(:func:`library_path`).
"""

from __future__ import annotations

import typing as _typing

from tooltape.harness.lazy_facades import lazy_exports as _lazy_exports

if not _typing.TYPE_CHECKING:  # the imports below say where each name lives
    # Public names are imported on first use: importing any submodule runs this file first,
    # and `tooltape inspect` should not pay for the recorder, the player and the library builder.
    __getattr__, __dir__ = _lazy_exports(__name__, globals())

if _typing.TYPE_CHECKING:
    from tooltape.cassettes._convert import convert_corpus_files, convert_corpus_record
    from tooltape.cassettes._errors import CassetteError, UnmatchedRequest, UnplayedInteractions
    from tooltape.cassettes._inspect import (
        Inspection,
        inspect_body,
        inspect_cassette,
    )
    from tooltape.cassettes._library import SCENARIOS_FILE, bundled_scenarios, get_scenario
    from tooltape.cassettes._model import (
        Cassette,
        Interaction,
        RecordedRequest,
        RecordedResponse,
    )
    from tooltape.cassettes._mutate import mutate
    from tooltape.cassettes._network import NetworkBlocked, SubprocessBlocked, block_network
    from tooltape.cassettes._player import CassettePlayer
    from tooltape.cassettes._record_modes import RECORD_MODES, RecordMode
    from tooltape.cassettes._rendered import save_counterexample, save_rendered
    from tooltape.cassettes._serve import (
        CassetteTransport,
        ServedCassette,
        add_cassette_routes,
        serve_cassette,
    )
    from tooltape.cassettes._session import CassetteSession, record, replay, use_cassette
    from tooltape.cassettes._shape import drift
    from tooltape.cassettes._store import load_cassette, save_cassette
    from tooltape.cassettes.library_build import generate_library, library_path

__all__ = [
    "Cassette",
    "CassetteError",
    "CassettePlayer",
    "CassetteSession",
    "CassetteTransport",
    "Inspection",
    "Interaction",
    "NetworkBlocked",
    "RECORD_MODES",
    "RecordMode",
    "RecordedRequest",
    "RecordedResponse",
    "SCENARIOS_FILE",
    "ServedCassette",
    "SubprocessBlocked",
    "UnmatchedRequest",
    "UnplayedInteractions",
    "add_cassette_routes",
    "block_network",
    "bundled_scenarios",
    "convert_corpus_files",
    "convert_corpus_record",
    "drift",
    "generate_library",
    "get_scenario",
    "inspect_body",
    "inspect_cassette",
    "library_path",
    "load_cassette",
    "mutate",
    "record",
    "replay",
    "save_cassette",
    "save_counterexample",
    "save_rendered",
    "serve_cassette",
    "use_cassette",
]
