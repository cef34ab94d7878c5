"""The compiled shape check answers as the tree walk it replaces, on every dialect's shape."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from tooltape.fake_providers import dialect_names, get_dialect
from tooltape.fake_providers.event_shapes import (
    _compiled,
    _steps,
    _tree,
    _tree_fits,
    shape_problems,
)

SHAPES = {name: tuple(get_dialect(name).event_shape) for name in dialect_names()}
KEYS = sorted({step for shape in SHAPES.values() for p, _ in shape for step in _steps(p)} - {"[]"})

_LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3)
)
PAYLOADS = st.recursive(
    _LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=25,
)


_CHAT = "openai_chat"


@given(
    st.sampled_from(sorted(SHAPES)), st.dictionaries(st.sampled_from(KEYS), PAYLOADS, max_size=5)
)
@example(_CHAT, {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": True}]}}]})
@example(_CHAT, {"choices": [{"index": 0, "delta": {"tool_calls": [{"function": None}]}}]})
@example(_CHAT, {"choices": None})
def test_the_compiled_check_fits_what_the_walk_fits(dialect, payload):
    tree = _tree(SHAPES[dialect])
    assert _compiled(tree)(payload) == _tree_fits(payload, tree)


def test_a_problem_is_still_named_with_its_place():
    shape = get_dialect("openai_chat").event_shape
    bad: dict[str, Any] = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": "0"}]}}]}
    assert shape_problems(bad, shape) == [
        "choices[0].delta.tool_calls[0].index is a string, expected int"
    ]
    assert shape_problems({"choices": []}, list(shape)) == []  # an unhashable shape too


def test_a_tree_too_deep_to_compile_is_walked():
    deep = ".".join(f"k{n}" for n in range(300))
    tree = _tree(((deep, "str"),))
    fits = _compiled(tree)
    assert isinstance(fits, functools.partial)  # Python refuses source nested this deep
    value: Any = 1
    for n in reversed(range(300)):
        value = {f"k{n}": value}
    assert fits(value) is False
    assert fits({"k0": {}}) is True
