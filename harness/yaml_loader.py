"""A safe YAML loader that bounds merge keys (``<<: *name``) while it builds the data.

Aliases share one object, so they cost nothing to build; what they expand to is
measured afterwards, in linear time, by :mod:`tooltape.harness.yaml_expansion`. A
merge key instead *copies* the merged mapping's pairs into the new mapping, so
chained merges (each level merging the one before) build data quadratic or
worse in the text: 449 KB of text took 73 s and 2.7 GB before any check ran.
This loader counts every pair the merges produce, and every pair of every
mapping it builds, as it builds them, and stops with :class:`YamlTooLarge`
once the count passes the same bound the alias guard uses (about four times
the text, plus a million).

Shared by tooltape's packages, not user API.
"""

from __future__ import annotations

from typing import Any

import yaml

from tooltape.harness.yaml_expansion import expansion_limit

try:  # the C parser is only faster; the constructor, which merges, is Python either way
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - libyaml is missing on some platforms
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

__all__ = ["BoundedSafeLoader", "YamlTooLarge"]


class YamlTooLarge(yaml.YAMLError):
    """The merge keys of a YAML text expand it far beyond its own size."""

    def __init__(self, pairs: int, limit: int, length: int) -> None:
        super().__init__(
            f"its merge keys (<<: *name) expand it to more than {limit:,} mapping pairs from "
            f"{length:,} characters of text (stopped after {pairs:,}; a merge-key bomb?)"
        )
        self.pairs = pairs
        self.limit = limit


class BoundedSafeLoader(_SafeLoader):
    """``yaml.CSafeLoader`` (or ``SafeLoader``) that refuses merge-key expansion bombs."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        text = stream if isinstance(stream, str) else ""  # tooltape's readers pass text
        self._length = len(text)
        self.pair_limit = expansion_limit(text)
        """At most this many mapping pairs are built or copied by merges."""
        self.pairs = 0
        """Mapping pairs built or copied so far."""

    def flatten_mapping(self, node: Any) -> None:
        """Merge as PyYAML does, counting the pairs; called for each merged mapping too."""
        super().flatten_mapping(node)
        self.pairs += len(node.value)
        if self.pairs > self.pair_limit:
            raise YamlTooLarge(self.pairs, self.pair_limit, self._length)
