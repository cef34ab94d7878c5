"""Markers: their registration lines and strict validation of their arguments."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

__all__ = [
    "CONFIG_KEYS",
    "MARKERS",
    "USE_CASSETTE_KWARGS",
    "cassette_marker_kwargs",
    "check_config",
    "scenarios_marker_kwargs",
]

MARKERS = (
    "tooltape_cassette(name=None, *, record_mode=None, block_network=None, "
    "block_subprocess=None, **use_cassette "
    "options): replay (or record) the named cassette for this test; the name defaults to the "
    "test's name; match_on, ignore_body_fields, allow_unplayed, allow_repeats, quirks, seed, "
    "dialect, request_headers and vcrpy's filter_headers, filter_query_parameters, "
    "filter_post_data_parameters, before_record_request and before_record_response are "
    "tooltape.cassettes.use_cassette's.",
    "tooltape_scenarios(names=None, dialects=None, tags=None): parametrize the test's "
    "'tooltape_case' argument over scenario x dialect (ids like 'parallel_interleaved-anthropic').",
)

USE_CASSETTE_KWARGS = (
    "match_on",
    "ignore_body_fields",
    "allow_unplayed",
    "allow_repeats",
    "quirks",
    "seed",
    "dialect",
    "request_headers",
    "filter_headers",
    "filter_query_parameters",
    "filter_post_data_parameters",
    "before_record_request",
    "before_record_response",
)
"""Marker (and ``tooltape_config``) arguments handed to :func:`tooltape.cassettes.use_cassette`."""
CONFIG_KEYS = ("record_mode", "block_network", "block_subprocess", *USE_CASSETTE_KWARGS)
"""What a ``tooltape_config`` fixture may hold (``seed`` is among the cassette options)."""
_CASSETTE_KWARGS = (
    "name",
    "record_mode",
    "block_network",
    "block_subprocess",
    *USE_CASSETTE_KWARGS,
)
_SCENARIO_KWARGS = ("names", "dialects", "tags")


def check_config(config: Mapping[str, Any], item_name: str) -> None:
    """Refuse a ``tooltape_config`` key tooltape does not read, with the closest ones."""
    if set(config) <= set(CONFIG_KEYS):
        return
    from tooltape.harness.name_checks import (
        check_names,  # only on a mistake: the plugin loads light
    )

    check_names(
        "setting",
        sorted(config),
        CONFIG_KEYS,
        error=pytest.UsageError,
        prefix=f"tooltape: the tooltape_config fixture for {item_name}: ",
    )


def _reject(marker: str, item_name: str, problem: str, accepted: tuple[str, ...]) -> None:
    raise pytest.UsageError(
        f"tooltape: @pytest.mark.{marker} on {item_name}: {problem}; "
        f"accepted arguments: {', '.join(accepted)}"
    )


def _check_kwargs(marker: str, mark: pytest.Mark, item_name: str, known: tuple[str, ...]) -> None:
    if set(mark.kwargs) <= set(known):
        return
    from tooltape.harness.name_checks import (
        check_names,  # only on a mistake: the plugin loads light
    )

    check_names(
        "argument",
        sorted(mark.kwargs),
        known,
        error=pytest.UsageError,
        prefix=f"tooltape: @pytest.mark.{marker} on {item_name}: ",
    )


def cassette_marker_kwargs(mark: pytest.Mark, item_name: str) -> dict[str, Any]:
    """Validate ``tooltape_cassette`` and return its arguments by name."""
    if len(mark.args) > 1:
        _reject(
            "tooltape_cassette",
            item_name,
            f"got {len(mark.args)} positional arguments "
            f"{mark.args!r}, expected at most the cassette name",
            _CASSETTE_KWARGS,
        )
    _check_kwargs("tooltape_cassette", mark, item_name, _CASSETTE_KWARGS)
    kwargs = dict(mark.kwargs)
    if mark.args:
        if "name" in kwargs:
            _reject("tooltape_cassette", item_name, "the name is given twice", _CASSETTE_KWARGS)
        kwargs["name"] = mark.args[0]
    if kwargs.get("name") is not None and not isinstance(kwargs["name"], str):
        _reject(
            "tooltape_cassette",
            item_name,
            f"name must be a string, got {type(kwargs['name']).__name__}",
            _CASSETTE_KWARGS,
        )
    return kwargs


def _names(value: Any, what: str, item_name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        _reject(
            "tooltape_scenarios",
            item_name,
            f"{what} must be a string or a list of strings, got {value!r}",
            _SCENARIO_KWARGS,
        )
    return tuple(value)


def scenarios_marker_kwargs(mark: pytest.Mark, item_name: str) -> dict[str, tuple[str, ...] | None]:
    """Validate ``tooltape_scenarios`` and return names, dialects and tags."""
    if mark.args:
        _reject(
            "tooltape_scenarios",
            item_name,
            f"positional arguments {mark.args!r} are not accepted; use names=[...]",
            _SCENARIO_KWARGS,
        )
    _check_kwargs("tooltape_scenarios", mark, item_name, _SCENARIO_KWARGS)
    return {key: _names(mark.kwargs.get(key), key, item_name) for key in _SCENARIO_KWARGS}
