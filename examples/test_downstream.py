"""What a downstream project writes: stream a quirky provider into ChatOpenAI, check everything."""

from langchain_core.messages import HumanMessage, ToolMessage

from tooltape.cassettes import get_scenario
from tooltape.harness import assert_merge, assert_tool_messages_paired


def test_chatopenai_survives_ids_on_every_chunk(fake_openai, tooltape_snapshot):
    scenario = get_scenario("id_on_every_chunk")  # vLLM/Fireworks shape, two parallel calls
    fake_openai.stream(scenario)
    message = None
    for chunk in fake_openai.chat_model().stream("Weather in Paris and Oslo?"):
        message = chunk if message is None else message + chunk

    assert_merge(message, scenario.plan)  # names and args as planned, one distinct id per call
    results = [
        ToolMessage("mild", tool_call_id=c["id"], name=c["name"]) for c in message.tool_calls
    ]
    assert_tool_messages_paired([HumanMessage("Weather?"), message, *results])
    assert message == tooltape_snapshot
