"""A first tooltape test: a quirky OpenAI stream into ChatOpenAI, checked against the plan.

Run: pytest examples/test_first.py
"""

from tooltape.harness import Plan, PlannedCall, assert_merge

PLAN = Plan(
    calls=[
        PlannedCall("get_weather", {"city": "Paris"}),
        PlannedCall("get_weather", {"city": "Oslo"}),
    ]
)


def test_chatopenai_merges_interleaved_parallel_calls(fake_openai):
    # The fake OpenAI API streams both calls with their fragments interleaved.
    fake_openai.stream(PLAN, quirks=["interleave_calls"])
    message = None
    for chunk in fake_openai.chat_model().stream("Weather in Paris and Oslo?"):
        message = chunk if message is None else message + chunk

    assert_merge(message, PLAN)  # names and args as planned, one distinct id per call
