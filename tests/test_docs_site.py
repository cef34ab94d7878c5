"""The docs site builds strictly, every page renders in Chromium, and no internal link is broken.

``mkdocs build --strict`` (mkdocs.yml) already fails on a broken link between pages;
these tests check the built site as a reader meets it: every page served on
127.0.0.1 and loaded in headless Chromium logs nothing to the console and asks for
nothing that is not there (stylesheets, scripts, pictures, the search index), and
every link and anchor of every page lands. The generated pages hold every quirk
kind, dialect and subject, and the lane pictures are what ``docs/_lanes_svg.py`` draws.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from tooltape.fake_providers import dialect_names
from tooltape.harness import quirk_kinds
from tooltape.plugin._engine.subjects import adapter_names

ROOT = Path(__file__).resolve().parents[1]
NEEDS_MKDOCS = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None
    or importlib.util.find_spec("material") is None
    or importlib.util.find_spec("mkdocstrings_handlers") is None,
    reason='the docs tools are not installed: pip install -e ".[docs]" (or run nox -s docs)',
)


def _load(path: Path) -> ModuleType:
    name = f"docs_{path.stem.lstrip('_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_lane_pictures_are_what_the_script_draws() -> None:
    script = _load(ROOT / "docs" / "_lanes_svg.py")
    for picture in script.PICTURES:
        committed = (ROOT / "docs" / "img" / picture.file).read_text(encoding="utf-8")
        assert committed == script.draw(picture), (
            f"docs/img/{picture.file} is out of date: run python docs/_lanes_svg.py"
        )
        assert f"](img/{picture.file})" in (ROOT / "docs" / "behaviour.md").read_text()


CITATION_CODE = re.compile(
    r"(?<![\w.\-\[\]{}#/=+*%$@'\"])"
    r"(?:A|AZ|B|D|F|G|GC|L|LS|M|N|O|OL|OR|Q|R|RS|S|T|V|X)\d{1,2}\b(?![\-\w])"
)
"""A code of the quirk notes the project began from (letters, a number): not in the repository."""


def test_no_citation_code_points_outside_the_repository() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "*.py", "*.md", "*.yaml", "*.mjs"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if listed.returncode != 0:
        pytest.skip("not a git checkout (an sdist): the files to read are git's list")
    found = [
        f"{name}:{number}: {match.group(0)} in {line.strip()[:100]}"
        for name in listed.stdout.split()
        if not name.startswith("tests/corpus/")
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1)
        for match in CITATION_CODE.finditer(line)
    ]
    assert not found, "cite the public evidence (a link) instead:\n" + "\n".join(found)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-4000:]
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("index.html") if "assets" not in p.parts)


class _Page(HTMLParser):
    """The ids, links and resources of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        for attr in ("href", "src"):
            if values.get(attr) and not (tag == "link" and values.get("rel") == "canonical"):
                self.refs.append(values[attr] or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@functools.cache
def _parsed(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _target(site: Path, page: Path, ref: str) -> tuple[Path, str] | None:
    """The file and anchor a relative reference of ``page`` lands on (``None``: external)."""
    parts = urlsplit(ref)
    if parts.scheme or parts.netloc or ref.startswith(("mailto:", "javascript:", "data:")):
        return None
    base = "/" + page.relative_to(site).as_posix()
    path = unquote(urlsplit(urljoin(base, parts.path)).path) if parts.path else base
    file = site / path.lstrip("/")
    if path.endswith("/") or file.is_dir():
        file = file / "index.html"
    return file, parts.fragment


@NEEDS_MKDOCS
@pytest.mark.slow
def test_every_internal_link_and_anchor_lands(site: Path) -> None:
    broken: list[str] = []
    external: set[str] = set()
    for page in _pages(site):
        for ref in _parsed(page).refs:
            target = _target(site, page, ref)
            if target is None:
                external.add(urlsplit(ref).netloc)
                continue
            file, anchor = target
            where = f"{page.relative_to(site)}: {ref}"
            if not file.is_file():
                broken.append(f"{where} (no {file.relative_to(site)})")
            elif anchor and file.suffix == ".html" and anchor not in _parsed(file).ids:
                broken.append(f"{where} (no id {anchor!r} in {file.relative_to(site)})")
    assert not broken, "\n".join(broken)
    roles = [
        f"{page.relative_to(site)}: {match.group(0)}"
        for page in _pages(site)
        for match in re.finditer(
            r":(?:class|func|meth|mod|data|attr|exc):", "".join(_parsed(page).text)
        )
    ]
    assert not roles, f"Sphinx roles left as text (docs/_hooks.py turns them into links): {roles}"
    assert "fonts.googleapis.com" not in external  # the site asks nothing of the network


@NEEDS_MKDOCS
@pytest.mark.slow
def test_the_generated_pages_hold_every_quirk_dialect_and_subject(site: Path) -> None:
    quirks = _parsed(site / "quirks" / "index.html")
    assert set(quirk_kinds()) <= quirks.ids
    dialects = _parsed(site / "dialects" / "index.html")
    assert set(dialect_names(profiles=True)) <= dialects.ids
    assert "call ids functions.<name>:<n>" in "".join(dialects.text)  # not taken for HTML tags
    subjects = "".join(_parsed(site / "subjects" / "index.html").text)
    assert all(name in subjects for name in adapter_names())
    json_py = "langchain-ai/langchain/blob/master/libs/core/langchain_core/utils/json.py"
    assert f"https://github.com/{json_py}" in quirks.refs  # evidence as links


class _Handler(SimpleHTTPRequestHandler):
    missing: list[str]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        self.missing.append(f"{code} {self.path}")
        super().send_error(code, message, explain)


@pytest.fixture
def served(site: Path) -> Iterator[tuple[str, list[str]]]:
    missing: list[str] = []
    handler = type("Handler", (_Handler,), {"missing": missing})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", missing
    finally:
        server.shutdown()
        server.server_close()


@NEEDS_MKDOCS
@pytest.mark.slow
def test_every_page_renders_in_chromium_with_a_quiet_console(
    site: Path,
    served: tuple[str, list[str]],
    headless_chromium: Callable[[str], subprocess.CompletedProcess[str]],
) -> None:
    base, missing = served
    urls = [base + p.relative_to(site).parent.as_posix() + "/" for p in _pages(site)]
    urls = [url.replace("/./", "/") for url in urls]
    with ThreadPoolExecutor(max_workers=2) as pool:
        loads = list(pool.map(headless_chromium, urls))
    problems = []
    for url, load in zip(urls, loads, strict=True):
        if load.returncode != 0:
            problems.append(f"{url}: chromium exited {load.returncode}: {load.stderr[-500:]}")
        console = [line for line in load.stderr.splitlines() if "CONSOLE" in line]
        problems += [f"{url}: {line}" for line in console]
        if 'class="md-content"' not in load.stdout or "<h1" not in load.stdout:
            problems.append(f"{url}: no rendered article in the DOM")
    assert not problems, "\n".join(problems)
    assert not missing, f"pages asked for what the site does not have: {missing}"
    assert len(urls) >= 15
