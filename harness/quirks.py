"""Every tool-chunk quirk class of tooltape.harness: the catalogue.

Users name quirks by kind (``stream_plan(plan, ["late_id", {"kind": "split_args",
"pieces": 3}])``); this module is for those who want the classes, as
:mod:`tooltape.fake_providers.quirks` holds the EVENTS and WIRE quirks::

    from tooltape.harness import quirks

    stream_plan(plan, [quirks.LateId(), quirks.SplitArgs(pieces=3)])

What a new quirk is written with (:class:`~tooltape.harness.Quirk`,
:class:`~tooltape.harness.Stage`, :func:`~tooltape.harness.evidence`,
:data:`~tooltape.harness.CAPABILITIES`) stays in :mod:`tooltape.harness`.
"""

from __future__ import annotations

from tooltape.harness._quirks import (
    AsciiEscapes,
    ChangingId,
    ChannelInName,
    CumulativeArgs,
    DuplicateIds,
    EmptyArgs,
    EmptyStringContinuations,
    IdOnEveryChunk,
    IndexOffset,
    InterleaveCalls,
    LateId,
    LateName,
    MalformedArgs,
    MissingId,
    NoIndex,
    NonObjectArgs,
    PackFragments,
    RepeatName,
    SharedIndex,
    SplitArgs,
    SplitInsideEscapes,
    SplitName,
    TruncateArgs,
    WholeArgs,
    WholeCall,
)

# A literal list, so mypy and readers see the names; tests/harness/test_exports.py holds it
# to the registry's classes of tooltape.harness._quirks.
__all__ = [
    "AsciiEscapes",
    "ChangingId",
    "ChannelInName",
    "CumulativeArgs",
    "DuplicateIds",
    "EmptyArgs",
    "EmptyStringContinuations",
    "IdOnEveryChunk",
    "IndexOffset",
    "InterleaveCalls",
    "LateId",
    "LateName",
    "MalformedArgs",
    "MissingId",
    "NoIndex",
    "NonObjectArgs",
    "PackFragments",
    "RepeatName",
    "SharedIndex",
    "SplitArgs",
    "SplitInsideEscapes",
    "SplitName",
    "TruncateArgs",
    "WholeArgs",
    "WholeCall",
]
