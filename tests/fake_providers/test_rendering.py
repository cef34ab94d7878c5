"""``Dialect.rendering``: the wire ``render`` gives, read as ``parse`` reads its bytes.

The matrix renders and reads every cell through it; where the frames are plain
``data:`` lines it reads the events' own JSON instead of decoding the bytes. On
every bundled scenario in every dialect and profile the two readings must agree.
"""

from __future__ import annotations

import pytest

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.harness import TooltapeUsageError


@pytest.mark.parametrize("dialect_name", dialect_names(profiles=True))
def test_a_rendering_reads_as_its_bytes_parse(dialect_name: str) -> None:
    dialect = get_dialect(dialect_name)
    read_from_events = 0
    for scenario in bundled_scenarios():
        try:
            wire = dialect.render(scenario.plan, scenario.quirks, scenario.seed)
        except TooltapeUsageError:
            with pytest.raises(TooltapeUsageError):
                dialect.rendering(scenario.plan, scenario.quirks, scenario.seed)
            continue
        rendering = dialect.rendering(scenario.plan, scenario.quirks, scenario.seed)
        assert rendering.wire == wire, scenario.name
        assert repr(rendering.deltas()) == repr(dialect.parse(wire.body)), scenario.name
        read_from_events += rendering.payloads is not None
    if dialect_name in ("openai_chat", "vllm", "groq"):  # plain data lines, read from events
        assert read_from_events > 20
