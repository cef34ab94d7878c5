"""The matrix as one self-contained HTML page: inline CSS, no scripts, no external assets.

Below the grid, the findings: every cell where a subject is worse than the
reference, crashes or hangs, linked to its grid cell, with the reason and a
command that reruns it (:mod:`~tooltape.plugin.cli.findings`).

Rows are scenarios, columns dialects; each grid cell (``td.cell``) is coloured
by its worst result and holds one badge per subject: the status's symbol and
the subject's key letter (the legend names both). Opening a cell's
``<details>`` shows each subject's outcome, the expectation's reason, the diff
or the exception, and the parsed stream drawn as index lanes.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from typing import Any

from tooltape.plugin.cli.findings import cell_anchor, findings
from tooltape.plugin.cli.legend import MEANINGS, SYMBOLS, subject_key, subject_legend

__all__ = ["matrix_page"]

_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
.summary span { display: inline-block; margin-right: 1em; }
table.grid { border-collapse: collapse; margin-top: 1em; }
table.grid th, table.grid td { border: 1px solid #d0d0d7; padding: 2px 4px; vertical-align: top; }
table.grid thead th { writing-mode: vertical-rl; transform: rotate(180deg); font-weight: 500;
  white-space: nowrap; padding: 6px 2px; }
table.grid tbody th { text-align: left; font-weight: 500; white-space: nowrap; }
td.cell { min-width: 3.2em; position: relative; }
td.pass { background: #d9f5dd; } td.hazard { background: #fff1b8; }
td.differs { background: #f3d4f5; } td.crashes, td.hangs, td.memory { background: #ffd0cc; }
td.na { background: #f2f2f4; color: #999; }
td.unexpected { outline: 3px solid #c00; outline-offset: -3px; }
summary { cursor: pointer; list-style: none; white-space: nowrap; font-family: monospace; }
summary::-webkit-details-marker { display: none; }
details[open] > .pop { position: absolute; z-index: 5; left: 0; top: 100%; width: 46em;
  background: #fff; border: 1px solid #888; box-shadow: 0 4px 16px #0003; padding: .6em; }
.b { display: inline-block; min-width: 1.1em; text-align: center; border-radius: 3px;
  margin-right: 1px; font-weight: 600; }
.b.pass { color: #1a7f37; } .b.hazard { color: #9a6700; } .b.differs { color: #8250df; }
.b.better { color: #0969da; } td.better { background: #ddf4ff; }
.b.crashes, .b.hangs, .b.memory { color: #cf222e; }
.b.unexpected { background: #cf222e; color: #fff; }
pre { background: #f6f8fa; padding: .4em; overflow-x: auto; font-size: 12px; margin: .3em 0; }
.legend span { margin-right: 1.2em; }
.b sub { font-size: 65%; font-weight: 400; color: #555; }
table.legend td { padding: 1px .6em 1px 0; }
.reason { color: #555; }
table.findings { border-collapse: collapse; }
table.findings td, table.findings th { border-bottom: 1px solid #d0d0d7; padding: 2px .6em 2px 0;
  text-align: left; vertical-align: top; }
table.findings code { font-size: 12px; white-space: nowrap; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _badge(result: Any) -> str:
    flag = "" if result.expected else " unexpected"
    title = f"{result.adapter}: {result.status}" + ("" if result.expected else " (unexpected)")
    return (
        f'<span class="b {result.status}{flag}" title="{_e(title)}" '
        f'data-subject="{_e(result.adapter)}">'
        f"{SYMBOLS[result.status]}<sub>{_e(subject_key(result.adapter))}</sub></span>"
    )


def _result_block(result: Any) -> str:
    parts = [
        f"<p><b>{_e(result.adapter)}</b>: {_e(result.status)}"
        + ("" if result.expected else " <b>(unexpected)</b>")
        + (f' <span class="reason">— {_e(result.reason)}</span>' if result.reason else "")
        + "</p>"
    ]
    if result.detail:
        parts.append(f"<pre>{_e(result.detail)}</pre>")
    if result.warnings:
        parts.append(f'<p class="reason">warnings: {_e("; ".join(result.warnings))}</p>')
    return "".join(parts)


def _cell(cell: Any) -> str:
    status = "na" if cell.status == "n/a" else cell.status
    classes = f"cell {status}" + (" unexpected" if cell.unexpected else "")
    data = (
        f'id="{_e(cell_anchor(cell.scenario.name, cell.dialect))}" '
        f'data-scenario="{_e(cell.scenario.name)}" data-dialect="{_e(cell.dialect)}" '
        f'data-status="{_e(cell.status)}"'
    )
    if not cell.results:
        reason = cell.skipped or "not run"
        return f'<td class="{classes}" {data} title="{_e(reason)}">·</td>'
    badges = "".join(_badge(r) for r in cell.results)
    body = "".join(_result_block(r) for r in cell.results)
    if cell.lanes:
        body += f"<p><b>lanes</b> (what the {_e(cell.dialect)} adapter yields)</p>"
        body += f"<pre>{_e(cell.lanes)}</pre>"
    title = f"{cell.scenario.name} \u00d7 {cell.dialect}"
    return (
        f'<td class="{classes}" {data}><details><summary title="{_e(title)}">{badges}</summary>'
        f'<div class="pop"><p><b>{_e(title)}</b></p>{body}</div></details></td>'
    )


def _subjects(cells: Sequence[Any], dialect: str) -> str:
    for cell in cells:
        if cell.dialect == dialect and cell.results:
            return " · ".join(f"{subject_key(r.adapter)} {r.adapter}" for r in cell.results)
    return "none"


def _legend(cells: Sequence[Any]) -> str:
    """Each status's badge and meaning; each subject's key letter (the small letter in a badge).

    The legend's marks are ``td.mark``, not ``td.cell``: only grid cells are cells.
    """
    rows = []
    for status, meaning in MEANINGS.items():
        if status == "unexpected":
            mark = '<td class="mark unexpected">&nbsp;</td>'
        else:
            css = "na" if status == "n/a" else status
            mark = f'<td class="mark {css}"><span class="b {css}">{SYMBOLS[status]}</span></td>'
        rows.append(f"<tr>{mark}<th>{_e(status)}</th><td>{_e(meaning)}</td></tr>")
    subjects = subject_legend(r.adapter for c in cells for r in c.results)
    keys = "".join(f"<span>{_e(line)}</span>" for line in subjects)
    return (
        f'<h2>Legend</h2><table class="legend">{"".join(rows)}</table>'
        f'<p class="legend">Subjects (the small letter in each badge): {keys}</p>'
    )


def _findings(cells: Sequence[Any]) -> str:
    """One row per finding: the cell (linked), the subject, the reason and the command."""
    found = findings(cells)
    if not found:
        return '<h2 id="findings">Findings</h2><p>None: no subject is worse, crashes or hangs.</p>'
    rows = "".join(
        f'<tr class="finding {_e(f.status)}">'
        f'<td><a href="#{_e(cell_anchor(f.scenario, f.dialect))}">{_e(f.scenario)}'
        f" &times; {_e(f.dialect)}</a></td><td>{_e(f.subject)}</td>"
        f'<td><span class="b {_e(f.status)}">{SYMBOLS[f.status]}</span> {_e(f.status)}'
        f"{'' if f.expected else ' <b>(unexpected)</b>'}</td><td>{_e(f.reason)}</td>"
        f"<td><code>{_e(f.command)}</code></td></tr>"
        for f in found
    )
    return (
        f'<h2 id="findings">Findings ({len(found)})</h2><p>Every cell where a subject is worse '
        "than the reference, crashes, hangs or runs out of memory, with the reason and a command "
        'that reruns it.</p><table class="findings"><thead><tr><th>cell</th><th>subject</th>'
        f"<th>status</th><th>reason</th><th>reproduce</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def matrix_page(cells: Sequence[Any], dialects: Sequence[str], seconds: float) -> str:
    """The whole page for a finished run."""
    statuses = Counter(r.status for c in cells for r in c.results)
    unexpected = sum(len(c.unexpected) for c in cells)
    rows: dict[str, list[str]] = {}
    for cell in cells:
        rows.setdefault(cell.scenario.name, []).append(_cell(cell))
    head = "".join(f'<th scope="col">{_e(d)}</th>' for d in dialects)
    body = "".join(
        f'<tr><th scope="row">{_e(name)}</th>{"".join(tds)}</tr>' for name, tds in rows.items()
    )
    summary = "".join(
        f"<span>{_e(status)}: {statuses[status]}</span>"
        for status in ("pass", "hazard", "better", "differs", "crashes", "hangs", "memory")
    )
    order = "".join(f"<li><b>{_e(d)}</b>: {_e(_subjects(cells, d))}</li>" for d in dialects)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>tooltape matrix</title><style>{_CSS}</style></head>
<body>
<h1>tooltape matrix</h1>
<p class="summary">{len(rows)} scenarios &times; {len(dialects)} dialects, {seconds:.1f} s.
{summary}<span><b>unexpected: {unexpected}</b></span>
<span><a href="#findings">findings: {len(findings(cells))}</a></span></p>
{_legend(cells)}
<table class="grid"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>
<h2>Badge order per dialect</h2><ul>{order}</ul>
{_findings(cells)}
</body></html>
"""
