"""tooltape.cassettes' public surface: the names other rooms and users rely on."""

from __future__ import annotations

import importlib

import pytest

import tooltape.cassettes as cassettes

CONTRACT = {
    "SCENARIOS_FILE",
    "bundled_scenarios",
    "get_scenario",
    "load_cassette",
    "replay",
    "use_cassette",
    "record",
    "mutate",
    "inspect_cassette",
    "drift",
    "library_path",
    "convert_corpus_record",
}


def test_the_contract_names_are_exported_and_callable():
    assert set(cassettes.__all__) >= CONTRACT
    for name in CONTRACT - {"SCENARIOS_FILE"}:
        assert callable(getattr(cassettes, name)), name


def test_the_command_fronts_live_in_the_cli_not_in_cassettes():
    for gone in ("tooltape.cassettes.convert_corpus", "tooltape.cassettes._generate"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(gone)
    cli = importlib.import_module("tooltape.plugin.cli")
    assert {"library", "corpus"} <= set(cli.cli.commands)
    assert callable(cassettes.convert_corpus_files)
    assert callable(cassettes.generate_library)
    assert list(cassettes.__all__) == sorted(cassettes.__all__)
