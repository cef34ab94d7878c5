"""Users' own subjects: a Subject, check_subject in pytest, --subject and entry points."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from tooltape.harness import TooltapeAssertionError, TooltapeUsageError
from tooltape.plugin import Subject, check_subject
from tooltape.plugin._subjects import load_subjects
from tooltape.plugin.cli import main

SUBJECTS = textwrap.dedent(
    """
    import json

    import httpx

    from tooltape.plugin import Subject


    def _read(base_url, tools, *, keep_first_fragment_only=False):
        body = {"model": "m", "stream": True, "tools": tools, "messages": []}
        calls = {}
        with httpx.stream("POST", base_url + "/chat/completions", json=body) as response:
            for line in response.iter_lines():
                if not line.startswith("data:") or line[5:].strip() == "[DONE]":
                    continue
                for choice in json.loads(line[5:]).get("choices", []):
                    for part in (choice.get("delta") or {}).get("tool_calls") or []:
                        new = {"name": "", "args": "", "id": None}
                        call = calls.setdefault(part.get("index", 0), new)
                        call["id"] = call["id"] or part.get("id")
                        function = part.get("function") or {}
                        call["name"] += function.get("name") or ""
                        if not (keep_first_fragment_only and call["args"]):
                            call["args"] += function.get("arguments") or ""
        return [calls[i] for i in sorted(calls)]


    def good():
        return Subject("good-reader", ("openai_chat",), _read)


    def both():
        lossy = Subject(
            "lossy-reader", ("openai_chat",),
            lambda url, tools: _read(url, tools, keep_first_fragment_only=True),
        )
        return [good(), lossy]
    """
)


@pytest.fixture
def subjects_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    (tmp_path / "my_subjects.py").write_text(SUBJECTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_subjects", None)
    import my_subjects

    return my_subjects


def test_check_subject_passes_a_correct_reader_and_names_each_cell_a_lossy_one_breaks(
    subjects_module: Any,
) -> None:
    good, lossy = subjects_module.both()

    assert check_subject(good, tags=["golden"]) == []
    with pytest.raises(TooltapeAssertionError) as caught:
        check_subject(lossy, scenarios=["openai_golden", "whole_call"])

    message = str(caught.value)
    assert message.startswith("tooltape: lossy-reader is worse than the reference in 1 of 2 cells")
    assert "openai_golden x openai_chat: differs: -call" in message  # one-fragment calls are fine


def test_the_matrix_runs_a_subject_given_with_subject(
    subjects_module: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["matrix", "--subject", "my_subjects:both", "--dialects", "openai_chat",
            "--scenarios", "openai_golden,whole_call", "--json"]  # fmt: skip
    with pytest.raises(SystemExit) as exited:
        main(args)

    report = json.loads(capsys.readouterr().out)
    statuses = {
        (c["scenario"], r["adapter"]): r["status"] for c in report["cells"] for r in c["results"]
    }
    assert statuses[("openai_golden", "good-reader")] == "pass"
    assert statuses[("whole_call", "lossy-reader")] == "pass"
    assert statuses[("openai_golden", "lossy-reader")] == "differs"
    assert report["unexpected"] == 1 and exited.value.code == 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("my_subjects", "expected module:factory"),
        ("my_subjects:nothing", "has no attribute 'nothing'"),
        ("no_such_module:x", "No module named 'no_such_module'"),
    ],
)
def test_a_bad_subject_spec_is_a_usage_error(subjects_module: Any, spec: str, message: str) -> None:
    with pytest.raises(TooltapeUsageError, match=message):
        load_subjects([spec])


def test_a_subject_with_an_unknown_dialect_or_a_taken_name_is_refused() -> None:
    def run(url: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return []

    with pytest.raises(TooltapeUsageError, match="did you mean 'openai_chat'"):
        check_subject(Subject("mine", ("openai_chta",), run))
    with pytest.raises(TooltapeUsageError, match="'reference' is named twice"):
        check_subject(Subject("reference", ("openai_chat",), run))


def test_an_entry_point_adds_its_subjects(subjects_module: Any, monkeypatch: pytest.MonkeyPatch):
    from importlib.metadata import EntryPoint

    point = EntryPoint("mine", "my_subjects:good", "tooltape.subjects")
    monkeypatch.setattr(
        "tooltape.plugin._subjects.entry_points",
        lambda group: [point] if group == "tooltape.subjects" else [],
    )

    assert [s.name for s in load_subjects()] == ["good-reader"]


def test_the_served_base_url_is_the_real_one_with_the_host_swapped() -> None:
    seen: list[str] = []

    def run(url: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seen.append(url)
        with httpx.Client() as client:
            client.post(
                url + "/chat/completions", json={"model": "m", "stream": True, "messages": []}
            )
        return []

    with pytest.raises(TooltapeAssertionError):
        check_subject(Subject("url-probe", ("openai_chat",), run), scenarios=["openai_golden"])
    assert seen and seen[0].startswith("http://127.0.0.1:") and seen[0].endswith("/v1")
