"""Run one adapter over many quirky streams: every scenario x dialect is its own test."""

import pytest


@pytest.mark.tooltape_scenarios(tags=["ids", "names"], dialects=["openai_chat"])
def test_chatopenai_matches_langchain_core(tooltape_case):
    message = None
    for chunk in tooltape_case.chat_model().stream("hi"):
        message = chunk if message is None else message + chunk
    tooltape_case.assert_merge(message)  # what langchain-core makes of the same bytes
