"""``tooltape inspect``: what a cassette or a raw body holds, and what langchain-core makes of it.

The reading is :func:`tooltape.cassettes.inspect_cassette` (cassette files, or
raw SSE/NDJSON/event-stream bodies given ``--dialect``); ``--against`` adds
:func:`tooltape.cassettes.drift` between two recordings. This module only
prints.
"""

from __future__ import annotations

import gc
import json
from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tooltape.harness import TooltapeUsageError

__all__ = ["inspect"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _kinds(events: Any) -> str:
    counts = Counter(event.kind for event in events)
    return ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in counts.items()) or "-"


_MAX_ROWS = 200
"""Calls drawn in the table of one interaction."""


def _print_interaction(console: Console, item: Any) -> None:
    cut = f", cut: {item.aborted}" if item.aborted else ""
    console.print(
        Text(f"interaction {item.index}: {item.request} -> {item.status}{cut}", style="bold")
    )
    console.print(Text(f"  {len(item.events)} event(s): {_kinds(item.events)}"))
    for warning in item.warnings:
        console.print(Text(f"  warning {warning}", style="red"))
    if item.merge is None:
        return
    table = Table(show_header=True, box=None, pad_edge=False)
    for column in ("", "name", "args", "id"):
        table.add_column(column, overflow="fold")
    calls = item.merge.calls()
    for call in calls[:_MAX_ROWS]:
        table.add_row(
            "call", call["name"], json.dumps(call["args"], ensure_ascii=False), call["id"]
        )
    for bad in item.merge.invalid_tool_calls[: max(0, _MAX_ROWS - len(calls))]:
        table.add_row(
            Text("invalid", style="red"),
            bad.get("name") or "",
            repr(bad.get("args")),
            bad.get("id"),
        )
    if item.merge.tool_calls or item.merge.invalid_tool_calls:
        console.print(table)
        hidden = len(calls) + len(item.merge.invalid_tool_calls) - _MAX_ROWS
        if hidden > 0:  # rich lays out every row; thousands of them take minutes
            console.print(f"  … {hidden} more call(s) not shown; --json lists them all")
    else:
        console.print("  no tool calls")
    for hazard in item.merge.hazards:
        console.print(Text(f"  hazard {hazard}", style="yellow"))
    console.print(Text(item.lanes))


@click.command(context_settings=CONTEXT)
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--dialect", "-d", help="The dialect to read bodies in (required for a raw body file)."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--against",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Another cassette: print the drift in stream shape from SOURCE to it.",
)
@click.option("--interaction", type=int, default=None, help="Only this interaction (from 0).")
def inspect(
    source: Path, dialect: str | None, as_json: bool, against: Path | None, interaction: int | None
) -> None:
    """Show a cassette or a raw streamed body: events, lanes, reference merge, hazards.

    SOURCE is a cassette (.yaml) or a raw body file (SSE, NDJSON or AWS event
    stream) with --dialect. The JSON holds at least tool_calls,
    invalid_tool_calls and hazards.

    \b
    Examples:
      tooltape render missing_id -d openai_chat > body.sse
      tooltape inspect body.sse --dialect openai_chat --json
      tooltape inspect old.yaml --against new.yaml
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    # What the reading builds (millions of objects for a big recording) lives till the
    # command ends and makes no cycles: every collection while it is alive would walk it
    # all again, which cost a fifth of the command on 100,000 calls. The collector stays
    # off until the reading has been printed and dropped.
    enabled = gc.isenabled()
    gc.disable()
    try:
        _inspect(source, dialect, as_json, against, interaction)
    finally:
        if enabled:
            gc.enable()


def _inspect(
    source: Path, dialect: str | None, as_json: bool, against: Path | None, interaction: int | None
) -> None:
    from tooltape.cassettes import drift, inspect_cassette
    from tooltape.fake_providers import get_dialect

    if dialect is not None:
        get_dialect(dialect)  # an unknown dialect is a usage error naming the known ones
    result = inspect_cassette(source, dialect=dialect, interaction=interaction)
    drifted: list[str] | None = None
    if against is not None:
        if dialect is not None and not str(source).endswith((".yaml", ".yml")):
            raise TooltapeUsageError("--against compares two cassettes, not raw body files")
        drifted = drift(source, against)
    if as_json:
        data = result.as_dict()
        if drifted is not None:
            data["drift"] = {"against": str(against), "changes": drifted}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
        _exit_on_malformed(result)
        return
    from tooltape.plugin.cli import stdout_console

    console = stdout_console()
    console.print(Text(f"{result.source} ({result.dialect})", style="bold"))
    for item in result.interactions:
        _print_interaction(console, item)
    if drifted is not None:
        console.print(Text(f"drift against {against}:", style="bold"))
        for line in drifted or ["no change in stream shape"]:
            console.print(Text(f"  {line}"))
    _exit_on_malformed(result)


def _exit_on_malformed(result: Any) -> None:
    """Malformed events are not a clean reading: say so on stderr and exit 1."""
    if result.warnings:
        click.echo(
            f"tooltape inspect: {len(result.warnings)} malformed event warning(s) in "
            f"{result.source}; the reference adapter skips or fails on them",
            err=True,
        )
        raise SystemExit(1)
