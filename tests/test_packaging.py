"""What a release needs beside the code: the version in one place, its changelog entry, the licence.

.ci/run builds the sdist and wheel and checks them (twine check, check-wheel-contents).
"""

import re
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_version_is_pyprojects_and_the_installed_metadata_reads_it():
    assert "version" not in PROJECT.get("dynamic", [])
    assert version("tooltape") == PROJECT["version"]


def test_the_changelog_keeps_a_changelog_with_a_section_for_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]", changelog, flags=re.MULTILINE)
    assert headings[:2] == ["Unreleased", PROJECT["version"]]
    for heading in headings:  # every section is linked, as Keep a Changelog does
        assert re.search(rf"^\[{re.escape(heading)}\]: ", changelog, flags=re.MULTILINE)


def test_the_licence_file_is_the_one_the_metadata_names():
    assert PROJECT["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert metadata("tooltape")["License-Expression"] == "MIT"
