"""``tooltape matrix``: every bundled scenario x dialect through the reference and each adapter.

The run itself is :mod:`tooltape.plugin._engine.run`; this module picks
what to run from the options, shows progress while it runs (a bar on a
terminal, one line per scenario otherwise), prints the
summary table (or JSON), writes the HTML page, and exits 1 when a result is
not what ``matrix_expectations.yaml`` expects.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from tooltape.plugin.cli._limit_options import limit_option
from tooltape.plugin.cli.legend import MEANINGS, SYMBOLS, subject_key, subject_legend

__all__ = ["cell_dict", "matrix"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
STYLES = {
    "pass": "green",
    "hazard": "yellow",
    "better": "cyan",
    "differs": "magenta",
    "crashes": "red",
    "hangs": "red",
    "memory": "red",
    "n/a": "dim",
}


def _split(values: Sequence[str]) -> list[str] | None:
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    return names or None


def _choose(
    scenarios: list[str] | None, tags: list[str] | None, dialects: list[str] | None
) -> tuple[list[Any], list[str]]:
    from tooltape.cassettes import bundled_scenarios
    from tooltape.fake_providers import dialect_names, get_dialect
    from tooltape.harness import select_scenarios

    pool = select_scenarios(bundled_scenarios(), names=scenarios, tags=tags)
    for name in dialects or ():
        get_dialect(name)
    return pool, dialects or dialect_names(profiles=True)


def _check_adapters(adapters: list[str] | None, extra: list[Any]) -> None:
    from tooltape.harness.name_checks import check_names
    from tooltape.plugin._engine.subjects import adapter_names

    check_names("adapter", adapters or (), [*adapter_names(), *(a.name for a in extra)])


def result_dict(result: Any) -> dict[str, Any]:
    """One subject's outcome as JSON."""
    return {
        "adapter": result.adapter,
        "status": result.status,
        "expected": result.expected,
        "reason": result.reason,
        "error": result.error,
        "detail": result.detail,
        "seconds": round(result.seconds, 4),
        "warnings": result.warnings,
    }


def cell_dict(cell: Any) -> dict[str, Any]:
    """One cell as JSON: the reference's merge and every subject's outcome."""
    reference = cell.reference
    return {
        "scenario": cell.scenario.name,
        "dialect": cell.dialect,
        "status": cell.status,
        "lossless": cell.lossless,
        "skipped": cell.skipped,
        "reference": None
        if reference is None
        else {
            "tool_calls": reference.calls(),
            "invalid_tool_calls": [dict(c) for c in reference.invalid_tool_calls],
            "hazards": [str(h) for h in reference.hazards],
        },
        "results": [result_dict(r) for r in cell.results],
    }


def _summary_table(cells: list[Any], dialects: list[str]) -> Table:
    counts: dict[tuple[str, str], Counter[str]] = {}
    for cell in cells:
        for result in cell.results:
            key = (cell.dialect, result.adapter)
            counts.setdefault(key, Counter())[result.status] += 1
            counts[key]["unexpected"] += not result.expected
    table = Table(title="tooltape matrix: results per dialect and subject")
    table.add_column("dialect")
    table.add_column("subject")
    shown = ("pass", "hazard", "better", "differs", "crashes", "hangs", "memory")
    for status in (*shown, "unexpected"):
        table.add_column(status, justify="right", style=STYLES.get(status, "bold red"))
    for dialect in dialects:
        for (name, adapter), counter in counts.items():
            if name == dialect:
                values = [str(counter[s] or "") for s in shown]
                table.add_row(dialect, adapter, *values, str(counter["unexpected"] or ""))
    return table


def _subject_keys(cells: list[Any], dialect: str) -> str:
    """The key letters of a dialect's subjects, in the order its marks are drawn."""
    for cell in cells:
        if cell.dialect == dialect and cell.results:
            return "".join(subject_key(r.adapter) for r in cell.results)
    return ""


def _grid_table(cells: list[Any], dialects: list[str]) -> Table:
    table = Table(title="scenario x dialect: one mark per subject, under its key letter")
    table.add_column("scenario")
    for dialect in dialects:
        table.add_column(f"{dialect}\n{_subject_keys(cells, dialect)}", overflow="fold")
    rows: dict[str, list[Text]] = {}
    for cell in cells:
        text = Text()
        for result in cell.results:
            style = STYLES[result.status] + ("" if result.expected else " bold reverse")
            text.append(SYMBOLS[result.status], style=style)
        rows.setdefault(cell.scenario.name, []).append(text or Text("·", style="dim"))
    for name, texts in rows.items():
        table.add_row(name, *texts)
    return table


def _legend(console: Console, subjects: list[str]) -> None:
    """What each status means, in its colour and with its grid mark; the grid's subject keys."""
    console.print("legend:")
    for status, meaning in MEANINGS.items():
        if status == "unexpected":
            mark = Text("  unexpected", style="bold reverse")
        else:
            mark = Text(f"  {SYMBOLS[status]} {status:<8}", style=STYLES[status])
        console.print(mark + Text(f"  {meaning}"))
    if subjects:
        console.print("grid keys: " + ", ".join(subjects))


def _print_unexpected(console: Console, cells: list[Any]) -> None:
    for cell in cells:
        for result in cell.unexpected:
            console.print(
                Text(
                    f"UNEXPECTED {cell.scenario.name} x {cell.dialect} x {result.adapter}: "
                    f"{result.reason}",
                    style="bold red",
                ),
                soft_wrap=True,
            )
            if result.detail:
                console.print(Text("    " + result.detail.replace("\n", "\n    ")), soft_wrap=True)


def _progress_lines(scenarios: int, dialects: int) -> Callable[[Any], None]:
    """Without a terminal (CI logs, a pipe): one line on stderr per finished scenario."""
    click.echo(
        f"tooltape matrix: {scenarios} scenarios x {dialects} dialects, "
        f"{scenarios * dialects} cells",
        err=True,
    )
    started = time.perf_counter()
    done = 0

    def advance(cell: Any) -> None:
        nonlocal done
        done += 1
        if done % dialects == 0:
            click.echo(
                f"tooltape matrix: {done // dialects}/{scenarios} scenarios, "
                f"{done}/{scenarios * dialects} cells, {time.perf_counter() - started:.0f} s "
                f"({cell.scenario.name} done)",
                err=True,
            )

    return advance


def _run_with_progress(
    scenarios: list[Any], dialects: list[str], adapters: Any, expect: Any, **options: Any
) -> Any:
    from tooltape.plugin._engine.run import run_matrix

    err = Console(stderr=True)
    if not err.is_terminal:
        lines = _progress_lines(len(scenarios), len(dialects))
        return run_matrix(scenarios, dialects, adapters, expect, progress=lines, **options)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(
        *columns, TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal
    ) as progress:
        task = progress.add_task("matrix", total=len(scenarios) * len(dialects))

        def advance(cell: Any) -> None:
            progress.update(task, advance=1, description=f"{cell.scenario.name} x {cell.dialect}")

        return run_matrix(scenarios, dialects, adapters, expect, progress=advance, **options)


def _load_pins(path: Path | None, updating: bool) -> Any:
    """The pinned reference outcomes (``None`` when updating a file that does not exist yet)."""
    from tooltape.fake_providers import dialect_names
    from tooltape.plugin._engine.reference_pins import (
        bundled_reference_path,
        check_pinned_names,
        load_reference_pins,
    )

    if updating and not (path or bundled_reference_path()).exists():
        return None
    pins = load_reference_pins(path)
    from tooltape.cassettes import bundled_scenarios

    check_pinned_names(pins, [s.name for s in bundled_scenarios()], dialect_names(profiles=True))
    return pins


def _write_pins(cells: list[Any], previous: Any, path: Path | None) -> None:
    from tooltape.plugin._engine.reference_pins import (
        bundled_reference_path,
        installed_langchain_core,
        updated_reference,
    )

    target = path or bundled_reference_path()
    target.write_text(updated_reference(cells, previous), encoding="utf-8")
    click.echo(
        f"tooltape matrix: pinned langchain-core {installed_langchain_core()}'s outcome in "
        f"{len(cells)} cells in {target}",
        err=True,
    )


@click.command(context_settings=CONTEXT)
@click.option("--adapters", "adapters", multiple=True, help="Only these subjects (comma list).")
@click.option("--scenarios", "scenarios", multiple=True, help="Only these scenarios (comma list).")
@click.option("--dialects", "dialects", multiple=True, help="Only these dialects (comma list).")
@click.option("--tag", "tags", multiple=True, help="Only scenarios with this tag (repeatable).")
@click.option(
    "--subject",
    "subject_specs",
    multiple=True,
    metavar="MODULE:FACTORY",
    help="Also run your own subject: a factory returning tooltape.plugin.Subject (repeatable).",
)
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), help="Write the page.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@click.option("--grid", is_flag=True, help="Also print the scenario x dialect grid.")
@click.option(
    "--expectations",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Known outcomes (default: the bundled matrix_expectations.yaml).",
)
@click.option("--pin", is_flag=True, help="Print YAML entries that would pin the unexpected.")
@click.option(
    "--reference",
    "reference",
    type=click.Path(dir_okay=False, path_type=Path),
    help="langchain-core's pinned outcomes (default: the bundled reference_outcomes.yaml).",
)
@click.option(
    "--update-reference",
    is_flag=True,
    help="Pin the installed langchain-core's outcome in the cells run (writes --reference).",
)
@limit_option(
    "--cell-timeout",
    5.0,
    "Seconds a subject may take over one cell before it is reported as hangs (0: none).",
)
@limit_option(
    "--cell-memory",
    1024.0,
    "MiB a subject may grow the process by over one cell: else memory (0: no bound).",
)
def matrix(
    adapters: tuple[str, ...],
    scenarios: tuple[str, ...],
    dialects: tuple[str, ...],
    tags: tuple[str, ...],
    subject_specs: tuple[str, ...],
    html: Path | None,
    as_json: bool,
    grid: bool,
    expectations: Path | None,
    pin: bool,
    reference: Path | None,
    update_reference: bool,
    cell_timeout: float,
    cell_memory: float,
) -> int:
    """Run every bundled scenario x dialect through the reference and each installed adapter.

    Each subject's merged calls, text and order of parts are compared with
    langchain-core's merge of what the dialect's adapter yields and the text on
    the wire (and with the plan when the scenario is lossless): pass, hazard
    (passes, but the reference has hazards), better (differs where langchain-core
    loses or invents data, and the subject does not: shown, not failed), differs,
    crashes, or hangs / memory (past --cell-timeout or --cell-memory: reported
    with the scenario, and the run goes on). Exits 1 when a result is not what
    the expectations file says, or when langchain-core's own outcome in a cell
    (calls, invalid calls, hazard kinds and counts) is not the one
    reference_outcomes.yaml pins; --update-reference pins the installed
    release's instead.

    \b
    Subjects: reference, langchain-openai (chat, responses), openai-sdk,
    langchain-anthropic, anthropic-sdk, langchain-google-genai, langchain-ollama,
    langchain-cohere, langchain-aws, google-genai-sdk, mistralai-sdk, cohere-sdk, ollama-sdk,
    litellm, pydantic-ai, openai-agents, haystack, smolagents, llama-index-openai,
    llama-index-anthropic, langchain-js and vercel-ai (in node, one process per run)
    (those installed; the others are listed as skipped, with the command that installs
    them), and yours: the tooltape.subjects entry points and each --subject module:factory.

    \b
    Examples:
      tooltape matrix
      tooltape matrix --dialects openai_chat,anthropic_messages --grid
      tooltape matrix --adapters reference,langchain-openai --dialects openai_chat --html m.html
      tooltape matrix --tag truncation --json > matrix.json
      tooltape matrix --adapters reference --update-reference --reference pins.yaml
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.plugin._engine.expectations import load_expectations, pinned_entries
    from tooltape.plugin._engine.subjects import adapter_names
    from tooltape.plugin._subjects import as_adapter, load_subjects

    extra = [as_adapter(s) for s in load_subjects(subject_specs)]
    chosen_adapters = _split(adapters)
    _check_adapters(chosen_adapters, extra)
    pool, chosen_dialects = _choose(_split(scenarios), _split(tags), _split(dialects))
    from tooltape.cassettes import bundled_scenarios

    expect = load_expectations(expectations)
    expect.check_names(
        [s.name for s in bundled_scenarios()], [*adapter_names(), *(a.name for a in extra)]
    )
    pins = _load_pins(reference, update_reference)
    started = time.perf_counter()
    cells = _run_with_progress(
        pool,
        chosen_dialects,
        chosen_adapters,
        expect,
        pins=None if update_reference else pins,
        cell_timeout=cell_timeout or None,
        cell_memory=cell_memory or None,
        extra=extra,
    )
    elapsed = time.perf_counter() - started
    from tooltape.plugin._engine.run import skipped_subjects

    skipped = skipped_subjects(chosen_dialects, chosen_adapters)
    if update_reference:
        _write_pins(cells, pins, reference)
    unexpected = [(c, r) for c in cells for r in c.unexpected]
    if html is not None:
        from tooltape.plugin.cli.html import matrix_page

        html.write_text(matrix_page(cells, chosen_dialects, elapsed), encoding="utf-8")
    if pin:
        rows = [(r.adapter, c.dialect, c.scenario.name, r.status, r.error) for c, r in unexpected]
        rows = [row for row in rows if row[3] in ("differs", "crashes", "hangs", "memory")]
        text = yaml.safe_dump(
            {"expectations": pinned_entries(rows)},
            sort_keys=False,
            width=100,
            default_flow_style=None,
        )
        click.echo(text)
    elif as_json:
        document = {
            "seconds": round(elapsed, 3),
            "dialects": chosen_dialects,
            "scenarios": [s.name for s in pool],
            "unexpected": len(unexpected),
            "skipped": skipped,
            "cells": [cell_dict(c) for c in cells],
        }
        click.echo(json.dumps(document, indent=2, ensure_ascii=False, default=str))
    else:
        from tooltape.plugin.cli import stdout_console

        console = stdout_console()
        console.print(_summary_table(cells, chosen_dialects))
        if grid:
            console.print(_grid_table(cells, chosen_dialects))
        keys = subject_legend(r.adapter for c in cells for r in c.results) if grid else []
        _legend(console, keys)
        _print_unexpected(console, cells)
        for name, install in skipped.items():
            console.print(f"skipped {name}: not installed ({install})", soft_wrap=True)
        subjects = sum(len(c.results) for c in cells)
        console.print(
            f"{len(cells)} cells, {subjects} subject runs in {elapsed:.1f} s; "
            f"{len(unexpected)} unexpected" + (f"; page: {html}" if html else "")
        )
    return 1 if unexpected else 0
