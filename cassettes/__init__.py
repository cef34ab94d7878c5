"""tooltape.cassettes: the bundled scenario library and the code that indexes it."""

from tooltape.cassettes._library import SCENARIOS_FILE, bundled_scenarios, get_scenario

__all__ = ["SCENARIOS_FILE", "bundled_scenarios", "get_scenario"]
