"""Every reader of a user's YAML file has bounds: no link, no FIFO, no device, no bomb.

The readers: a cassette (``load_cassette``, the marker, ``use_cassette``), ``inspect``,
``serve --script``, a scenario file and an expectations file. Each refuses, before
reading, a symbolic link (a link to a ``.env`` must not print its key), a FIFO (it
must not hang) and a file over ``$TOOLTAPE_MAX_CASSETTE_BYTES``; and each refuses
chained merge keys *while* building the data, not after.
"""

from __future__ import annotations

import os
import threading
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooltape.cassettes import (
    CassetteError,
    inspect_cassette,
    library_path,
    load_cassette,
    use_cassette,
)
from tooltape.harness import TooltapeUsageError, load_scenarios
from tooltape.harness.yaml_loader import BoundedSafeLoader, YamlTooLarge
from tooltape.plugin._engine.expectations import load_expectations
from tooltape.plugin.cli import main
from tooltape.plugin.cli.serve import load_script

pytest_plugins = ["pytester"]

KEY = "sk-proj-THIS-MUST-NEVER-BE-PRINTED-0123456789"

READERS: dict[str, Callable[[Path], Any]] = {
    "load_cassette": load_cassette,
    "use_cassette": lambda path: use_cassette(path).__enter__(),
    "inspect_cassette": inspect_cassette,
    "load_script": load_script,
    "load_scenarios": load_scenarios,
    "load_expectations": load_expectations,
}


def _refused(reader: Callable[[Path], Any], path: Path) -> str:
    """The reader's error for ``path``, run in a thread so that a hang fails instead of blocking."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            reader(path)
        except BaseException as error:
            outcome.append(error)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), f"the reader hung on {path}"
    error = outcome[0]
    assert isinstance(error, TooltapeUsageError), repr(error)
    assert "Traceback" not in str(error)
    return str(error)


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_link_to_a_secret_is_refused_without_printing_it(tmp_path, reader):
    secret = tmp_path / ".env"
    secret.write_text(f"OPENAI_API_KEY={KEY}\n")
    link = tmp_path / "c.yaml"
    link.symlink_to(secret)
    message = _refused(reader, link)
    assert str(link) in message and "symbolic link" in message
    assert KEY not in message and "OPENAI_API_KEY" not in message


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_fifo_is_refused_without_hanging(tmp_path, reader):
    fifo = tmp_path / "c.yaml"
    os.mkfifo(fifo)
    message = _refused(reader, fifo)
    assert str(fifo) in message and "FIFO" in message


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom"])
def test_devices_are_refused_directly_and_through_a_link(tmp_path, target):
    link = tmp_path / "c.yaml"
    link.symlink_to(target)
    assert "symbolic link" in _refused(load_cassette, link)
    assert "character device" in _refused(inspect_cassette, Path(target))


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_a_file_over_the_bound_is_refused_with_the_setting_to_raise(tmp_path, monkeypatch, reader):
    path = tmp_path / "c.yaml"
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    monkeypatch.setenv("TOOLTAPE_MAX_CASSETTE_BYTES", "1000")
    message = _refused(reader, path)
    assert str(path) in message and "over the bound of 1,000" in message
    assert "$TOOLTAPE_MAX_CASSETTE_BYTES" in message


def test_the_bound_setting_is_checked(tmp_path, monkeypatch):
    path = tmp_path / "c.yaml"
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    monkeypatch.setenv("TOOLTAPE_MAX_CASSETTE_BYTES", "64MB")
    assert "expected a positive number of bytes" in _refused(load_cassette, path)
    monkeypatch.setenv("TOOLTAPE_MAX_CASSETTE_BYTES", str(path.stat().st_size))
    assert load_cassette(path).interactions  # exactly at the bound: read


def test_the_cli_says_one_line_for_a_link(tmp_path, capsys):
    secret = tmp_path / ".env"
    secret.write_text(f"OPENAI_API_KEY={KEY}\n")
    (tmp_path / "c.yaml").symlink_to(secret)
    with pytest.raises(SystemExit) as exited:
        main(["inspect", str(tmp_path / "c.yaml")])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert "symbolic link" in captured.err and KEY not in captured.out + captured.err
    assert "Traceback" not in captured.err


@pytest.mark.slow
def test_a_link_at_a_tests_default_cassette_path_is_refused(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_linked="""
import pytest

@pytest.mark.tooltape_cassette
def test_one():
    pass
"""
    )
    secret = pytester.path / ".env"
    secret.write_text(f"OPENAI_API_KEY={KEY}\n")
    folder = pytester.path / "cassettes" / "test_linked"
    folder.mkdir(parents=True)
    (folder / "test_one.yaml").symlink_to(secret)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret != 0 and "symbolic link" in out
    assert KEY not in out and "OPENAI_API_KEY" not in out


def _merge_bomb(levels: int) -> str:
    """Each mapping merges the one before: quadratic data from linear text."""
    lines = ["l0: &l0 {k0: v}"]
    lines += [f"l{n}: &l{n} {{<<: *l{n - 1}, k{n}: v}}" for n in range(1, levels)]
    return "\n".join(lines) + "\n"


def _merge_doubling(levels: int) -> str:
    """Each mapping merges the one before twice, under new keys: a billion laughs of merges."""
    lines = ["a0: &a0 {k0: v}"]
    for n in range(1, levels):
        lines.append(f"b{n}: &b{n} {{<<: *a{n - 1}, x{n}: v}}")
        lines.append(f"a{n}: &a{n} {{<<: [*a{n - 1}, *b{n}], y{n}: v}}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("bomb", [_merge_bomb(3_000), _merge_doubling(3_000)])
def test_merge_keys_are_counted_while_they_expand(bomb):
    loader = BoundedSafeLoader(bomb)
    tracemalloc.start()
    try:
        with pytest.raises(YamlTooLarge, match="merge-key bomb") as refused:
            loader.get_single_data()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        loader.dispose()
    # Stopped as soon as the count passed the bound: one mapping past it at most,
    # instead of the ~4.5 million pairs the whole file builds.
    assert refused.value.limit == 4 * len(bomb) + 1_000_000
    assert refused.value.pairs <= refused.value.limit + 3_000
    assert peak < 200_000_000


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_every_yaml_reader_refuses_a_merge_bomb(tmp_path, reader):
    path = tmp_path / "c.yaml"
    path.write_text(_merge_bomb(3_000))
    message = _refused(reader, path)
    assert str(path) in message and "merge-key bomb" in message


def test_ordinary_merge_keys_still_read():
    text = "base: &b {a: 1, b: 2}\nmore: {<<: *b, c: 3}\nboth: {<<: [*b, {d: 4}], a: 0}\n"
    data = yaml.load(text, Loader=BoundedSafeLoader)
    assert data["more"] == {"a": 1, "b": 2, "c": 3}
    assert data["both"] == {"a": 0, "b": 2, "d": 4}


class _NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def _many(path: Path, count: int, flow: bool = False) -> Path:
    """A cassette of ``count`` copies of a small recorded interaction."""
    document = yaml.safe_load(library_path("openai_golden", "openai_chat").read_text())
    document["interactions"] *= count
    style = True if flow else None
    text = yaml.dump(document, Dumper=_NoAliases, default_flow_style=style, width=10**9)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("flow", [False, True], ids=["block", "flow"])
def test_a_cassette_over_the_interaction_bound_is_refused_naming_the_setting(
    tmp_path, monkeypatch, flow
):
    monkeypatch.setenv("TOOLTAPE_MAX_INTERACTIONS", "50")
    path = _many(tmp_path / "many.yaml", 51, flow)

    with pytest.raises(CassetteError) as caught:
        load_cassette(path)

    assert str(caught.value) == (
        f"{path}: 51 interactions, more than the 50 a cassette may hold; split it, or raise "
        "$TOOLTAPE_MAX_INTERACTIONS"
    )
    monkeypatch.setenv("TOOLTAPE_MAX_INTERACTIONS", "51")
    assert len(load_cassette(path).interactions) == 51


def test_the_interaction_count_is_refused_before_the_yaml_is_built(tmp_path, monkeypatch):
    path = _many(tmp_path / "many.yaml", 300)
    monkeypatch.setenv("TOOLTAPE_MAX_INTERACTIONS", "100")

    tracemalloc.start()
    with pytest.raises(CassetteError, match="300 interactions"):
        load_cassette(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()

    assert peak < 3 * path.stat().st_size  # the text and the count, no node graph


def test_the_interaction_bound_setting_is_checked(tmp_path, monkeypatch):
    path = tmp_path / "one.yaml"  # a new file: a cached cassette is not read again
    path.write_bytes(library_path("openai_golden", "openai_chat").read_bytes())
    monkeypatch.setenv("TOOLTAPE_MAX_INTERACTIONS", "ten")
    with pytest.raises(CassetteError, match=r"INTERACTIONS='ten': expected a positive number"):
        load_cassette(path)
