"""Shared test configuration: hypothesis profiles, the conformance corpus, headless Chromium."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings

# The shared helpers assert; rewritten, their failures show the values, as a test's do.
pytest.register_assert_rewrite("_adapter_streams")

# CI runs derandomized with a bounded number of examples: the machine has 2 cores.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


DumpDom = Callable[[str], "subprocess.CompletedProcess[str]"]
"""Load a URL in headless Chromium: its DOM after scripts ran on stdout, the log on stderr."""


@pytest.fixture(scope="session")
def headless_chromium(tmp_path_factory: pytest.TempPathFactory) -> DumpDom:
    """``dump_dom(url)``: the page loaded in headless Chromium, skipping when there is none.

    Every console message the page logs (errors included) is a ``CONSOLE`` line on
    stderr. Each load gets its own profile, so loads may run side by side.
    """
    browser = next(
        (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))),
        None,
    )
    if browser is None:
        pytest.skip(
            "no chromium, chromium-browser or google-chrome on PATH: "
            "install one (Debian/Ubuntu: apt-get install chromium)"
        )

    def dump_dom(url: str) -> subprocess.CompletedProcess[str]:
        profile = tmp_path_factory.mktemp("chromium-profile")
        return subprocess.run(
            [
                browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={profile}",
                "--enable-logging=stderr", "--v=0", "--dump-dom", url,
            ],
            capture_output=True, text=True, timeout=180, check=False,
        )  # fmt: skip

    return dump_dom


@pytest.fixture
def without_modules(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """``without_modules("litellm", "llama_index")``: those modules (and their submodules)
    look absent to ``importlib.util.find_spec`` for the rest of the test, as on a machine
    that never installed them; everything else is found as usual."""
    import importlib.util

    def hide(*names: str) -> None:
        real = importlib.util.find_spec

        def find_spec(name: str, *args: object) -> object:
            if any(name == hidden or name.startswith(f"{hidden}.") for hidden in names):
                return None
            return real(name, *args)  # type: ignore[arg-type]

        monkeypatch.setattr(importlib.util, "find_spec", find_spec)

    return hide
