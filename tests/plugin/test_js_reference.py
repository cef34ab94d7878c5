"""LangChain.js as a differential reference: what happens when node or its packages are absent.

The run itself (LangChain.js streaming served wires) is in tests/test_cross_language.py.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from tooltape.harness import TooltapeUsageError
from tooltape.plugin._js_reference import js_missing, require_js, with_langchain_js

TOOLTAPE = str(Path(sys.executable).parent / "tooltape")


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_js_without_node_is_an_error_naming_node_before_any_work():
    done = subprocess.run(
        [TOOLTAPE, "differential", "--js", "--scenario", "openai_golden"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/nonexistent"},
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "tooltape differential: error: --js: node is not on PATH "
        "(LangChain.js needs Node.js 20 or newer)"
    )
    assert done.stdout == ""


def test_without_the_packages_the_default_skips_with_the_install_command(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLTAPE_JS_DIR", str(tmp_path / "js"))
    if js_missing() == "node is not on PATH (LangChain.js needs Node.js 20 or newer)":
        pytest.skip(
            "node is not installed: install Node.js 20 or newer "
            "(Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org)"
        )
    rows, note = with_langchain_js([], [], required=None)
    assert rows == []
    assert note == (
        "tooltape: LangChain.js skipped: @langchain/core, @langchain/openai, @langchain/anthropic"
        f" not installed in {tmp_path / 'js'}; install with: npm ci --no-audit --no-fund"
        f" --prefix {tmp_path / 'js'} (--no-js hides this)"
    )
    # the printed command works as printed: the folder holds what npm ci reads
    assert {p.name for p in (tmp_path / "js").iterdir()} == {
        "package.json",
        "package-lock.json",
        "chat_models.mjs",
        "merge.mjs",
        "subjects.mjs",
    }
    with pytest.raises(TooltapeUsageError, match=r"^--js: @langchain/core, .* npm ci "):
        require_js()
    assert with_langchain_js([], [], required=False) == ([], None)


def test_a_dialect_without_a_langchain_js_adapter_is_refused_with_the_close_name():
    with pytest.raises(TooltapeUsageError) as raised:
        with_langchain_js([], [], dialects=["openai_chats"], required=False)
    assert str(raised.value) == (
        "unknown LangChain.js dialect 'openai_chats' (did you mean 'openai_chat'?); "
        "known LangChain.js dialects: anthropic_messages, openai_chat"
    )
    with pytest.raises(TooltapeUsageError, match=r"^unknown LangChain.js dialect 'gemini'; known "):
        with_langchain_js([], [], dialects=["gemini"], required=False)
