"""``tooltape library``: regenerate the bundled cassette library, or check that it is current.

The work is :func:`tooltape.cassettes.generate_library` and
``stale_files``; this module is only the command.
"""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["library"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
_DEST = click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The library folder (default: the bundled cassettes/library).",
)
_DIALECT = click.option(
    "--dialect",
    "dialects",
    multiple=True,
    help="Only this dialect (repeatable; default: every bundled dialect).",
)


@click.group(context_settings=CONTEXT)
def library() -> None:
    """The bundled cassette library: every scenario in every dialect that can say it.

    \b
    Examples:
      tooltape library generate --dialect openai_chat --dest library
      tooltape library check --dialect openai_chat
    """  # noqa: D301  (click's \b keeps the examples unwrapped)


@library.command(context_settings=CONTEXT)
@_DEST
@_DIALECT
@click.option(
    "--scenarios",
    "scenarios_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A scenario YAML file to record (default: the bundled scenarios).",
)
def generate(dest: Path | None, dialects: tuple[str, ...], scenarios_file: Path | None) -> None:
    """Record every scenario in every dialect through the real server, into --dest.

    Without --dest it rewrites the bundled library (run it from a source checkout
    installed with ``pip install -e``). Files are replaced; other files in the
    folder are left alone. The output is byte-for-byte reproducible.

    \b
    Examples:
      tooltape library generate --dialect openai_chat --dest library
      tooltape library generate --scenarios mine.yaml --dialect anthropic_messages --dest lib
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.cassettes import generate_library
    from tooltape.cassettes.library_build import LIBRARY_DIR

    folder = dest or LIBRARY_DIR
    written = generate_library(
        folder, scenarios_file=scenarios_file, dialects=list(dialects) or None, echo=click.echo
    )
    click.echo(f"{len(written)} cassette(s) written to {folder}")


@library.command(context_settings=CONTEXT)
@_DEST
@_DIALECT
def check(dest: Path | None, dialects: tuple[str, ...]) -> int:
    """Regenerate in a temporary folder; list stale, missing or extra files (exit 1 if any).

    Without --dialect it checks every bundled dialect (a few minutes).

    \b
    Example:
      tooltape library check --dialect openai_chat
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.cassettes.library_build import LIBRARY_DIR, stale_files

    folder = dest or LIBRARY_DIR
    problems = stale_files(folder, dialects=list(dialects) or None)
    for line in problems:
        click.echo(line)
    if problems:
        click.echo(f"{len(problems)} file(s) out of date; run: tooltape library generate", err=True)
        return 1
    click.echo(f"{folder}: current")
    return 0
