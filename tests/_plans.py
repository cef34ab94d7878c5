"""Plans shared by the per-dialect tests: one call, two, text and thinking around them,
non-ASCII arguments and empty ones, with ids in the dialect's own shape."""

from __future__ import annotations

from tooltape.harness import Plan, PlannedCall


def sample_plans(id_prefix: str) -> dict[str, Plan]:
    """The sample plans, their calls' ids ``id_prefix`` + ``A``, ``B``, ``C``, ``D``.

    ``two_calls``' calls are ``get_weather`` (Paris, 3 days) and ``get_time``.
    """
    weather = PlannedCall(name="get_weather", args={"city": "Paris", "days": 3}, id=f"{id_prefix}A")
    time = PlannedCall(name="get_time", args={"tz": "Europe/Paris"}, id=f"{id_prefix}B")
    return {
        "single": Plan(calls=[weather]),
        "two_calls": Plan(calls=[weather, time]),
        "text_then_call": Plan(text_before="Let me check the weather for you.", calls=[weather]),
        "thinking_text_call": Plan(
            reasoning="The user wants the weather in Paris.",
            text_before="Checking.",
            calls=[weather, time],
            text_after="Back soon.",
        ),
        "non_ascii": Plan(
            calls=[{"name": "say", "args": {"text": "Zürich 北京 😀"}, "id": f"{id_prefix}C"}]
        ),
        "empty_args": Plan(calls=[{"name": "ping_server", "args": {}, "id": f"{id_prefix}D"}]),
    }
