"""The dialect contract: every registered dialect declares everything tooltape reads from it.

``DECLARATIONS`` is the one list of what a dialect must declare; each entry is a
check that returns ``None`` or what is missing. Adding a declaration to
:class:`~tooltape.fake_providers.Dialect` means adding its check here, and then
every dialect in ``dialect_names()`` must have it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pytest

from tooltape.fake_providers import Dialect, IdShape, dialect_names, get_dialect
from tooltape.fake_providers._body import BodyProblem
from tooltape.fake_providers._wire import ProviderError
from tooltape.fake_providers.dialects import BUNDLED_DIALECTS
from tooltape.harness import CAPABILITIES, Plan, PlannedCall, Quirk, Stage, quirk_kinds
from tooltape.harness._errors import TooltapeUsageError
from tooltape.harness._quirks import _REGISTRY

Check = Callable[[Dialect], str | None]

TOOL_CHUNK_KINDS = frozenset(k for k in quirk_kinds() if _REGISTRY[k].stage < Stage.EVENTS)
PLAN = Plan(calls=(PlannedCall(name="get_weather", args={"city": "Paris"}, id="call_a"),))


def _name(dialect: Dialect) -> str | None:
    names = {cls.name: cls for cls in BUNDLED_DIALECTS}
    if type(dialect).__dict__.get("name") is None:
        return "no `name` of its own"
    if names.get(dialect.name) is not type(dialect):
        return f"`name` {dialect.name!r} is not its line in BUNDLED_DIALECTS"
    return None


def _path(dialect: Dialect) -> str | None:
    path = getattr(dialect, "path", None)
    return None if isinstance(path, str) and path.startswith("/") else f"`path` is {path!r}"


def _framing(dialect: Dialect) -> str | None:
    media = {"sse": "text/event-stream", "ndjson": "ndjson", "eventstream": "eventstream"}
    if dialect.framing not in media:
        return f"`framing` is {dialect.framing!r}"
    if media[dialect.framing] not in dialect.media_type:
        return f"`media_type` {dialect.media_type!r} does not match framing {dialect.framing}"
    return None


def _event_shape(dialect: Dialect) -> str | None:
    return None if dialect.event_shape else "no `event_shape` (the fields that carry calls)"


def _capabilities(dialect: Dialect) -> str | None:
    unknown = sorted((dialect.carries | set(dialect.lacks)) - set(CAPABILITIES))
    if unknown:
        return f"`carries` or `lacks` names capabilities that do not exist: {unknown}"
    if not dialect.expresses <= TOOL_CHUNK_KINDS:
        return f"`expresses` holds {sorted(dialect.expresses - TOOL_CHUNK_KINDS)}"
    reasons = {**dialect.lacks, **dialect.cannot_express}
    blank = sorted(name for name, why in reasons.items() if not why.strip())
    return f"`lacks` or `cannot_express` gives no reason for {blank}" if blank else None


def _event_quirks(dialect: Dialect) -> str | None:
    if not isinstance(dialect.event_quirks, tuple):
        return "`event_quirks` is not a tuple of quirk classes"
    for cls in dialect.event_quirks:
        if not (isinstance(cls, type) and issubclass(cls, Quirk)) or cls.stage is not Stage.EVENTS:
            return f"`event_quirks` holds {cls!r}, not an EVENTS quirk class"
    overlap = sorted(set(dialect.cannot_express) & set(_own_event_kinds(dialect)))
    return f"`cannot_express` refuses its own EVENTS quirks {overlap}" if overlap else None


def _own_event_kinds(dialect: Dialect) -> list[str]:
    from tooltape.fake_providers._expressible import event_quirk_kinds

    return event_quirk_kinds(dialect.event_quirks)


def _body_error(dialect: Dialect) -> str | None:
    error = dialect.body_error(BodyProblem("syntax", "Expecting value"))
    if not isinstance(error, ProviderError) or not 400 <= error.status < 500:
        return f"`body_error` answers a broken body with {error!r}"
    return None


def _renders_and_parses(dialect: Dialect) -> str | None:
    wire = dialect.render(PLAN)
    names = [c.get("name") for delta in dialect.parse(wire.body) for c in delta if c.get("name")]
    return None if "get_weather" in "".join(names) else f"parse(render(plan)) names {names}"


def _call_id_format(dialect: Dialect) -> str | None:
    shape = dialect.call_id_format
    if not isinstance(shape, IdShape):
        return f"`call_id_format` is {shape!r}, not an IdShape (how the provider mints ids)"
    numbered = PLAN.model_copy(update={"calls": (PlannedCall(name="get_weather", args={}),)})
    minted = dialect.planned_calls(numbered, seed=7)[0]["id"]
    if minted == "call_0" or minted != dialect.planned_calls(numbered, seed=7)[0]["id"]:
        return f"a numbered id is sent as {minted!r}, not minted deterministically"
    return None


class _Unheard(Quirk):
    """A tool-chunk quirk that declares no ``needs`` (``kind`` has no default: never registered)."""

    kind: str
    stage: ClassVar[Stage] = Stage.LATE


DECLARATIONS: dict[str, Check] = {
    "name": _name,
    "path": _path,
    "framing and media_type": _framing,
    "event_shape": _event_shape,
    "carries / lacks (the wire's capabilities)": _capabilities,
    "event_quirks": _event_quirks,
    "body_error": _body_error,
    "call_id_format": _call_id_format,
    "render and parse agree": _renders_and_parses,
}
"""What every dialect must declare; add the check of a new declaration here."""


@pytest.mark.parametrize("declaration", sorted(DECLARATIONS))
@pytest.mark.parametrize("name", dialect_names())
def test_every_dialect_declares(name: str, declaration: str) -> None:
    problem = DECLARATIONS[declaration](get_dialect(name))
    assert problem is None, f"dialect {name}: {declaration}: {problem}"


def test_the_registry_lists_exactly_the_bundled_dialects() -> None:
    assert dialect_names() == sorted(cls.name for cls in BUNDLED_DIALECTS)


@pytest.mark.parametrize("name", dialect_names())
def test_a_quirk_that_declares_no_needs_is_refused(name: str) -> None:
    """The default refuses: a tool-chunk quirk renders nowhere until it says what it needs."""
    message = rf"quirk _unheard_of cannot be rendered by dialect {name}: the quirk declares no"
    with pytest.raises(TooltapeUsageError, match=message):
        get_dialect(name).check_quirks([_Unheard(kind="_unheard_of")])


def test_a_dialect_cannot_both_carry_and_lack_a_capability() -> None:
    with pytest.raises(TypeError, match=r"both carries and lacks \['packing'\]"):

        class _Confused(Dialect):
            carries = frozenset({"packing"})
            lacks: ClassVar[dict[str, str]] = {"packing": "why not"}


def test_a_dialect_names_only_capabilities_that_exist() -> None:
    with pytest.raises(TypeError, match=r"unknown capability 'pack' \(did you mean 'packing'\?\)"):

        class _Typo(Dialect):
            carries = frozenset({"pack"})


def test_expresses_is_derived_from_carries() -> None:
    with pytest.raises(TypeError, match="sets `expresses`, which is derived now"):

        class _Old(Dialect):
            expresses = frozenset({"no_index"})  # type: ignore[assignment]


@pytest.mark.parametrize("name", dialect_names())
def test_a_dialect_expresses_exactly_the_kinds_whose_needs_it_carries(name: str) -> None:
    dialect = get_dialect(name)
    for kind in TOOL_CHUNK_KINDS:
        needs = _REGISTRY[kind].needs
        assert needs is not None, f"{kind} declares no needs"
        assert (kind in dialect.expresses) == (needs <= dialect.carries), (name, kind)


def test_register_dialect_refuses_a_taken_name_and_a_missing_one() -> None:
    from tooltape.fake_providers import register_dialect

    with pytest.raises(TypeError, match="'openai_chat' is registered twice"):
        register_dialect(type("Again", (BUNDLED_DIALECTS[0],), {"name": "openai_chat"}))
    with pytest.raises(TypeError, match="Nameless has no `name` of its own"):
        register_dialect(type("Nameless", (BUNDLED_DIALECTS[0],), {}))
