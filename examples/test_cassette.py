"""Replay a recorded stream: the marker installs the cassette for the test.

The cassette is ``cassettes/test_cassette/weather_in_two_cities.yaml`` beside this file
(a copy of the bundled library's ``parallel_interleaved/openai_chat.yaml``). Record your
own once with ``pytest --tooltape-record-mode=once`` and a real API key.
"""

import pytest
from langchain_openai import ChatOpenAI


@pytest.mark.tooltape_cassette("weather_in_two_cities")
def test_chatopenai_replays_two_interleaved_calls():
    model = ChatOpenAI(model="gpt-4o-mini", api_key="sk-not-needed-to-replay")
    message = None
    for chunk in model.stream("Weather in Paris and Oslo?"):
        message = chunk if message is None else message + chunk

    assert [call["args"] for call in message.tool_calls] == [{"city": "Paris"}, {"city": "Oslo"}]
