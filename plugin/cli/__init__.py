"""The ``tooltape`` command line: the scenario library, wire bytes, cassettes, a server, the matrix.

Only the console script imports this module (``tooltape =
"tooltape.plugin.cli:main"``); the pytest plugin never does, so click and rich
cost the plugin nothing. Every command has ``--help`` with an example. Errors
are one line on stderr and a non-zero exit: 2 for a usage error (unknown
scenario, dialect, bad flag, missing file), 1 for anything else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table
from rich.text import Text

from tooltape.harness import TooltapeError, TooltapeUsageError
from tooltape.harness.json_text import loads

__all__ = ["cli", "main"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def stdout_console() -> Console:
    """The console tables print on (plain text, 140 columns, when piped).

    Markup is off: what it prints is data (install lines such as
    ``pip install 'tooltape[subjects]'``, arguments, reasons), never rich markup.
    """
    console = Console(highlight=False, soft_wrap=False, markup=False)
    if not console.is_terminal:
        console = Console(highlight=False, soft_wrap=False, markup=False, width=140)
    return console


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="tooltape", prog_name="tooltape")
def cli() -> None:
    """Play LLM providers streaming tool calls, quirks included.

    \b
    Examples:
      tooltape scenarios --tag truncation
      tooltape render parallel_interleaved --dialect openai_chat > body.sse
      tooltape inspect body.sse --dialect openai_chat
      tooltape serve --dialect anthropic_messages --scenario openai_golden
      tooltape matrix --dialects openai_chat --html matrix.html
      tooltape differential --tag ids
      tooltape library check --dialect openai_chat
      tooltape corpus convert corpus cassettes
    """  # noqa: D301  (click's \b keeps the examples unwrapped)


# --- scenarios ---------------------------------------------------------------------------


def _renders_in(scenario: Any, dialects: Sequence[str]) -> list[str]:
    from tooltape.fake_providers import get_dialect

    names = []
    for name in dialects:
        if scenario.dialects is not None and name not in scenario.dialects:
            continue
        try:
            get_dialect(name).render(scenario.plan, scenario.quirks, scenario.seed)
        except TooltapeUsageError:
            continue
        names.append(name)
    return names


def _scenario_row(scenario: Any, dialects: Sequence[str]) -> dict[str, Any]:
    from tooltape.harness import reference_merge

    merged = reference_merge(scenario.stream())
    return {
        "name": scenario.name,
        "description": scenario.description,
        "quirks": [q if isinstance(q, str) else dict(q) for q in scenario.quirks],
        "tags": list(scenario.tags),
        "cites": scenario.cites,
        "lossless": scenario.lossless,
        "finish": scenario.plan.effective_finish,
        "dialects": _renders_in(scenario, dialects),
        "reference": {
            "calls": len(merged.tool_calls),
            "invalid": len(merged.invalid_tool_calls),
            "hazards": sorted(merged.hazard_kinds()),
        },
    }


def _quirk_label(quirk: Any) -> str:
    if isinstance(quirk, str):
        return quirk
    params = ", ".join(f"{k}={v}" for k, v in quirk.items() if k != "kind")
    return f"{quirk['kind']}({params})"


def _dialect_summary(renders: list[str], dialects: Sequence[str]) -> str:
    if len(renders) == len(dialects):
        return f"all {len(dialects)}"
    missing = [d for d in dialects if d not in renders]
    if len(missing) <= len(renders):
        return f"{len(renders)}/{len(dialects)}, not: " + ", ".join(missing)
    return ", ".join(renders) or "none"


@cli.command(context_settings=CONTEXT)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--tag", "tags", multiple=True, help="Only scenarios with this tag (repeatable).")
@click.option(
    "--dialect", "dialects", multiple=True, help="Only these dialects or profiles (repeatable)."
)
def scenarios(as_json: bool, tags: tuple[str, ...], dialects: tuple[str, ...]) -> None:
    """List the bundled scenario library.

    For each scenario: its description, tags and quirks, the dialects that can
    render it, and what the reference (langchain-core) makes of its tool-chunk
    stream: valid calls, invalid calls and hazards.

    \b
    Examples:
      tooltape scenarios
      tooltape scenarios --tag truncation --dialect openai_chat --json
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.cassettes import bundled_scenarios
    from tooltape.fake_providers import dialect_names, get_dialect
    from tooltape.harness import select_scenarios

    for name in dialects:
        get_dialect(name)
    chosen = list(dialects) or dialect_names(profiles=True)
    pool = select_scenarios(bundled_scenarios(), tags=list(tags) or None)
    rows = [_scenario_row(s, chosen) for s in pool]
    if dialects:
        rows = [row for row in rows if row["dialects"]]
        if not rows:
            raise TooltapeUsageError(
                f"no bundled scenario{' with the tag(s) ' + ', '.join(tags) if tags else ''} "
                f"renders in {', '.join(dialects)}"
            )
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"{len(rows)} bundled scenario(s)", show_lines=True, expand=True)
    widths = {"scenario": 6, "tags": 2, "quirks": 3, "renders in": 3, "hazards": 3}
    for column in ("scenario", "tags", "quirks", "renders in", "calls", "invalid", "hazards"):
        table.add_column(column, overflow="fold", ratio=widths.get(column))
    for row in rows:
        table.add_row(
            Text(row["name"], style="bold") + Text("\n" + row["description"], style="dim"),
            ", ".join(row["tags"]) or "-",
            ", ".join(map(_quirk_label, row["quirks"])) or "-",
            _dialect_summary(row["dialects"], chosen),
            str(row["reference"]["calls"]),
            str(row["reference"]["invalid"]),
            ", ".join(row["reference"]["hazards"]) or "-",
        )
    stdout_console().print(table)


# --- render ------------------------------------------------------------------------------


def parse_quirk_option(text: str) -> Any:
    """A quirk from the command line: a kind name, or a JSON mapping with ``kind``."""
    text = text.strip()
    if not text.startswith("{"):
        return text
    try:
        value = loads(text)
    except ValueError as error:
        raise TooltapeUsageError(f"quirk {text!r} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise TooltapeUsageError(f"quirk {text!r} must be a kind name or a JSON object")
    return value


def _quirk_problem(value: Any, error: ValidationError) -> str:
    """One line from pydantic's report: the parameter, what is wrong, what the kind takes."""
    from tooltape.harness.quirk_registry import quirk_class

    first = error.errors()[0]
    where = ".".join(map(str, first["loc"])) or "the quirk"
    takes = sorted(set(quirk_class(value["kind"]).model_fields) - {"kind"})
    return (
        f"{value['kind']} {where}: {first['msg'].lower()}; "
        f"{value['kind']} takes {', '.join(takes) or 'no parameters'}"
    )


def _framing_quirks(specs: Sequence[str]) -> list[Any]:
    from tooltape.harness.quirk_registry import wire_quirk

    quirks = []
    for spec in specs:
        value = parse_quirk_option(spec)
        try:
            wire_quirk(value, "--framing", "add it to a scenario instead")
        except ValidationError as error:
            raise TooltapeUsageError(f"--framing {spec}: {_quirk_problem(value, error)}") from None
        quirks.append(value)
    return quirks


def _write_cassette(
    path: Path, scenario: Any, dialect: Any, wire: Any, quirks: list[Any], overwrite: bool
) -> None:
    from tooltape.cassettes import save_rendered

    if path.exists() and not overwrite:
        raise TooltapeUsageError(
            f"{path}: the cassette exists and is kept; pass --overwrite to replace it"
        )
    save_rendered(path, scenario, dialect, wire, quirks, overwrite=overwrite)


@cli.command(context_settings=CONTEXT)
@click.argument("scenario")
@click.option("--dialect", "-d", required=True, help="The dialect or profile to render in.")
@click.option(
    "--seed", type=int, default=None, help="Seed for the quirks (default: the scenario's)."
)
@click.option(
    "--framing",
    "framing",
    multiple=True,
    metavar="QUIRK",
    help='A wire quirk to add: a kind (split_utf8) or JSON ({"kind": "split_reads", "pieces": 5}).',
)
@click.option(
    "--cassette",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a vcrpy cassette here instead of the bytes on stdout.",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing --cassette file.")
def render(
    scenario: str,
    dialect: str,
    seed: int | None,
    framing: tuple[str, ...],
    cassette: Path | None,
    overwrite: bool,
) -> None:
    """Print a scenario's wire bytes in a dialect (or write them as a cassette).

    The bytes go to stdout unchanged (binary-safe); the read boundaries are
    kept in a cassette.

    \b
    Examples:
      tooltape render parallel_interleaved --dialect openai_chat > body.sse
      tooltape render truncated_mid_string -d anthropic_messages --framing split_utf8
      tooltape render openai_golden -d openai_chat --framing '{"kind": "split_reads", "pieces": 5}'
      tooltape render missing_id -d openai_responses --cassette missing_id.yaml
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.cassettes import get_scenario
    from tooltape.fake_providers import get_dialect

    chosen = get_scenario(scenario)
    provider = get_dialect(dialect)
    extra = _framing_quirks(framing)
    if seed is not None:
        chosen = chosen.model_copy(update={"seed": seed})
    quirks = [*chosen.quirks, *extra]
    wire = provider.render(chosen.plan, quirks, chosen.seed)
    if cassette is not None:
        _write_cassette(cassette, chosen, provider, wire, quirks, overwrite)
        click.echo(f"tooltape: wrote {cassette} ({len(wire.body)} bytes, {len(wire.reads)} reads)")
        return
    sys.stdout.buffer.write(wire.body)
    sys.stdout.buffer.flush()


def _register() -> None:
    from tooltape.plugin.cli.corpus import corpus
    from tooltape.plugin.cli.differential import differential
    from tooltape.plugin.cli.inspect import inspect
    from tooltape.plugin.cli.library import library
    from tooltape.plugin.cli.matrix import matrix
    from tooltape.plugin.cli.serve import serve

    cli.add_command(inspect)
    cli.add_command(serve)
    cli.add_command(matrix)
    cli.add_command(differential)
    cli.add_command(library)
    cli.add_command(corpus)


_register()


# --- the entry point ---------------------------------------------------------------------


def _command_name(argv: Sequence[str]) -> str:
    commands = [a for a in argv if a in cli.commands]
    return f"tooltape {commands[0]}" if commands else "tooltape"


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Run the command line; exit with its status."""
    args = list(sys.argv[1:] if argv is None else argv)
    name = _command_name(args)

    def err(line: str) -> None:
        click.echo(line, err=True)

    try:
        result = cli.main(args=args, prog_name="tooltape", standalone_mode=False)
    except click.UsageError as error:
        err(f"{name}: error: {_one_line(error.format_message())} (see '{name} --help')")
        sys.exit(2)
    except click.ClickException as error:
        err(f"{name}: error: {_one_line(error.format_message())}")
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        err(f"{name}: aborted")
        sys.exit(130)
    except TooltapeUsageError as error:
        err(f"{name}: error: {_one_line(str(error))}")
        sys.exit(2)
    except TooltapeError as error:
        err(f"{name}: error: {_one_line(str(error))}")
        sys.exit(1)
    except OSError as error:
        if isinstance(error, BrokenPipeError):
            sys.exit(0)
        where = f"{error.filename}: " if error.filename else ""
        err(f"{name}: error: {where}{error.strerror or error}")
        sys.exit(1)
    sys.exit(result if isinstance(result, int) else 0)
