"""Scrubbing rules a user adds, the vcrpy way, and the check of their names and types.

The options have vcrpy's names and meaning, so a vcrpy or pytest-recording
user's ``vcr_config`` carries over:

``filter_headers``, ``filter_query_parameters``, ``filter_post_data_parameters``
    Each item a name, or a ``(name, replacement)`` pair: ``None`` removes the
    value (the default), a string replaces it, a callable ``(name, value,
    request)`` returns the value to keep (``None`` removes it). Header names are
    compared case-insensitively; post data parameters are JSON fields at any
    depth and form fields. The value taken out is remembered as a secret.
``before_record_request``, ``before_record_response``
    A callable or a list of them, called with the cleaned
    :class:`~tooltape.cassettes.RecordedRequest` (also before matching) or
    :class:`~tooltape.cassettes.RecordedResponse`, returning it (changed or
    not) or ``None`` to leave the interaction out of the cassette.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tooltape.cassettes._errors import CassetteError
from tooltape.harness.name_checks import check_names

__all__ = [
    "SCRUB_OPTIONS",
    "Replacement",
    "ScrubRules",
    "merge_options",
    "scrub_rules",
]

SCRUB_OPTIONS = (
    "filter_headers",
    "filter_query_parameters",
    "filter_post_data_parameters",
    "before_record_request",
    "before_record_response",
)
"""The user's scrubbing options, by vcrpy's names."""

Replacement = str | Callable[[str, str, Any], Any] | None
Hook = Callable[[Any], Any]


@dataclass(frozen=True)
class ScrubRules:
    """The user's rules, checked."""

    headers: Mapping[str, Replacement] = field(default_factory=dict)
    """Lower-case header name -> replacement."""
    query: Mapping[str, Replacement] = field(default_factory=dict)
    post_data: Mapping[str, Replacement] = field(default_factory=dict)
    before_request: tuple[Hook, ...] = ()
    before_response: tuple[Hook, ...] = ()


def _filters(option: str, items: Any, lower: bool) -> dict[str, Replacement]:
    if isinstance(items, str | bytes) or not isinstance(items, Iterable):
        raise CassetteError(
            f"{option} must be a list of names or (name, replacement) pairs, "
            f"got {type(items).__name__}"
        )
    rules: dict[str, Replacement] = {}
    for item in items:
        name, replacement = (item, None) if isinstance(item, str) else (None, None)
        if isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[0], str):
            name, replacement = item
        ok = replacement is None or isinstance(replacement, str) or callable(replacement)
        if name is None or not ok:
            raise CassetteError(
                f"{option}: each item is a name or a (name, replacement) pair with a string, "
                f"None or a callable replacement; got a {type(item).__name__}"
            )
        rules[name.lower() if lower else name] = replacement
    return rules


def _hooks(option: str, value: Any) -> tuple[Hook, ...]:
    hooks = tuple(value) if isinstance(value, list | tuple) else (value,)
    for hook in hooks:
        if not callable(hook):
            raise CassetteError(
                f"{option} must be a callable or a list of callables, got {type(hook).__name__}"
            )
    return hooks


def scrub_rules(options: Mapping[str, Any]) -> ScrubRules:
    """Check the user's scrubbing options (``None`` values are left out).

    Raises:
        CassetteError: An unknown option (with the closest names), or a malformed one.
    """
    check_names("scrubbing option", options, SCRUB_OPTIONS, error=CassetteError)
    given = {k: v for k, v in options.items() if v is not None}
    return ScrubRules(
        headers=_filters("filter_headers", given.get("filter_headers", ()), lower=True),
        query=_filters("filter_query_parameters", given.get("filter_query_parameters", ()), False),
        post_data=_filters(
            "filter_post_data_parameters", given.get("filter_post_data_parameters", ()), False
        ),
        before_request=_hooks("before_record_request", given.get("before_record_request", ())),
        before_response=_hooks("before_record_response", given.get("before_record_response", ())),
    )


def merge_options(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Scrubbing options of several layers (a conftest's, a marker's) added together."""
    merged: dict[str, list[Any]] = {}
    for layer in layers:
        for name in SCRUB_OPTIONS:
            value = layer.get(name)
            if value is None:
                continue
            many = isinstance(value, list | tuple)
            merged.setdefault(name, []).extend(value if many else [value])
    return dict(merged)
