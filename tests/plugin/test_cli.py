"""The ``tooltape`` command line through its installed console script: scenarios, render, inspect.

Every command runs as a user runs it (the ``tooltape`` script next to the
interpreter), and its output is checked against the library it reports on:
the scenario library, the dialects' own rendering and langchain-core's merge.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooltape.cassettes import bundled_scenarios, get_scenario, load_cassette
from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.harness import reference_merge

pytestmark = pytest.mark.slow

TOOLTAPE = Path(sys.executable).parent / "tooltape"


def tooltape(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [str(TOOLTAPE), *map(str, args)], capture_output=True, timeout=300, check=False
    )
    if check:
        assert done.returncode == 0, done.stderr.decode()
    return done


def fails(*args: str | Path) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one line on stderr."""
    done = tooltape(*args, check=False)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


def test_the_console_script_is_installed() -> None:
    assert TOOLTAPE.is_file()


@pytest.mark.parametrize(
    "command", [[], ["scenarios"], ["render"], ["inspect"], ["serve"], ["matrix"]]
)
def test_every_command_has_help_with_an_example(command: list[str]) -> None:
    out = tooltape(*command, "--help").stdout.decode()
    assert out.startswith("Usage: tooltape")
    assert "Example" in out
    assert "tooltape " + (command[0] if command else "") in out.split("Example", 1)[1]


def test_version_names_the_package() -> None:
    assert tooltape("--version").stdout.decode().startswith("tooltape, version ")


# --- scenarios ---------------------------------------------------------------------------


def test_scenarios_json_lists_the_library_with_the_reference_verdict() -> None:
    rows = json.loads(tooltape("scenarios", "--json").stdout)
    library = bundled_scenarios()
    assert [row["name"] for row in rows] == [s.name for s in library]
    for row, scenario in zip(rows, library, strict=True):
        merged = reference_merge(scenario.stream())
        assert row["reference"] == {
            "calls": len(merged.tool_calls),
            "invalid": len(merged.invalid_tool_calls),
            "hazards": sorted(merged.hazard_kinds()),
        }
        assert set(row["dialects"]) <= set(dialect_names(profiles=True))
    repeated = next(row for row in rows if row["name"] == "repeated_name")
    assert "repeated_name" in repeated["reference"]["hazards"]


def test_scenarios_filters_by_tag_and_dialect() -> None:
    rows = json.loads(
        tooltape(
            "scenarios", "--json", "--tag", "truncation", "--dialect", "anthropic_messages"
        ).stdout
    )
    expected = []
    for scenario in bundled_scenarios():
        if "truncation" not in scenario.tags:
            continue
        try:
            get_dialect("anthropic_messages").render(scenario.plan, scenario.quirks, scenario.seed)
        except Exception:
            continue
        expected.append(scenario.name)
    assert [row["name"] for row in rows] == expected
    assert expected
    assert all(row["dialects"] == ["anthropic_messages"] for row in rows)


def test_scenarios_table_names_every_scenario() -> None:
    out = tooltape("scenarios").stdout.decode()
    assert f"{len(bundled_scenarios())} bundled scenario(s)" in out
    for scenario in bundled_scenarios():
        assert scenario.name in out


def test_scenarios_table_shows_tags_and_descriptions() -> None:
    out = tooltape("scenarios", "--tag", "truncation").stdout.decode()
    header = next(line for line in out.splitlines() if "scenario" in line and "quirks" in line)
    assert "tags" in header
    words = " ".join(out.replace("│", " ").split())
    for scenario in bundled_scenarios():
        if "truncation" in scenario.tags:
            assert " ".join(scenario.description.split()[:3]) in words, scenario.name
            assert ", ".join(scenario.tags) in words or scenario.tags[0] in words


def test_scenarios_rejects_an_unknown_dialect() -> None:
    assert "unknown dialect 'nope'" in fails("scenarios", "--dialect", "nope")


# --- render ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "dialect"),
    [
        ("parallel_interleaved", "openai_chat"),
        ("unicode_args", "anthropic_messages"),
        ("missing_id", "openai_responses"),
        ("openai_golden", "bedrock_converse"),  # binary AWS event stream
    ],
)
def test_render_prints_the_dialects_bytes_unchanged(scenario: str, dialect: str) -> None:
    chosen = get_scenario(scenario)
    wire = get_dialect(dialect).render(chosen.plan, chosen.quirks, chosen.seed)
    assert tooltape("render", scenario, "--dialect", dialect).stdout == wire.body


def test_render_takes_a_seed_and_framing_quirks() -> None:
    chosen = get_scenario("unicode_args")
    quirks = [*chosen.quirks, "split_utf8", {"kind": "line_endings", "style": "crlf"}]
    wire = get_dialect("openai_chat").render(chosen.plan, quirks, 5)
    out = tooltape(
        "render", "unicode_args", "-d", "openai_chat", "--seed", "5",
        "--framing", "split_utf8", "--framing", '{"kind": "line_endings", "style": "crlf"}',
    ).stdout  # fmt: skip
    assert out == wire.body
    assert b"\r\n" in out


def test_render_writes_a_cassette_that_inspects_to_the_reference(tmp_path: Path) -> None:
    path = tmp_path / "missing_id.yaml"
    done = tooltape("render", "missing_id", "-d", "openai_chat", "--cassette", path)
    assert f"wrote {path}" in done.stdout.decode()
    cassette = load_cassette(path)
    (interaction,) = cassette.interactions
    chosen = get_scenario("missing_id")
    wire = get_dialect("openai_chat").render(chosen.plan, chosen.quirks, chosen.seed)
    assert interaction.response.body == wire.body
    assert list(interaction.response.boundaries or ()) == wire.boundaries
    assert cassette.info.scenario == "missing_id"
    report = json.loads(tooltape("inspect", path, "--json").stdout)
    assert (
        report["tool_calls"] == reference_merge(get_dialect("openai_chat").parse(wire.body)).calls()
    )
    assert report["hazards"]
    kept = fails("render", "openai_golden", "-d", "openai_chat", "--cassette", path)
    assert "the cassette exists and is kept; pass --overwrite to replace it" in kept
    assert "overwrite=True" not in kept
    assert load_cassette(path).info.scenario == "missing_id"  # untouched without --overwrite
    tooltape("render", "openai_golden", "-d", "openai_chat", "--cassette", path, "--overwrite")
    assert load_cassette(path).info.scenario == "openai_golden"


def test_render_errors_are_one_line() -> None:
    assert "unknown scenario 'nope'" in fails("render", "nope", "-d", "openai_chat")
    assert "unknown dialect 'nope'" in fails("render", "missing_id", "-d", "nope")
    assert "Missing option '--dialect'" in fails("render", "missing_id")
    assert "No such option" in fails("render", "missing_id", "-d", "openai_chat", "--bogus")
    assert "'--seed'" in fails("render", "missing_id", "-d", "openai_chat", "--seed", "x")
    line = fails("render", "missing_id", "-d", "openai_chat", "--framing", "repeat_name")
    assert "--framing takes wire (framing) quirks" in line
    assert "not valid JSON" in fails(
        "render", "missing_id", "-d", "openai_chat", "--framing", "{kind"
    )
    line = fails(
        "render", "missing_id", "-d", "openai_chat", "--framing", '{"kind":"split_reads","size":7}'
    )
    assert line.endswith(
        "split_reads size: extra inputs are not permitted; split_reads takes after_field, pieces"
    )
    assert "pieces: input should be greater than or equal to 2" in fails(
        "render",
        "missing_id",
        "-d",
        "openai_chat",
        "--framing",
        '{"kind":"split_reads","pieces":1}',
    )


def test_render_refuses_a_scenario_the_dialect_cannot_say() -> None:
    line = fails("render", "no_index_split_args", "-d", "anthropic_messages")
    assert line.startswith("tooltape render: error:")


# --- inspect -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "dialect"),
    [("truncated_mid_string", "openai_chat"), ("malformed_args", "anthropic_messages")],
)
def test_inspect_a_raw_body_gives_the_reference_merge(
    tmp_path: Path, scenario: str, dialect: str
) -> None:
    body = tmp_path / "body.txt"
    body.write_bytes(tooltape("render", scenario, "-d", dialect).stdout)
    report = json.loads(tooltape("inspect", body, "--dialect", dialect, "--json").stdout)
    merged = reference_merge(get_dialect(dialect).parse(body.read_bytes()))
    assert report["dialect"] == dialect
    assert report["tool_calls"] == merged.calls()
    assert report["invalid_tool_calls"] == [
        json.loads(json.dumps(dict(c))) for c in merged.invalid_tool_calls
    ]
    assert report["hazards"] == [str(h) for h in merged.hazards]
    assert report["hazards"] or report["invalid_tool_calls"]
    text = tooltape("inspect", body, "--dialect", dialect).stdout.decode()
    assert "msg │ index 0" in text  # the lanes
    assert "event(s)" in text


def test_inspect_against_reports_the_drift(tmp_path: Path) -> None:
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    tooltape("render", "openai_golden", "-d", "openai_chat", "--cassette", old)
    tooltape("render", "missing_id", "-d", "openai_chat", "--cassette", new)
    report = json.loads(tooltape("inspect", old, "--against", new, "--json").stdout)
    assert report["drift"]["changes"]
    assert any("id" in line for line in report["drift"]["changes"])
    same = tooltape("inspect", old, "--against", old).stdout.decode()
    assert "no change in stream shape" in same


def test_inspect_errors_are_one_line(tmp_path: Path) -> None:
    assert "does not exist" in fails("inspect", tmp_path / "missing.yaml")
    body = tmp_path / "body.sse"
    body.write_bytes(b"data: {}\n\n")
    assert "name its dialect" in fails("inspect", body)
    assert "unknown dialect 'nope'" in fails("inspect", body, "--dialect", "nope")
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions: [1, 2\n")
    assert fails("inspect", broken).startswith("tooltape inspect: error:")
