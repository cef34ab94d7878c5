"""tooltape.cassettes' public surface: the names other rooms and users rely on."""

from __future__ import annotations

import importlib

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


def test_the_commands_do_not_shadow_exported_functions():
    importlib.import_module("tooltape.cassettes.convert_corpus")
    importlib.import_module("tooltape.cassettes._generate")
    assert callable(cassettes.convert_corpus_files)
    assert callable(cassettes.generate_library)
    assert list(cassettes.__all__) == sorted(cassettes.__all__)
