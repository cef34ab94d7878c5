"""``tooltape differential``: one stream through several real accumulators; where they differ."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

__all__ = ["differential"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command(context_settings=CONTEXT)
@click.option("--scenario", "scenarios", multiple=True, help="Scenario names (default: all).")
@click.option("--tag", "tags", multiple=True, help="Only scenarios with one of these tags.")
@click.option("--disagreements-only", is_flag=True, help="Hide scenarios where all agree.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable rows.")
@click.option(
    "--reference",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="langchain-core's pinned outcomes (default: the bundled reference_outcomes.yaml).",
)
@click.option(
    "--js/--no-js",
    "js",
    default=None,
    help="Add LangChain.js as a second reference (default: when node and it are installed).",
)
def differential(
    scenarios: Sequence[str],
    tags: Sequence[str],
    disagreements_only: bool,
    as_json: bool,
    js: bool | None,
    reference: Path | None,
) -> int:
    """Run each scenario through langchain-core and the official SDK accumulators.

    The accumulators are langchain-core's merge (of every dialect's parse) and each
    dialect's declared ones: openai's ChatCompletionStreamState, the Responses stream
    helper, anthropic's MessageStream (on Messages and Bedrock invoke), and, when it is
    installed, LiteLLM's completion(stream=True) through its own provider route plus
    stream_chunk_builder (every dialect but Responses and Bedrock invoke). Dialects
    with none are listed, with the reason, after the rows (on stderr with --json). Each row says
    what every accumulator made of the same scenario, and where they disagree. With
    LangChain.js installed (or --js), its ChatOpenAI and ChatAnthropic stream the same
    bytes from 127.0.0.1 as the langchain-js accumulator, and a last block lists where
    LangChain.js and langchain-core merge them differently. Exits 1 when
    langchain-core's own calls are not the ones reference_outcomes.yaml pins for
    that scenario and dialect (the installed release changed), naming them.

    \b
    Examples:
      tooltape differential --tag ids --disagreements-only
      tooltape differential --scenario repeated_name --scenario openai_golden --no-js
    """  # noqa: D301  (click's \b keeps the example unwrapped)
    from tooltape.cassettes import bundled_scenarios
    from tooltape.harness import select_scenarios
    from tooltape.plugin._engine.differential import (
        dialects_without_accumulators,
        differential_table,
        render_differential,
    )
    from tooltape.plugin._js_reference import render_js_report, require_js, with_langchain_js

    pool = select_scenarios(
        bundled_scenarios(), names=list(scenarios) or None, tags=list(tags) or None
    )
    if js:
        require_js()  # before the slow part: a missing node fails at once
    from tooltape.plugin._engine.reference_pins import differential_changes, load_reference_pins

    pins = load_reference_pins(reference)
    rows, note = with_langchain_js(pool, differential_table(pool), required=js)
    changed = differential_changes(rows, pins)
    if note:
        click.echo(note, err=True)
    report = render_js_report(rows)
    if disagreements_only:
        rows = [row for row in rows if not row.agree]
    none = "\n".join(f"  {n}: {why}" for n, why in dialects_without_accumulators().items())
    none = f"dialects with no accumulator beside langchain-core:\n{none}" if none else ""
    moved = "\n".join(f"  {line}" for line in changed)
    moved = f"langchain-core is not as pinned (fails the run):\n{moved}" if changed else ""
    if as_json:
        click.echo(json.dumps([row.as_dict() for row in rows], indent=2, default=str))
        if none:
            click.echo(none, err=True)
        if moved:
            click.echo(moved, err=True)
        return 1 if changed else 0
    click.echo(render_differential(rows) or "tooltape: every accumulator agrees")
    if none:
        click.echo(f"\n{none}")
    if report:
        click.echo(f"\n{report}")
    if moved:
        click.echo(f"\n{moved}")
    return 1 if changed else 0
