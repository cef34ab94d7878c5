"""``tooltape corpus``: conformance-corpus records (JSON) into tooltape cassettes.

The work is :func:`tooltape.cassettes.convert_corpus_files`; this module is
only the command.
"""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["corpus"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
def corpus() -> None:
    """Recorded provider streams from the conformance corpus.

    \b
    Example:
      tooltape corpus convert corpus cassettes
    """  # noqa: D301  (click's \b keeps the example unwrapped)


@corpus.command(context_settings=CONTEXT)
@click.argument("src", type=click.Path(path_type=Path))
@click.argument("dst", type=click.Path(file_okay=False, path_type=Path))
def convert(src: Path, dst: Path) -> None:
    """Convert corpus records into cassettes: SRC/<provider>/*.json to DST/<provider>/*.yaml.

    SRC is a corpus folder (such as ../shared/corpus) or one record file;
    existing cassettes in DST are replaced.

    \b
    Examples:
      tooltape corpus convert corpus cassettes
      tooltape corpus convert corpus/openai/weather.json cassettes
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.cassettes import convert_corpus_files

    written = convert_corpus_files(src, dst)
    for path in written:
        click.echo(str(path))
    click.echo(f"{len(written)} cassette(s) written to {dst}")
