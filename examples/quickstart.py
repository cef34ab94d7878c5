"""tooltape in one screen: a quirky stream, what langchain-core makes of it, and a pairing check.

Run: python examples/quickstart.py
"""

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from tooltape.harness import (
    Plan,
    draw_lanes,
    find_pairing_problems,
    reference_merge,
    stream_plan,
)

plan = Plan(
    calls=[
        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_A"},
        {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_B"},
    ]
)

for quirks in ([], ["interleave_calls"], ["repeat_name"], ["truncate_args"], ["no_index"]):
    stream = stream_plan(plan, quirks, seed=1)
    result = reference_merge(stream)
    print(f"== quirks: {', '.join(quirks) or 'none'}")
    if quirks == ["interleave_calls"]:
        print(draw_lanes(stream))
    for call in result.calls():
        print(f"   call    {call['name']}({call['args']}) id={call['id']}")
    for bad in result.invalid_tool_calls:
        print(f"   invalid {bad['name']!r} args={bad['args']!r}")
    for hazard in result.hazards:
        print(f"   hazard  {hazard}")

merged = reference_merge(stream_plan(plan))
history = [
    HumanMessage("weather in Paris, and 1 + 2?"),
    AIMessage("", tool_calls=merged.tool_calls),
    ToolMessage("18°C", tool_call_id="call_A", name="get_weather"),
]
print("== pairing check after the tool loop dropped one result")
for problem in find_pairing_problems(history):
    print(f"   {problem}")
