"""Regenerate the bundled cassette library (or check it is current).

Usage::

    python -m tooltape.cassettes._generate            # rewrite cassettes/library/
    python -m tooltape.cassettes._generate --check    # list stale files, exit 1 if any
    python -m tooltape.cassettes._generate --dialect openai_chat --dest /tmp/library

The work is done by :func:`tooltape.cassettes.generate_library`, which the
``tooltape`` command line can call too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tooltape.cassettes._library_build import LIBRARY_DIR, generate_library, stale_files
from tooltape.harness import TooltapeUsageError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: regenerate the library, or ``--check`` it."""
    parser = argparse.ArgumentParser(
        prog="python -m tooltape.cassettes._generate",
        description="Regenerate the bundled cassette library.",
    )
    parser.add_argument("--dest", type=Path, default=LIBRARY_DIR, help="the library folder")
    parser.add_argument("--scenarios", type=Path, help="a scenario file (default: bundled)")
    parser.add_argument("--dialect", action="append", help="only this dialect (repeatable)")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    options = parser.parse_args(argv)
    try:
        if options.check:
            problems = stale_files(options.dest, dialects=options.dialect)
            for line in problems:
                print(line)
            return 1 if problems else 0
        written = generate_library(
            options.dest, scenarios_file=options.scenarios, dialects=options.dialect, echo=print
        )
    except TooltapeUsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{len(written)} cassette(s) written to {options.dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
