"""How big loaded YAML really is once its aliases are expanded: the alias-bomb guard.

YAML aliases (``*name``) share one object, so a kilobyte of text can stand for
billions of nodes ("billion laughs"). Anything that walks the data (a repr, a
validator, a header loop) then walks every copy. Loaders call
:func:`expanded_size` right after parsing and refuse data far bigger than its text.

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from typing import Any

__all__ = ["expanded_size", "expansion_limit"]


def expansion_limit(text: str) -> int:
    """Without aliases a file is a tree no bigger than its text; allow anchors some slack."""
    return 4 * len(text) + 1_000_000


def expanded_size(data: Any, *, limit: int) -> int | None:
    """Nodes plus characters of ``data`` with every shared object counted each time it is used.

    Linear in the distinct objects (each size is computed once and reused), and
    iterative, so deep nesting is safe. ``None`` as soon as the size passes ``limit``.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = _children(node)
        if not done and children:
            if key in open_nodes:
                return None  # the node contains itself: it expands without end
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        open_nodes.discard(key)
        size = 1 + (len(node) if isinstance(node, str | bytes) else 0)
        size += sum(sizes.get(id(child), 0) for child in children)
        if size > limit:
            return None
        sizes[key] = size
    return sizes.get(id(data), 0)


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [*node.keys(), *node.values()]
    if isinstance(node, list):
        return node
    return []
