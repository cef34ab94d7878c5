"""Quirks: the named ways real providers distort a plan on the wire.

Each quirk is a small frozen model with a ``kind`` (so scenario files can name
it), the public evidence for it (``cites``) and whether a correct
merger still recovers the plan exactly (``lossless``). The engine in
:mod:`tooltape.harness._engine` applies quirks stage by stage; a quirk only
touches the representation of its stage:

``TEXT``   the argument text of each call
``SPLIT``  where the argument text is cut into pieces (one splitter at most)
``PIECES`` the pieces themselves
``FIELDS`` which fragment carries the name and the id
``ORDER``  the order of fragments across calls
``INDEX``  the index put on each fragment
``PACK``   how fragments are grouped into streamed messages
``LATE``   last touches on the finished fragments
``EVENTS`` provider events (applied by the dialect, see tooltape.fake_providers)
``WIRE``   framing bytes (applied by the dialect, see tooltape.fake_providers)

Declaring a quirk: one class, its kind and class attributes given as class keywords,
its evidence in the :func:`evidence` decorator::

    @evidence("late-id translators", "vllm-project/vllm/pull/23522")
    class LateId(Quirk, kind="late_id", stage=Stage.FIELDS, priority=4, needs={"id_fragments"}):
        '''Send the id only on the last chunk of a call, not on the first.'''

``needs`` names the wire capabilities (:data:`CAPABILITIES`) a dialect must carry to
render a tool-chunk quirk; each dialect declares the ones it carries, so a new quirk
is rendered, or refused with the dialect's reason, without touching any dialect.

Extending the registry: a quirk registers when its class is defined. Packages
that define quirks outside the harness list a module in the ``tooltape.quirks``
entry-point group (:data:`QUIRK_ENTRY_POINT_GROUP`); :func:`parse_quirk` and
:func:`quirk_kinds` import those modules the first time they need a kind they do
not know, so ``parse_quirk("ping_events")`` works without importing
``tooltape.fake_providers`` first. tooltape itself registers
``fake_providers = "tooltape.fake_providers.quirks"``.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Callable
from enum import IntEnum
from importlib.metadata import entry_points
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness.name_checks import check_names, unknown_name_message

if TYPE_CHECKING:
    from tooltape.harness._engine import Draft

# The quirk classes defined below are listed once, by the catalogue tooltape.harness.quirks.
__all__ = [
    "CAPABILITIES",
    "QUIRK_ENTRY_POINT_GROUP",
    "Quirk",
    "Stage",
    "evidence",
    "load_quirk_modules",
    "parse_quirk",
    "quirk_kinds",
]


class Stage(IntEnum):
    """The order in which the engine applies quirks."""

    TEXT = 1
    SPLIT = 2
    PIECES = 3
    FIELDS = 4
    ORDER = 5
    INDEX = 6
    PACK = 7
    LATE = 8
    EVENTS = 9
    """Provider-event quirks, applied by a dialect while it renders events."""
    WIRE = 10
    """Byte-level framing quirks, applied by a dialect after it frames events."""


QUIRK_ENTRY_POINT_GROUP = "tooltape.quirks"
"""Entry points naming modules that define quirks; imported when a kind is first looked up."""

_REGISTRY: dict[str, type[Quirk]] = {}
_LOADED: list[bool] = []  # non-empty once the entry-point modules were imported
_BY_NAME: dict[str, Quirk] = {}
"""A kind name's quirk, built once: quirks are frozen and a kind's class never changes."""


CAPABILITIES: dict[str, str] = {
    "escaped_text": "non-ASCII argument text may travel as \\uXXXX escapes",
    "args_text": "arguments travel as JSON text, which may be broken or not an object",
    "arg_pieces": "a call's argument text may arrive in several pieces",
    "interleaving": "the pieces of parallel calls may interleave",
    "name_fragments": "a call's name may ride on any of its chunks: cut, late or repeated",
    "id_fragments": "a call's id may ride on any of its chunks: late, repeated or changed",
    "optional_id": "a call may arrive without an id",
    "optional_index": "a chunk may arrive without an index",
    "index_field": "the index is a field of its own, not the call's position",
    "packing": "one streamed message may carry several chunks",
    "idle_messages": "a stream shape check_merger draws; the fakes do not render it yet",
    "respelled_args": "an argument spelling check_merger draws; the fakes do not render it yet",
}
"""What a wire can carry, by name: a tool-chunk quirk ``needs`` some, a dialect ``carries`` some."""


_NO_KIND: Any = None
"""The ``kind`` of an abstract base such as ``_Splitter``: none, so it never registers."""


class Quirk(BaseModel):
    """Base of every quirk: a subclass gives its ``kind`` and class attributes as class keywords.

    ``class LateId(Quirk, kind="late_id", stage=Stage.FIELDS, priority=4, needs=...)``;
    any class attribute below can be given that way, and :func:`evidence` sets ``cites``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = _NO_KIND
    """The name scenario files and :func:`parse_quirk` use (``None`` on abstract bases)."""
    stage: ClassVar[Stage]
    cites: ClassVar[tuple[str, ...]] = ()
    """Who emits this shape, then public evidence (links)."""
    lossless: ClassVar[bool] = True
    """True when langchain-core still merges the stream back to the plan."""
    priority: ClassVar[int] = 0
    """Order among quirks of the same stage (lower first), so any combination is well defined."""
    needs: ClassVar[frozenset[str] | None] = None
    """The :data:`CAPABILITIES` a dialect's wire must carry to render this tool-chunk quirk
    (``None``: undeclared, so every dialect refuses it)."""

    def __init_subclass__(cls, *, kind: str | None = None, **class_vars: Any) -> None:
        super().__init_subclass__()
        unknown = sorted(set(class_vars) - cls.__class_vars__)
        if unknown:
            raise TypeError(f"{cls.__name__}: {unknown} are not class attributes of a quirk")
        if "needs" in class_vars:
            class_vars["needs"] = frozenset(class_vars["needs"])
            check_names(
                "capability",
                class_vars["needs"],
                CAPABILITIES,
                error=TypeError,
                prefix=f"{cls.__name__}: ",
            )
        for name, value in class_vars.items():
            setattr(cls, name, value)
        if kind is not None:  # the field pydantic builds next: Literal[kind], kind by default
            cls.__annotations__["kind"] = Literal[kind]
            cls.kind = kind

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__()
        kind = cls.model_fields["kind"].default
        if not isinstance(kind, str):
            return  # an abstract intermediate class such as _Splitter
        known = _REGISTRY.get(kind)
        # The same class again is its module imported again (pytester's in-process runs
        # drop modules from sys.modules): the new class replaces the old one.
        if known is not None and (known.__module__, known.__qualname__) != (
            cls.__module__,
            cls.__qualname__,
        ):
            raise TypeError(f"quirk kind {kind!r} is registered twice")
        _REGISTRY[kind] = cls

    def apply(self, draft: Draft, rng: Random) -> None:
        """Change the draft at this quirk's stage (EVENTS and WIRE quirks leave it alone)."""
        if self.stage < Stage.EVENTS:  # pragma: no cover - every tool-chunk quirk overrides
            raise NotImplementedError(f"quirk {self.kind} does not implement apply()")

    def __str__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.model_dump(exclude={"kind"}).items())
        return f"{self.kind}({params})" if params else self.kind


_GITHUB_REF = re.compile(r"([\w.-]+/[\w.-]+)(?:#(\d+)|(/(?:pull|discussions)/\d+))")

Q = TypeVar("Q", bound=type[Quirk])


def evidence(who: str, *links: str) -> Callable[[Q], Q]:
    """Class decorator: set a quirk's ``cites`` to who sends the shape, then the public links.

    ``links`` are separated by white space, in one string or several. A link may
    be written short: ``owner/repo#N`` (a GitHub issue) or ``owner/repo/pull/N``
    (a pull request or discussion) stands for its ``https://github.com/`` address;
    other links are given whole.
    """
    cites = (who, *(_expand(link) for text in links for link in text.split()))

    def decorate(cls: Q) -> Q:
        cls.cites = cites
        return cls

    return decorate


def _expand(link: str) -> str:
    match = _GITHUB_REF.fullmatch(link)
    if match is None:
        return link
    repo, issue, other = match.groups()
    return f"https://github.com/{repo}" + (f"/issues/{issue}" if issue else other)


def load_quirk_modules() -> None:
    """Import every module of the ``tooltape.quirks`` entry-point group (once per process)."""
    if _LOADED:
        return
    _LOADED.append(True)  # before importing: those modules may call parse_quirk themselves
    for entry in sorted(entry_points(group=QUIRK_ENTRY_POINT_GROUP), key=lambda e: e.name):
        entry.load()


def quirk_kinds() -> list[str]:
    """The names of every registered quirk kind (entry-point modules included), sorted."""
    load_quirk_modules()
    return sorted(_REGISTRY)


def parse_quirk(value: Quirk | str | dict[str, Any]) -> Quirk:
    """Build a quirk from a quirk, its kind name, or a ``{"kind": ..., **params}`` mapping."""
    if isinstance(value, Quirk):
        return value
    if isinstance(value, str):
        named = _BY_NAME.get(value)
        if named is None:
            named = _BY_NAME[value] = parse_quirk({"kind": value})
        return named
    if not isinstance(value, dict) or "kind" not in value:
        raise TooltapeUsageError(
            f"a quirk must be a Quirk, a kind name or a mapping with 'kind'; got {value!r}"
        )
    kind = value["kind"]
    if kind not in _REGISTRY:
        load_quirk_modules()
    if kind not in _REGISTRY:
        raise TooltapeUsageError(unknown_name_message("quirk kind", str(kind), quirk_kinds()))
    return _REGISTRY[kind].model_validate(value)


# --- TEXT: the argument text of each call ------------------------------------------------


@evidence(
    "OpenAI and most Python servers",
    "https://github.com/langchain-ai/langchain/blob/master/libs/core/langchain_core/utils/json.py",
)
class AsciiEscapes(Quirk, kind="ascii_escapes", stage=Stage.TEXT, needs={"escaped_text"}):
    r"""Serialise non-ASCII characters as ``\uXXXX`` escapes (``json.dumps``'s default)."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Re-encode every call's arguments with ``ensure_ascii=True``."""
        draft.texts = [
            json.dumps(call.args, ensure_ascii=True) if text else text
            for call, text in zip(draft.plan.calls, draft.texts, strict=True)
        ]


@evidence(
    "Anthropic, Bedrock, vLLM no-arg tools",
    "langchain-ai/langchain/pull/23915 microsoft/autogen/pull/6979 vllm-project/vllm#32152",
)
class EmptyArgs(Quirk, kind="empty_args", stage=Stage.TEXT, needs=()):
    """Send no argument text at all for calls whose args are ``{}``."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Blank the text of argument-less calls."""
        draft.texts = [
            "" if not call.args else text
            for call, text in zip(draft.plan.calls, draft.texts, strict=True)
        ]


class _ReplaceArgs(Quirk, stage=Stage.TEXT, lossless=False, needs={"args_text"}):
    """A quirk that puts other text on the wire in place of one call's arguments."""

    call: int = 0
    """Which planned call (negative counts from the end)."""

    def replacement(self) -> str:  # pragma: no cover - abstract
        """The text put on the wire."""
        raise NotImplementedError

    def apply(self, draft: Draft, rng: Random) -> None:
        """Overwrite the chosen call's text."""
        draft.texts[draft.call_position(self.call)] = self.replacement()


@evidence(
    "vLLM parsers, Anthropic fine-grained streaming",
    "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/fine-grained-tool-streaming",
    "vllm-project/vllm#32152",
)
class NonObjectArgs(_ReplaceArgs, kind="non_object_args"):
    """Replace one call's arguments by JSON that is not an object."""

    text: str = "[1, 2]"
    """The JSON put on the wire instead of the object."""

    def replacement(self) -> str:
        """The text put on the wire."""
        return self.text


_MALFORMED = {
    "undefined": '{"a": undefined}',
    "extra_brace": '{"a": 1}}',
    "whitespace": "  ",
    "concatenated": '{"q": "A"}{"q": "B"}',
}


@evidence(
    "vLLM parsers, Anthropic fine-grained, GPT-5 re-sends",
    "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/fine-grained-tool-streaming",
    "vllm-project/vllm#32152 open-webui/open-webui/pull/22235",
)
class MalformedArgs(_ReplaceArgs, kind="malformed_args"):
    """Replace one call's arguments by malformed JSON."""

    variant: Literal["undefined", "extra_brace", "whitespace", "concatenated"] = "undefined"
    """Which malformation: ``undefined`` values, an extra ``}``, whitespace only, or two
    objects back to back (langchain-core keeps the first and drops the second)."""

    def replacement(self) -> str:
        """The text put on the wire."""
        return _MALFORMED[self.variant]


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_LITERAL = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _cut_inside(text: str, at: Literal["string", "literal"]) -> int:
    """A position strictly inside the first string value (or literal) of ``text``."""
    if at == "literal":
        for match in _LITERAL.finditer(text):
            if match.end() - match.start() >= 2 and not _inside_string(text, match.start()):
                return match.start() + (match.end() - match.start()) // 2
    for match in _STRING.finditer(text):
        if text[match.end() :].lstrip().startswith(":"):
            continue  # a key, not a value
        return match.start() + 1 + (match.end() - match.start() - 2) // 2
    return max(1, len(text) // 2)


def _inside_string(text: str, position: int) -> bool:
    return any(m.start() < position < m.end() for m in _STRING.finditer(text))


@evidence(
    "every provider",
    "2389-research/tracker#544 mrwogu/factory-droid-openai/pull/33",
    "openai/openai-openapi/pull/248",
    "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/fine-grained-tool-streaming",
)
class TruncateArgs(
    Quirk, kind="truncate_args", stage=Stage.TEXT, lossless=False, needs={"args_text", "arg_pieces"}
):
    """End the stream inside one call's arguments, with no terminal event.

    langchain-core's ``parse_partial_json`` closes the open string or literal and
    reports a *valid* call with the truncated value. Calls after the cut never
    reach the wire.
    """

    call: int = -1
    """Which planned call is cut (negative counts from the end)."""
    at: Literal["string", "literal"] = "string"
    """Cut inside a string value (``"Par``) or inside a number or literal (``12`` -> ``1``)."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Cut the chosen call's text and drop every later call."""
        position = draft.call_position(self.call)
        text = draft.texts[position]
        if not text:
            text = "{}"
        draft.texts[position] = text[: _cut_inside(text, self.at)]
        draft.truncate_after(position)


# --- SPLIT: where the argument text is cut ----------------------------------------------


class _Splitter(Quirk, stage=Stage.SPLIT):
    """A quirk that decides the cut points of every call's argument text."""

    header_carries_args: ClassVar[bool] = False

    def cut_points(self, text: str, rng: Random) -> list[int]:  # pragma: no cover - abstract
        """Sorted cut positions strictly inside ``text``."""
        raise NotImplementedError

    def apply(self, draft: Draft, rng: Random) -> None:
        """Cut every call's text into pieces."""
        draft.header_carries_args = self.header_carries_args
        draft.pieces = [_cut(text, self.cut_points(text, rng)) for text in draft.texts]


def _cut(text: str, points: list[int]) -> list[str]:
    if not text:
        return []
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _token_like_cuts(text: str, rng: Random, max_size: int) -> list[int]:
    points: list[int] = []
    position = 0
    while True:
        position += rng.randint(1, max_size)
        if position >= len(text):
            return points
        points.append(position)


@evidence("every streaming provider", "https://platform.openai.com/docs/guides/function-calling")
class SplitArgs(_Splitter, kind="split_args", needs={"arg_pieces"}):
    """Fragment the argument text at arbitrary points (the default shape of every stream).

    With ``pieces`` unset the cuts look like a tokenizer's: 1 to ``max_size``
    characters a piece. With ``pieces=n`` the text is cut into ``n`` pieces at
    random points, anywhere, including inside keys, values and escapes.
    """

    pieces: int | None = Field(default=None, ge=1)
    """How many pieces each call's text is cut into (``None``: token-like sizes)."""
    max_size: int = Field(default=8, ge=1)
    """Largest piece when ``pieces`` is unset."""

    def cut_points(self, text: str, rng: Random) -> list[int]:
        """Token-like or ``pieces``-many cut points."""
        if self.pieces is None:
            return _token_like_cuts(text, rng, self.max_size)
        if len(text) < 2:
            return []
        count = min(self.pieces - 1, len(text) - 1)
        return sorted(rng.sample(range(1, len(text)), count))


@evidence(
    "any provider that escapes non-ASCII",
    "https://github.com/langchain-ai/langchain/blob/master/libs/core/langchain_core/utils/json.py",
)
class SplitInsideEscapes(_Splitter, kind="split_inside_escapes", needs={"arg_pieces"}):
    r"""Cut inside every ``\uXXXX`` escape and between surrogate halves (https://github.com/langchain-ai/langchain/blob/master/libs/core/langchain_core/utils/json.py).

    Combine with :class:`AsciiEscapes` so non-ASCII text travels as escapes. A
    byte-level split of a multi-byte UTF-8 character is a framing quirk of the
    dialects (https://github.com/danielmiessler/Fabric/pull/2203), since tool-call
    chunks carry ``str``, not bytes.
    """

    def cut_points(self, text: str, rng: Random) -> list[int]:
        """Token-like cuts plus one inside each escape."""
        points = set(_token_like_cuts(text, rng, 8))
        for match in re.finditer(r"\\u[0-9a-fA-F]{4}", text):
            points.add(match.start() + rng.randint(1, 5))
        return sorted(p for p in points if 0 < p < len(text))


@evidence(
    "Anthropic no-arg tools, vLLM", "langchain-ai/langchain/pull/23915 vllm-project/vllm#32152"
)
class WholeArgs(_Splitter, kind="whole_args", needs=()):
    """Send each call's arguments in one piece after the header (e.g. ``{}`` at once)."""

    def cut_points(self, text: str, rng: Random) -> list[int]:
        """No cuts."""
        return []


@evidence(
    "Mistral, Groq, Ollama, xAI, Gemini",
    "microsoft/semantic-kernel#6316 vercel/ai/pull/1653 openclaw/Tachikoma/pull/34",
    "https://docs.revspace.net/directory/ext/x-ai/guides/function-calling",
    "langchain-ai/langchain-google/pull/1811",
)
class WholeCall(_Splitter, kind="whole_call", header_carries_args=True, needs=()):
    """Send each call whole in one chunk: id, name and all arguments together."""

    def cut_points(self, text: str, rng: Random) -> list[int]:
        """No cuts."""
        return []


# --- PIECES -----------------------------------------------------------------------------


@evidence(
    "DashScope native, vLLM hermes flush, crewAI async",
    "https://github.com/langchain-ai/langchain-community vllm-project/vllm#10395",
)
class CumulativeArgs(
    Quirk,
    kind="cumulative_args",
    stage=Stage.PIECES,
    lossless=False,
    needs={"args_text", "arg_pieces"},
):
    """Each chunk repeats all arguments so far instead of the new part."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Replace each piece by the prefix that ends with it."""
        cumulative = []
        for pieces in draft.pieces:
            so_far, out = "", []
            for piece in pieces:
                so_far += piece
                out.append(so_far)
            cumulative.append(out)
        draft.pieces = cumulative


# --- FIELDS: who carries the name and the id --------------------------------------------


def _ensure_fragments(fragments: list[Any], count: int) -> None:
    """Pad a call's fragments with empty-args continuations up to ``count``."""
    while len(fragments) < count:
        last = fragments[-1]
        fragments.append(dataclasses.replace(last, id=None, name=None, args=""))


def _only_on_last(fragments: list[Any], **field: str | None) -> None:
    """Send one field (``name=...`` or ``id=...``) on a call's last fragment only."""
    _ensure_fragments(fragments, 2)
    fragments[:] = [dataclasses.replace(f, **dict.fromkeys(field)) for f in fragments]
    fragments[-1] = dataclasses.replace(fragments[-1], **field)


@evidence("llama.cpp before #13800, OpenAI grammar permits it", "ggml-org/llama.cpp/pull/13800")
class SplitName(Quirk, kind="split_name", stage=Stage.FIELDS, priority=1, needs={"name_fragments"}):
    """Spread the name over the first ``parts`` chunks of a call."""

    parts: int = Field(default=2, ge=2)
    """How many chunks the name is spread over."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Cut each name and hand the parts to consecutive fragments."""
        for fragments in draft.calls:
            name = draft.plan.calls[fragments[0].call].name
            count = min(self.parts, len(name))
            _ensure_fragments(fragments, count)
            cuts = [0, *sorted(rng.sample(range(1, len(name)), count - 1)), len(name)]
            for n in range(count):
                fragments[n] = dataclasses.replace(fragments[n], name=name[cuts[n] : cuts[n + 1]])


@evidence(
    "vLLM parsers, llama.cpp, MiniMax via NIM",
    "NousResearch/hermes-agent#8259 vllm-project/vllm#13192 ggml-org/llama.cpp/pull/12379",
    "open-webui/open-webui/pull/22235",
)
class RepeatName(
    Quirk, kind="repeat_name", stage=Stage.FIELDS, lossless=False, needs={"name_fragments"}
):
    """Repeat the full name on every chunk of a call.

    langchain-core concatenates names, so ``get_weather`` becomes
    ``get_weatherget_weather`` when the call spans two chunks.
    """

    def apply(self, draft: Draft, rng: Random) -> None:
        """Put the name on every fragment."""
        for fragments in draft.calls:
            name = draft.plan.calls[fragments[0].call].name
            fragments[:] = [dataclasses.replace(f, name=name) for f in fragments]


@evidence("translators that emit the name late", "assistant-ui/assistant-ui/pull/7063")
class LateName(Quirk, kind="late_name", stage=Stage.FIELDS, priority=2, needs={"name_fragments"}):
    """Send the name only on the last chunk of a call, after the arguments."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Move each name to the call's last fragment."""
        for fragments in draft.calls:
            _only_on_last(fragments, name=draft.plan.calls[fragments[0].call].name)


@evidence(
    "Fireworks, vLLM, DashScope, LM Studio",
    "BerriAI/litellm#8990 InternLM/lmdeploy#3412",
    "spring-ai-alibaba/spring-ai-extensions/pull/266 lmstudio-ai/lmstudio-bug-tracker#649",
)
class IdOnEveryChunk(
    Quirk, kind="id_on_every_chunk", stage=Stage.FIELDS, priority=3, needs={"id_fragments"}
):
    """Repeat the call id on every chunk of a call."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Put the id on every fragment."""
        for fragments in draft.calls:
            call_id = fragments[0].id
            fragments[:] = [dataclasses.replace(f, id=call_id) for f in fragments]


@evidence("late-id translators", "vllm-project/vllm/pull/23522")
class LateId(Quirk, kind="late_id", stage=Stage.FIELDS, priority=4, needs={"id_fragments"}):
    """Send the id only on the last chunk of a call, not on the first."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Move each id to the call's last fragment."""
        for fragments in draft.calls:
            _only_on_last(fragments, id=fragments[0].id)


@evidence("vLLM harmony parser", "vllm-project/vllm/pull/23522")
class ChangingId(
    Quirk,
    kind="changing_id",
    stage=Stage.FIELDS,
    priority=5,
    lossless=False,
    needs={"id_fragments"},
):
    """Change the call id halfway through a call (vLLM's harmony parser).

    langchain-core refuses to merge chunks whose ids differ, so one call becomes
    two: the first with the head of the arguments, the second nameless.
    """

    suffix: str = "_b"
    """Appended to the id to make the second id."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Give the second half of each call's fragments a new id."""
        for fragments in draft.calls:
            _ensure_fragments(fragments, 2)
            call_id = next((f.id for f in fragments if f.id), None) or "call"
            half = len(fragments) // 2
            for n in range(half, len(fragments)):
                if n == half or fragments[n].id:
                    fragments[n] = dataclasses.replace(fragments[n], id=call_id + self.suffix)


@evidence("vLLM, SGLang index>0, crewAI #7534", "vllm-project/vllm#9693")
class MissingId(
    Quirk, kind="missing_id", stage=Stage.FIELDS, priority=7, lossless=False, needs={"optional_id"}
):
    """Send no id at all (SGLang, client rebuilds).

    langchain-core builds calls with ``id=None``; ToolNode cannot pair them.
    """

    def apply(self, draft: Draft, rng: Random) -> None:
        """Remove every id."""
        for fragments in draft.calls:
            fragments[:] = [dataclasses.replace(f, id=None) for f in fragments]


@evidence("Ollama compat, bridges that reuse ids", "router-for-me/CLIProxyAPI#2798")
class DuplicateIds(
    Quirk, kind="duplicate_ids", stage=Stage.FIELDS, priority=6, lossless=False, needs=()
):
    """Give every call the first call's id (the provider reports duplicate ids)."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Overwrite every id with the first call's."""
        first = draft.plan.calls[0].id if draft.plan.calls else None
        for fragments in draft.calls:
            fragments[:] = [dataclasses.replace(f, id=first) if f.id else f for f in fragments]


@evidence("vLLM gpt-oss (harmony) tool parser, streaming", "vllm-project/vllm#32587")
class ChannelInName(
    Quirk, kind="channel_in_name", stage=Stage.FIELDS, priority=8, lossless=False, needs=()
):
    """Leak a harmony special token into each call's name: ``query_dataset<|channel|>commentary``.

    The merged call names a tool that does not exist; an agent answers it with an
    unknown-tool error instead of running ``query_dataset``.
    """

    suffix: str = "<|channel|>commentary"
    """What follows the name on the wire."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Append the suffix to the last fragment of each call that carries a name."""
        for fragments in draft.calls:
            named = [n for n, f in enumerate(fragments) if f.name]
            if named:
                last = fragments[named[-1]]
                fragments[named[-1]] = dataclasses.replace(last, name=f"{last.name}{self.suffix}")


# --- ORDER ------------------------------------------------------------------------------


@evidence("Bedrock, vLLM, Qwen-Agent captures", "BerriAI/litellm/pull/34230")
class InterleaveCalls(Quirk, kind="interleave_calls", stage=Stage.ORDER, needs={"interleaving"}):
    """Interleave the chunks of parallel calls, each call keeping its own order."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Draw the next fragment from a random open call until all are sent.

        Calls still start in plan order (a call opens only after the previous
        one has), as providers that interleave do; the merged order stays the plan's.
        """
        queues = [list(reversed(fragments)) for fragments in draft.calls if fragments]
        order, started, previous = [], 0, -1
        while any(queues):
            open_calls = [n for n in range(started) if queues[n]]
            if started < len(queues):
                open_calls.append(started)
            choices = [n for n in open_calls if n != previous] or open_calls
            n = rng.choice(choices)
            started = max(started, n + 1)
            order.append(queues[n].pop())
            previous = n
        draft.order = order


# --- INDEX ------------------------------------------------------------------------------


@evidence(
    "Gemini compat, Ollama <0.4.7, LM Studio",
    "THU-MAIC/OpenMAIC#1556 open-webui/computer#224 ollama/ollama#7881",
    "lmstudio-ai/lmstudio-bug-tracker#830 vllm-project/vllm#54701",
)
class NoIndex(Quirk, kind="no_index", stage=Stage.INDEX, lossless=False, needs={"optional_index"}):
    """Send no index at all.

    langchain-core never merges index-less chunks: a split call becomes a partial
    call plus invalid fragments.
    """

    def apply(self, draft: Draft, rng: Random) -> None:
        """Remove every index."""
        draft.order = [dataclasses.replace(f, index=None) for f in draft.order]


@evidence("Anthropic after text/thinking, Bedrock", "BerriAI/litellm#11407")
class IndexOffset(Quirk, kind="index_offset", stage=Stage.INDEX, needs={"index_field"}):
    """Start the indexes at ``by`` instead of 0 (Anthropic blocks after text)."""

    by: int = Field(default=1, ge=1)
    """Added to every index."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Shift every index."""
        draft.order = [
            dataclasses.replace(f, index=None if f.index is None else f.index + self.by)
            for f in draft.order
        ]


@evidence(
    "Ollama compat, DeepSeek, Grok via OCI",
    "langchain-ai/langchainjs/pull/8433 BerriAI/litellm#21331 agno-agi/agno#8879",
    "su-kaka/gcli2api/pull/406 oracle/langchain-oracle/pull/108",
)
class SharedIndex(
    Quirk, kind="shared_index", stage=Stage.INDEX, lossless=False, needs={"index_field"}
):
    """Give every call the same index.

    With distinct ids on every chunk langchain-core still separates the calls;
    with id-less continuations their arguments glue onto the first call.
    """

    def apply(self, draft: Draft, rng: Random) -> None:
        """Put the first fragment's index on every fragment."""
        first = draft.order[0].index if draft.order else 0
        draft.order = [
            dataclasses.replace(f, index=first) if f.index is not None else f for f in draft.order
        ]


# --- PACK -------------------------------------------------------------------------------


@evidence(
    "Bedrock and gateway batching",
    "https://github.com/langchain-ai/langchain langchain-ai/langchain/pull/35281",
)
class PackFragments(
    Quirk, kind="pack_fragments", stage=Stage.PACK, lossless=False, needs={"packing"}
):
    """Put ``size`` consecutive chunks into one streamed message.

    Chunks of one index inside one message merge, except in the *first*
    message: langchain-core never merges the first message's own chunks with
    each other, so packing there changes the result.
    """

    size: int = Field(default=2, ge=2)
    """Chunks per message."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Group consecutive fragments."""
        order = draft.order
        draft.messages = [order[n : n + self.size] for n in range(0, len(order), self.size)]


# --- LATE -------------------------------------------------------------------------------


@evidence(
    "Fireworks, LM Studio, vLLM, lmdeploy",
    "BerriAI/litellm#8990 lmstudio-ai/lmstudio-bug-tracker#649 InternLM/lmdeploy#3412",
)
class EmptyStringContinuations(
    Quirk,
    kind="empty_string_continuations",
    stage=Stage.LATE,
    needs={"name_fragments", "id_fragments"},
):
    """Send ``""`` instead of leaving out id and name on continuation chunks."""

    def apply(self, draft: Draft, rng: Random) -> None:
        """Turn absent ids and names into empty strings."""
        draft.messages = [
            [
                dataclasses.replace(
                    f, id="" if f.id is None else f.id, name="" if f.name is None else f.name
                )
                for f in message
            ]
            for message in draft.messages
        ]


# Quirks of what streams carry besides the calls, in a module of their own; imported here
# so parse_quirk knows their kinds wherever quirks are.
from tooltape.harness import _stream_shapes  # noqa: E402, F401
