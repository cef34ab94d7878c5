"""tooltape differential through the installed console script."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooltape.plugin._engine.differential import dialects_without_accumulators

pytestmark = pytest.mark.slow

TOOLTAPE = str(Path(sys.executable).parent / "tooltape")


def run(*args):
    return subprocess.run([TOOLTAPE, *map(str, args)], capture_output=True, text=True, timeout=600)


def test_the_known_disagreements_show_up():
    result = run("differential", "--scenario", "id_on_every_chunk", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    text = json.dumps(row)
    assert "ChatCompletionStreamState" in text
    assert "call_paris_01call_paris_01" in text  # the SDK concatenates a repeated id


def test_text_report_names_each_accumulator():
    result = run("differential", "--scenario", "id_on_every_chunk", "--no-js")
    assert result.returncode == 0, result.stderr
    assert "langchain-core" in result.stdout
    assert "! openai.ChatCompletionStreamState disagrees with langchain-core" in result.stdout
    assert "anthropic.MessageStream (Bedrock)" in result.stdout
    # Every dialect has one (LiteLLM's route at least): the section is left out.
    assert dialects_without_accumulators() == {}
    assert "dialects with no accumulator" not in result.stdout


def test_unknown_scenario_is_one_line_and_exit_2():
    result = run("differential", "--scenario", "nope")
    assert result.returncode == 2
    assert result.stderr.startswith("tooltape differential: error: unknown scenario 'nope'")
    assert len(result.stderr.strip().splitlines()) == 1


def test_langchain_core_not_as_pinned_exits_1_and_names_the_cell(tmp_path):
    import yaml

    from tooltape.plugin._engine.reference_pins import bundled_reference_path

    document = yaml.safe_load(bundled_reference_path().read_text(encoding="utf-8"))
    for group in document["cells"]["shared_index_idless"]:
        if "openai_chat" in group["dialects"]:
            group["calls"] = [{"name": "get_weatherget_weather", "args": {}, "id": "glued"}]
    pins = tmp_path / "pins.yaml"
    pins.write_text(yaml.safe_dump(document), encoding="utf-8")

    done = run("differential", "--scenario", "shared_index_idless", "--no-js", "--reference", pins)

    assert done.returncode == 1, done.stdout
    assert "langchain-core is not as pinned (fails the run):" in done.stdout
    assert "  shared_index_idless x openai_chat: langchain-core " in done.stdout
    assert run("differential", "--scenario", "shared_index_idless", "--no-js").returncode == 0
