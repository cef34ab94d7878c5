"""What a failed test reports when tooltape is the cause: tooltape's message, tooltape's frames out.

Two cases, both seen from the test's own exception (setup or call phase):

- A request no recording answered (:class:`~tooltape.cassettes.UnmatchedRequest`) or a
  tooltape usage error is somewhere in what the test raised: chained under the SDK's
  404 (``OpenAIModelNotFoundError from NotFoundError``), wrapped by a framework
  (``raise ... from``), or grouped by a task group. The report leads with tooltape's
  error, and a note names what the code under test raised instead.
- A usage error (:class:`~tooltape.harness.TooltapeUsageError`, a cassette error
  included) is reported without tooltape's own frames, so the traceback ends on the
  line that called tooltape (``--fulltrace`` keeps them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from types import TracebackType

__all__ = ["tooltape_failure"]

_PACKAGES = ("harness", "fake_providers", "plugin", "cassettes")


def tooltape_failure(error: BaseException, *, keep_frames: bool = False) -> BaseException:
    """The exception a test's report should show for ``error`` (``error`` itself, or tooltape's).

    Args:
        error: What the test's setup or call raised.
        keep_frames: Leave tooltape's frames in a usage error's traceback.
    """
    if "tooltape.harness._errors" not in sys.modules:
        return error  # no tooltape error class exists yet, so none was raised
    from tooltape.cassettes import UnmatchedRequest
    from tooltape.harness import TooltapeUsageError

    found = next(
        (e for e in _chain(error) if isinstance(e, UnmatchedRequest | TooltapeUsageError)), None
    )
    if found is None:
        return error
    shown = _shown_with(found)
    if found is not error:
        _note(found, f"the code under test raised {_one_line(error)}")
    elif shown is not None:
        _note(found, f"the code under test first raised {_one_line(shown)}")
    found.__suppress_context__ = True
    found.__cause__ = None
    if isinstance(found, TooltapeUsageError) and not keep_frames:
        found.__traceback__ = _without_tooltape_frames(found.__traceback__)
    return found


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error``, its causes and contexts, and the members of exception groups, once each."""
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)


def _shown_with(error: BaseException) -> BaseException | None:
    """The exception Python would print above ``error`` ("during handling of ...")."""
    if error.__cause__ is not None:
        return error.__cause__
    if error.__context__ is not None and not error.__suppress_context__:
        return error.__context__
    return None


def _one_line(error: BaseException) -> str:
    text = str(error).split("\n", 1)[0]
    text = text if len(text) <= 200 else text[:199] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _note(error: BaseException, text: str) -> None:
    if text not in getattr(error, "__notes__", ()):
        error.add_note(text)


def _package_dirs() -> tuple[str, ...]:
    dirs = []
    for name in _PACKAGES:
        module = sys.modules.get(f"tooltape.{name}")
        for folder in getattr(module, "__path__", ()):
            dirs.append(os.path.join(folder, ""))
    return tuple(dirs)


def _without_tooltape_frames(tb: TracebackType | None) -> TracebackType | None:
    """``tb`` relinked without the frames of tooltape's packages (unchanged if all are)."""
    dirs = _package_dirs()
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    kept = [e for e in entries if not e.tb_frame.f_code.co_filename.startswith(dirs)]
    if not kept:
        return entries[0] if entries else None
    for entry, following in zip(kept, [*kept[1:], None], strict=True):
        entry.tb_next = following
    return kept[0]
