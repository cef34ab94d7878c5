"""Subjects users bring: their own consumer of streamed tool calls, judged by the matrix.

A :class:`Subject` is a name, the dialects it reads and one function: given the
base URL of a fake provider serving a dialect on 127.0.0.1 (the real provider's
base URL with the host swapped, e.g. ``http://127.0.0.1:PORT/v1`` for
``openai_chat``) and the turn's tools (OpenAI-style definitions), stream one
turn and return the tool calls it ended with. The matrix then judges it as it
judges the built-in subjects: against the plan, with langchain-core beside it.

Three ways to bring one:

- an entry point in the ``tooltape.subjects`` group, naming a factory that
  returns a :class:`Subject` (or several): installed, it joins every
  ``tooltape matrix`` run;
- ``tooltape matrix --subject module:factory`` for one run;
- :func:`check_subject` in a pytest test, for an adapter under development.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tooltape.harness import TooltapeAssertionError, TooltapeUsageError
from tooltape.plugin._engine.turns import Turn

if TYPE_CHECKING:
    from tooltape.plugin._engine.subjects import Adapter
    from tooltape.plugin.cli.findings import Finding

__all__ = ["ENTRY_POINT_GROUP", "Subject", "Turn", "check_subject", "load_subjects"]

ENTRY_POINT_GROUP = "tooltape.subjects"
"""The entry-point group whose factories add subjects to every ``tooltape matrix`` run."""

ToolCall = Mapping[str, Any]
"""``{"name": ..., "args": ..., "id": ...}``: ``args`` a dict, or the raw text if unparsed."""


@dataclass(frozen=True)
class Subject:
    """A consumer of streamed tool calls that ``tooltape matrix`` runs beside its own.

    Args:
        name: How the matrix, the expectations file and ``--adapters`` name it.
        dialects: The dialects it reads (``openai_chat``, ``anthropic_messages``...).
        run: ``run(base_url, tools)``: stream one turn from ``base_url`` with ``tools``
            bound and return the tool calls it made of it, in order; or a :class:`Turn`
            (``Turn.of(calls, text=..., parts=...)``) so its text, and the order of
            its text and calls, are judged too.
        requires: Modules that must be importable for it to run (else it is skipped).
        description: One line for the matrix's legend.
    """

    name: str
    dialects: tuple[str, ...]
    run: Callable[[str, list[dict[str, Any]]], Iterable[ToolCall] | Turn]
    requires: tuple[str, ...] = ()
    description: str = ""


def as_adapter(subject: Subject) -> Adapter:
    """The matrix row of ``subject``: served over a real 127.0.0.1 server."""
    from tooltape.fake_providers import get_dialect
    from tooltape.plugin._engine.subjects import Adapter, tools_for

    def build(dialect: str, server_url: str) -> str:
        return server_url + urlsplit(get_dialect(dialect).base_url or "").path.rstrip("/")

    def run(base_url: str, plan: Any) -> Turn:
        made = subject.run(base_url, tools_for(plan))
        return made if isinstance(made, Turn) else Turn.of(made)

    description = subject.description or f"{subject.name}: a user subject"
    return Adapter(
        subject.name, subject.dialects, subject.requires, build, run, "server", description
    )


def _from_factory(made: Any, where: str) -> list[Subject]:
    subjects = [made] if isinstance(made, Subject) else list(made or ())
    if not subjects or not all(isinstance(s, Subject) for s in subjects):
        raise TooltapeUsageError(
            f"{where}: expected a Subject or a list of Subjects, got {type(made).__name__}"
        )
    return subjects


def _check(subjects: Sequence[Subject], taken: Sequence[str]) -> None:
    from tooltape.fake_providers import dialect_names
    from tooltape.harness.name_checks import check_names

    seen = set(taken)
    for subject in subjects:
        if subject.name in seen:
            raise TooltapeUsageError(f"subject {subject.name!r} is named twice")
        seen.add(subject.name)
        check_names(f"dialect of subject {subject.name!r}", subject.dialects, dialect_names())


def load_subjects(
    specs: Sequence[str] = (), *, entry_point_group: str = ENTRY_POINT_GROUP
) -> list[Subject]:
    """The subjects of the installed entry points, then of each ``module:factory`` in ``specs``.

    Raises:
        TooltapeUsageError: A spec that is not ``module:factory``, a module or factory that
            is missing, a factory that returns no :class:`Subject`, a name given twice (or a
            built-in subject's name), or an unknown dialect.
    """
    from tooltape.plugin._engine.subjects import adapter_names

    subjects: list[Subject] = []
    for point in entry_points(group=entry_point_group):
        subjects += _from_factory(point.load()(), f"entry point {point.name} ({point.value})")
    for spec in specs:
        module_name, _, factory_name = spec.partition(":")
        if not module_name or not factory_name:
            raise TooltapeUsageError(f"--subject {spec!r}: expected module:factory")
        try:
            factory = getattr(importlib.import_module(module_name), factory_name)
        except (ImportError, AttributeError) as error:
            raise TooltapeUsageError(f"--subject {spec!r}: {error}") from None
        subjects += _from_factory(factory(), f"--subject {spec}")
    _check(subjects, adapter_names())
    return subjects


def check_subject(
    subject: Subject,
    *,
    scenarios: Sequence[str] | None = None,
    tags: Sequence[str] = (),
    dialects: Sequence[str] | None = None,
    cell_timeout: float | None = 5.0,
) -> list[Finding]:
    """Run ``subject`` over bundled scenarios in its dialects; fail on what is worse.

    Each cell is judged against the plan with langchain-core beside it, as in
    ``tooltape matrix``: a cell where the subject is worse than the reference,
    crashes or hangs fails; *better* than the reference does not.

    Args:
        subject: The subject under test.
        scenarios: Bundled scenario names (default: all, or those with ``tags``).
        tags: Only scenarios carrying every one of these tags.
        dialects: A subset of the subject's dialects (default: all of them).
        cell_timeout: Seconds one cell may take before it counts as hanging.

    Returns:
        The findings (empty when the subject holds up everywhere).

    Raises:
        TooltapeAssertionError: Listing each finding with its reason and the command
            that reruns it.
    """
    __tracebackhide__ = True
    from tooltape.cassettes import bundled_scenarios, get_scenario
    from tooltape.harness.name_checks import check_names
    from tooltape.plugin._engine.expectations import Expectations
    from tooltape.plugin._engine.run import run_matrix
    from tooltape.plugin.cli.findings import findings

    _check([subject], ["reference"])
    chosen = list(dialects or subject.dialects)
    check_names(f"dialect of subject {subject.name!r}", chosen, subject.dialects)
    pool = [get_scenario(name) for name in scenarios] if scenarios else bundled_scenarios()
    picked = [s for s in pool if set(tags) <= set(s.tags)]
    if not picked:
        raise TooltapeUsageError(f"no bundled scenario has every tag of {sorted(tags)}")
    cells = run_matrix(
        picked, chosen, [subject.name], Expectations((), "check_subject"),
        cell_timeout=cell_timeout, extra=[as_adapter(subject)],
    )  # fmt: skip
    found = [f for f in findings(cells) if f.subject == subject.name]
    if found:
        lines = [f"{f.scenario} x {f.dialect}: {f.status}: {f.reason}" for f in found]
        raise TooltapeAssertionError(
            f"tooltape: {subject.name} is worse than the reference in {len(found)} of "
            f"{len(cells)} cells:\n  " + "\n  ".join(lines)
        )
    return found
