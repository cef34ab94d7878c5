"""The bundled cassette library: current, complete, and faithful to its scenarios.

The staleness test regenerates the library through the real server in a
temporary folder and compares bytes with what is committed; regenerate with
``tooltape library generate`` when it fails.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tooltape.cassettes import (
    CassetteError,
    bundled_scenarios,
    generate_library,
    get_scenario,
    library_path,
    load_cassette,
)
from tooltape.cassettes._recorded_merge import GENERATED_ID, reference_of
from tooltape.cassettes.library_build import LIBRARY_DIR, bundled_dialects, stale_files
from tooltape.fake_providers import FakeProvider, get_dialect

TOOLTAPE = Path(sys.executable).parent / "tooltape"

pytestmark = pytest.mark.slow

FILES = sorted(LIBRARY_DIR.glob("*/*.yaml"))
COMMITTED_DIALECTS = sorted({p.stem for p in FILES})


def test_the_library_is_current():
    problems = stale_files(LIBRARY_DIR, dialects=COMMITTED_DIALECTS)
    assert problems == [], (
        "the bundled cassettes are stale; run tooltape library generate:\n" + "\n".join(problems)
    )


def test_every_registered_dialect_is_in_the_library():
    missing = sorted(set(bundled_dialects()) - set(COMMITTED_DIALECTS))
    assert missing == [], f"run tooltape library generate to add {missing}"


def test_every_scenario_has_cassettes_in_several_dialects():
    for scenario in bundled_scenarios():
        assert len(list((LIBRARY_DIR / scenario.name).glob("*.yaml"))) >= 1, scenario.name
    assert len(FILES) >= len(bundled_scenarios()) * 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_library_cassette_carries_its_plan_and_the_reference(path):
    cassette = load_cassette(path)
    scenario = get_scenario(path.parent.name)
    info = cassette.info
    assert (info.scenario, info.dialect) == (scenario.name, path.stem)
    assert (info.plan, info.quirks, info.seed) == (scenario.plan, scenario.quirks, scenario.seed)
    assert info.recorded_at == "2025-01-01T00:00:00Z"
    (interaction,) = cassette.interactions
    dialect = get_dialect(path.stem)
    assert info.reference == reference_of(dialect, interaction.response.body)
    wire = dialect.render(scenario.plan, scenario.quirks, scenario.seed)
    assert interaction.response.reads() == wire.reads
    public = urlsplit(FakeProvider(path.stem).base_url)
    assert urlsplit(interaction.request.uri)[:2] == public[:2]  # the provider's own address
    if scenario.lossless and path.stem in ("openai_chat", "anthropic_messages"):
        assert info.reference["tool_calls"] == scenario.plan.expected_calls()
    if path.stem == "ollama" and info.reference["tool_calls"]:  # ChatOllama draws UUIDs
        assert {c["id"] for c in info.reference["tool_calls"]} == {GENERATED_ID}


def test_library_path_names_what_exists():
    assert library_path("split_name", "openai_chat").is_file()
    with pytest.raises(CassetteError, match="no bundled cassette for scenario 'nope'; scenarios:"):
        library_path("nope", "openai_chat")
    with pytest.raises(CassetteError, match="has no bundled cassette in dialect 'nope'; it has: "):
        library_path("split_name", "nope")


def tooltape(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TOOLTAPE), *map(str, args)], capture_output=True, text=True, timeout=300, check=False
    )


def test_the_generate_command_writes_a_custom_scenario_file(tmp_path):
    scenarios = tmp_path / "mine.yaml"
    scenarios.write_text(
        "scenarios:\n"
        "  - name: mine\n"
        "    description: one call\n"
        "    plan: {calls: [{name: add, args: {a: 1}, id: call_add}]}\n"
        "    quirks: [split_args]\n",
        encoding="utf-8",
    )
    lib = tmp_path / "lib"
    done = tooltape(
        "library", "generate", "--dest", lib, "--scenarios", scenarios,
        "--dialect", "anthropic_messages", "--dialect", "openai_chat",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = sorted(p.relative_to(tmp_path) for p in lib.rglob("*.yaml"))
    assert [str(p) for p in written] == [
        "lib/mine/anthropic_messages.yaml",
        "lib/mine/openai_chat.yaml",
    ]
    assert "2 cassette(s) written" in done.stdout
    again = generate_library(tmp_path / "again", scenarios_file=scenarios, dialects=["openai_chat"])
    assert again[0].read_bytes() == (lib / "mine/openai_chat.yaml").read_bytes()
    done = tooltape("library", "generate", "--dest", lib, "--dialect", "nope")
    assert done.returncode == 2
    assert done.stderr.startswith("tooltape library: error: unknown dialect 'nope'")


def test_the_check_command_lists_a_stale_file_and_exits_1(tmp_path):
    lib = tmp_path / "lib"
    done = tooltape("library", "generate", "--dest", lib, "--dialect", "openai_chat")
    assert done.returncode == 0, done.stderr
    current = tooltape("library", "check", "--dest", lib, "--dialect", "openai_chat")
    assert (current.returncode, current.stdout) == (0, f"{lib}: current\n"), current.stderr
    golden = lib / "openai_golden" / "openai_chat.yaml"
    golden.write_text(golden.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (lib / "split_name" / "openai_chat.yaml").unlink()
    stale = tooltape("library", "check", "--dest", lib, "--dialect", "openai_chat")
    assert stale.returncode == 1
    assert stale.stdout.splitlines() == [
        "missing: split_name/openai_chat.yaml",
        "stale: openai_golden/openai_chat.yaml",
    ]
    assert "tooltape library generate" in stale.stderr
