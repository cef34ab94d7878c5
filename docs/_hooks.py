"""mkdocs hooks (``hooks:`` in mkdocs.yml): the generated pages, and docstring roles as links.

``on_files`` adds three pages built at build time from tooltape's own registries, so
they cannot drift from the code:

- ``quirks.md``: every registered quirk kind (:func:`tooltape.harness.quirk_kinds`)
  with its docstring, stage, whether a correct merger recovers the plan, which
  dialects can express it (each dialect's own check) and its public evidence;
- ``dialects.md``: every dialect and profile, and what each can express;
- ``subjects.md``: the subjects ``tooltape matrix`` runs.

``on_page_content`` turns the Sphinx roles the docstrings are written with
(``:class:`Plan```) into cross-references to the API pages, and plain code where
the target has no page.
"""

from __future__ import annotations

import html
import importlib
import inspect
import re
from collections.abc import Iterable
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from tooltape.fake_providers import Dialect, dialect_names, get_dialect, profile_table
from tooltape.harness import Quirk, Stage, TooltapeUsageError, parse_quirk, quirk_kinds
from tooltape.plugin._engine.subjects import adapters
from tooltape.plugin.cli.legend import subject_key

GENERATED_NOTE = (
    "!!! note\n    This page is generated when the site is built (`docs/_hooks.py`) from {what}.\n"
)

STAGE_MEANING = {
    Stage.TEXT: "the argument text of each call",
    Stage.SPLIT: "where the argument text is cut into pieces",
    Stage.PIECES: "the pieces themselves",
    Stage.FIELDS: "which fragment carries the name and the id",
    Stage.ORDER: "the order of fragments across calls",
    Stage.INDEX: "the index put on each fragment",
    Stage.PACK: "how fragments are grouped into streamed messages",
    Stage.LATE: "last touches on the finished fragments",
    Stage.EVENTS: "provider events, rendered by the dialects that declare them",
    Stage.WIRE: "framing bytes, applied by every dialect",
}


# --- the registries ------------------------------------------------------------------


def quirk_classes() -> dict[str, type[Quirk]]:
    """Every registered quirk class by kind, checked against :func:`quirk_kinds`."""
    kinds = quirk_kinds()  # imports the entry-point modules, which register their kinds
    found: dict[str, type[Quirk]] = {}
    pending: list[type[Quirk]] = [Quirk]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        kind = cls.model_fields["kind"].default
        if isinstance(kind, str):
            found[kind] = cls
    if sorted(found) != kinds:
        raise RuntimeError(f"quirk classes and kinds disagree: {sorted(set(found) ^ set(kinds))}")
    return dict(sorted(found.items()))


def sample(kind: str, cls: type[Quirk]) -> Quirk:
    """A quirk of ``kind``, its parameters at their defaults (required ones left unset)."""
    if any(field.is_required() for name, field in cls.model_fields.items() if name != "kind"):
        return cls.model_construct()  # only its kind and stage are read (CallIdFormat's style)
    return parse_quirk(kind)


def refusal(dialect: Dialect, quirk: Quirk) -> str | None:
    """Why ``dialect`` refuses ``quirk`` (its own check's message), or ``None``."""
    try:
        dialect.check_quirks([quirk])
    except TooltapeUsageError as refused:
        return str(refused).split(": ", 1)[-1]
    return None


def expressibility(classes: dict[str, type[Quirk]]) -> dict[str, dict[str, str | None]]:
    """For each dialect and profile, each kind: ``None`` when rendered, else the reason."""
    return {
        name: {kind: refusal(get_dialect(name), sample(kind, cls)) for kind, cls in classes.items()}
        for name in dialect_names(profiles=True)
    }


# --- Markdown pieces -------------------------------------------------------------------


CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)


def md_text(text: str) -> str:
    """Text as Markdown shows it: ``<``, ``>`` and ``&`` escaped outside code spans.

    Docstrings and descriptions say ``functions.<name>:<n>``; outside backticks
    Markdown would take ``<name>`` for an HTML tag and drop it.
    """
    out, end = [], 0
    for match in CODE_SPAN.finditer(text):
        out += [html.escape(text[end : match.start()], quote=False), match.group(0)]
        end = match.end()
    return "".join([*out, html.escape(text[end:], quote=False)])


def docstring(obj: Any) -> str:
    """The object's docstring, dedented and escaped for Markdown, or an empty string."""
    return md_text(inspect.cleandoc(obj.__doc__ or ""))


def summary(obj: Any) -> str:
    """The first paragraph of the object's docstring, on one line (not escaped)."""
    return " ".join(inspect.cleandoc(obj.__doc__ or "").split("\n\n")[0].split())


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence."""
    match = re.match(r"(.+?\.)(\s|$)", text)
    return match.group(1) if match else text


def api_link(cls: type) -> str:
    """The class name, linked to its API entry where it has one."""
    module = cls.__module__
    public = (
        "tooltape.harness.quirks"
        if module.startswith("tooltape.harness")
        else "tooltape.fake_providers.quirks"
    )
    if cls.__name__ not in getattr(importlib.import_module(public), "__all__", ()):
        return f"`{cls.__name__}`"  # not public (a kind only the merge fuzzer draws): no entry
    return f"[`{cls.__name__}`][{public}.{cls.__name__}]"


GITHUB = re.compile(r"https://github\.com/([^/]+/[^/]+)/(?:issues|pull|discussions)/(\d+)")
SHORT_ISSUE = re.compile(r"\b([\w.-]+/[\w.-]+) ?#(\d+)\b")


def link_label(url: str) -> str:
    """A short label for an evidence URL: ``owner/repo#N`` for GitHub threads."""
    if match := GITHUB.match(url):
        return f"{match.group(1)}#{match.group(2)}"
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if parts.netloc == "github.com":
        segments = path.strip("/").split("/")
        repo, tail = "/".join(segments[:2]), segments[-1]
        return f"{repo}: {tail}" if len(segments) > 2 else repo
    tail = path.rsplit("/", 1)[-1]
    return f"{parts.netloc}: {tail}{'#' + parts.fragment if parts.fragment else ''}".rstrip(": ")


def cite(text: str) -> str:
    """One entry of a quirk's ``cites``: a link, or text with ``owner/repo#N`` linked."""
    if text.startswith(("https://", "http://")):
        return f"[{link_label(text)}]({text})"
    escaped = html.escape(text, quote=False)
    return SHORT_ISSUE.sub(
        lambda m: f"[{m.group(0)}](https://github.com/{m.group(1)}/issues/{m.group(2)})", escaped
    )


def kind_links(kinds: Iterable[str]) -> str:
    """Kinds as links to their entries in the quirk catalogue."""
    return ", ".join(f"[`{kind}`](quirks.md#{kind})" for kind in kinds) or "none"


def dialect_links(names: Iterable[str]) -> str:
    """Dialect and profile names as links to their entries on the dialects page."""
    return ", ".join(f"[`{name}`](dialects.md#{name})" for name in names) or "none"


def cell(text: str) -> str:
    """Text safe in a Markdown table cell: one line, escaped, ``|`` escaped."""
    return md_text(" ".join(text.split())).replace("|", "\\|")


# --- the pages -------------------------------------------------------------------------


def quirks_page() -> str:
    """The quirk catalogue."""
    classes = quirk_classes()
    table = expressibility(classes)
    every = set(table)
    lines = [
        "# Quirks",
        "",
        GENERATED_NOTE.format(
            what="the quirk registry (`tooltape.harness.quirk_kinds()`) and each dialect's check"
        ),
        "A quirk is a named way a real provider distorts a planned stream on the wire. Name",
        'one by kind (`quirks=["interleave_calls"]`, or `{"kind": "split_args", ...}` with',
        "parameters); the [library page](library.md) shows how. A *lossless* quirk leaves",
        "a stream a correct merger turns back into the plan; a lossy one loses or invents",
        "data on purpose. Each entry says which dialects and profiles can render it (the",
        "others refuse it with a reason, listed on the [dialects page](dialects.md)) and",
        "the public evidence that real providers send this shape.",
        "",
        "The tool-chunk quirks (stages `TEXT` to `LATE`) shape the plan's fragments; the",
        "lanes they make are drawn on the [behaviour page](behaviour.md#lanes).",
        "",
        "| kind | stage | lossless | rendered by |",
        "| --- | --- | --- | --- |",
    ]
    for kind, cls in sorted(classes.items(), key=lambda kv: (kv[1].stage, kv[0])):
        rendered = {name for name in every if table[name][kind] is None}
        count = "all" if rendered == every else f"{len(rendered)} of {len(every)}"
        lossless = "yes" if cls.lossless else "no"
        lines.append(f"| [`{kind}`](#{kind}) | `{cls.stage.name}` | {lossless} | {count} |")
    for stage in Stage:
        members = {kind: cls for kind, cls in classes.items() if cls.stage is stage}
        if not members:
            continue
        lines += ["", f"## {stage.name}: {STAGE_MEANING[stage]}", ""]
        for kind, cls in members.items():
            rendered = {name for name in every if table[name][kind] is None}
            by = dialect_links(sorted(rendered))
            if rendered == every:
                by = "every dialect and profile"
            params = [
                f"`{name}={field.default!r}`" if not field.is_required() else f"`{name}` (required)"
                for name, field in cls.model_fields.items()
                if name != "kind"
            ]
            who = [c for c in cls.cites if not c.startswith(("https://", "http://"))]
            links = [c for c in cls.cites if c.startswith(("https://", "http://"))]
            lines += [
                f"### `{kind}` {{#{kind}}}",
                "",
                docstring(cls),
                "",
                f"- **class**: {api_link(cls)}"
                + (f"; parameters: {', '.join(params)}" if params else ""),
                f"- **lossless**: {'yes' if cls.lossless else 'no'}",
                f"- **rendered by**: {by}",
            ]
            if who:
                lines.append(f"- **seen in**: {'; '.join(cite(c) for c in who)}")
            if links:
                lines.append(f"- **evidence**: {', '.join(cite(c) for c in links)}")
            lines.append("")
    return "\n".join(lines)


class Profile(NamedTuple):
    """One row of :func:`~tooltape.fake_providers.profile_table`, by name."""

    base: str
    quirks: tuple[str, ...]
    description: str


def dialects_page() -> str:
    """Every dialect and profile, and what each can express."""
    classes = quirk_classes()
    table = expressibility(classes)
    lines = [
        "# Dialects",
        "",
        GENERATED_NOTE.format(
            what="the dialect registry (`tooltape.fake_providers.dialect_names()`) and each "
            "dialect's own check of every quirk kind"
        ),
        "A dialect is one provider API's wire: its events, framing, parser and request",
        "rules. A profile is an OpenAI-compatible server: a base dialect plus the quirks",
        "that server always shows. `get_dialect(name)` returns either. A quirk a dialect",
        "cannot say is refused with the reason given here; `WIRE` quirks (framing) apply",
        "to every dialect and are not listed. The full entries are on the",
        "[quirks page](quirks.md).",
        "",
        "| name | base | what it is |",
        "| --- | --- | --- |",
    ]
    profiles = {name: Profile(base, kinds, about) for name, base, kinds, about in profile_table()}
    for name in dialect_names(profiles=True):
        dialect = get_dialect(name)
        base = f"`{profiles[name].base}`" if name in profiles else "(a dialect)"
        about = profiles[name].description if name in profiles else summary(type(dialect))
        lines.append(f"| [`{name}`](#{name}) | {base} | {cell(first_sentence(about))} |")
    for name in dialect_names(profiles=True):
        dialect = get_dialect(name)
        verdicts = table[name]
        said = [k for k, why in verdicts.items() if why is None]
        chunk = [k for k in said if classes[k].stage < Stage.EVENTS]
        events = [k for k in said if classes[k].stage is Stage.EVENTS]
        lines += ["", f"## `{name}` {{#{name}}}", ""]
        if name in profiles:
            row = profiles[name]
            lines += [
                cell(row.description),
                "",
                f"- **base dialect**: [`{row.base}`](#{row.base})",
                f"- **always applies**: {kind_links(row.quirks)}",
            ]
        else:
            lines += [cell(summary(type(dialect))), ""]
            lines.append(f"- **class**: `{type(dialect).__module__}.{type(dialect).__name__}`")
        lines += [
            f"- **wire**: {dialect.framing} (`{dialect.media_type}`) at `{dialect.path}`",
            f"- **tool-chunk quirks it can say**: {kind_links(chunk)}",
            f"- **EVENTS quirks it renders**: {kind_links(events)}",
        ]
        refused = {
            k: why
            for k, why in verdicts.items()
            if why is not None and classes[k].stage < Stage.EVENTS
        }
        if refused:
            lines += ["", "| refused tool-chunk quirk | why |", "| --- | --- |"]
            lines += [f"| [`{k}`](quirks.md#{k}) | {cell(why)} |" for k, why in refused.items()]
    return "\n".join(lines) + "\n"


def subjects_page() -> str:
    """The subjects ``tooltape matrix`` runs."""
    lines = [
        "# Subjects",
        "",
        GENERATED_NOTE.format(
            what="the subjects the dialects declare (`tooltape.plugin._engine.subjects.adapters()`)"
        ),
        "A subject is a consumer of streamed tool calls that `tooltape matrix` judges in",
        "every cell it can read: against the plan, with langchain-core's merge (the",
        "`reference` subject) beside it. Profiles run through their base dialect's",
        "subjects. A subject whose package is not installed is skipped with its install",
        "line. Bring your own with `--subject module:factory`, the `tooltape.subjects`",
        "entry points or `check_subject` ([the command line](cli.md#matrix-subjects)).",
        "",
        "| subject | key | dialects | how it streams | install |",
        "| --- | --- | --- | --- | --- |",
        "| `reference` | R | all | langchain-core's merge of what the dialect's LangChain "
        "adapter yields | (always there) |",
    ]
    rows: dict[str, list[Any]] = {}  # a subject's rows, one per dialect it declares
    for adapter in adapters():
        rows.setdefault(adapter.name, []).append(adapter)
    for name, each in rows.items():
        dialects = [dialect for adapter in each for dialect in adapter.dialects]
        ways = dict.fromkeys(a.description.split(": ", 1)[-1] for a in each if a.description)
        lines.append(
            f"| `{name}` | {subject_key(name)} | {dialect_links(dialects)} "
            f"| {cell('; '.join(ways))} | `{each[0].install_line}` |"
        )
    return "\n".join(lines) + "\n"


PAGES = {"quirks.md": quirks_page, "dialects.md": dialects_page, "subjects.md": subjects_page}


# --- the hooks -------------------------------------------------------------------------


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages."""
    for name, build in PAGES.items():
        files.append(File.generated(config, name, content=build()))
    return files


ROLE = re.compile(
    r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj):<code>(~?)\.?([\w.]+?)(\(\))?</code>"
)


def on_page_content(html_text: str, page: Page, **_: Any) -> str:
    """Sphinx roles (``:class:`Plan```) as optional cross-references to the API pages."""
    src = page.file.src_uri
    home = (
        "tooltape." + src.removeprefix("api/").removesuffix(".md") if src.startswith("api/") else ""
    )

    def ref(match: re.Match[str]) -> str:
        short, target, call = match.group(1), match.group(2), match.group(3) or ""
        title = target.rsplit(".", 1)[-1] if short else target
        identifier = target if target.startswith("tooltape.") or not home else f"{home}.{target}"
        return f'<autoref optional identifier="{identifier}"><code>{title}{call}</code></autoref>'

    return ROLE.sub(ref, html_text)
