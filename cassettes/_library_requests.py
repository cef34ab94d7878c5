"""The request each dialect's library cassette records: a user turn offering the plan's tools.

The dialect declares what a real client sends (:meth:`Dialect.sample_request`:
model, messages, tool declarations, the stream switch); this module derives the
tools from the plan, their schemas from the planned arguments, so a reader of a
cassette sees which tools the recorded calls answer.
"""

from __future__ import annotations

from typing import Any

from tooltape.fake_providers import Dialect
from tooltape.harness import Plan, Scenario
from tooltape.harness.json_text import loads

__all__ = ["request_for"]

Schema = dict[str, Any]
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}


def _schema(args: dict[str, Any]) -> Schema:
    properties = {
        key: {"type": _JSON_TYPES.get(type(value), "object")} for key, value in args.items()
    }
    return {"type": "object", "properties": properties}


def _tools(plan: Plan) -> list[tuple[str, Schema]]:
    tools: dict[str, Schema] = {}
    for call in plan.calls:
        tools.setdefault(call.name, _schema(call.args))
    return list(tools.items())


def request_for(dialect: Dialect, scenario: Scenario) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The path, query and JSON body of the request that records ``scenario`` in ``dialect``."""
    request = dialect.sample_request(scenario.description, _tools(scenario.plan))
    return request.path, dict(request.query), loads(request.body)
