"""Convert conformance-corpus records into tooltape cassettes.

Usage: ``python -m tooltape.cassettes.convert_corpus SRC DST`` where SRC is the
corpus folder (``../shared/corpus``) or one record file, and DST the folder
that receives ``<provider>/<record>.yaml``. The logic is
:func:`tooltape.cassettes.convert_corpus_files`; this module is only the command.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tooltape.cassettes._convert import convert_corpus_files
from tooltape.harness import TooltapeUsageError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m tooltape.cassettes.convert_corpus",
        description="Convert corpus records (JSON) into tooltape cassettes (vcrpy YAML).",
    )
    parser.add_argument("src", help="a corpus folder or one record file")
    parser.add_argument("dst", help="the folder to write <provider>/<record>.yaml into")
    options = parser.parse_args(argv)
    try:
        written = convert_corpus_files(options.src, options.dst)
    except TooltapeUsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    print(f"{len(written)} cassette(s) written to {options.dst}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
