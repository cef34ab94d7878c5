"""What a failed test reports when tooltape is the cause: tooltape's message, tooltape's frames out.

Three cases, all seen from the test's own exception (setup or call phase):

- A request no recording answered (:class:`~tooltape.cassettes.UnmatchedRequest`) or a
  tooltape usage error is somewhere in what the test raised: chained under the SDK's
  404 (``OpenAIModelNotFoundError from NotFoundError``), wrapped by a framework
  (``raise ... from``), or grouped by a task group. The report leads with tooltape's
  error, and a note names what the code under test raised instead.
- A usage error (:class:`~tooltape.harness.TooltapeUsageError`, a cassette error
  included) is reported without tooltape's own frames, so the traceback ends on the
  line that called tooltape (``--fulltrace`` keeps them).
- vcrpy refused to play back a request for a host the test's fake providers serve
  (vcrpy patches httpx's transports, ``MockTransport`` included, which is where
  respx hands tooltape the requests of httpx clients): the report says so and how to
  leave those hosts to tooltape, instead of vcrpy's "Can't play back this request".
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from tooltape.harness import TooltapeUsageError

__all__ = ["tooltape_failure"]

_PACKAGES = ("harness", "fake_providers", "plugin", "cassettes")
_VCRPY_REFUSAL = ("vcr.errors", "CannotOverwriteExistingCassetteException")


def tooltape_failure(
    error: BaseException,
    *,
    keep_frames: bool = False,
    serves_host: Callable[[str], bool] | None = None,
) -> BaseException:
    """The exception a test's report should show for ``error`` (``error`` itself, or tooltape's).

    Args:
        error: What the test's setup or call raised.
        keep_frames: Leave tooltape's frames in a usage error's traceback.
        serves_host: Whether the test's fake providers serve a URL's host (when it has some).
    """
    if "tooltape.harness._errors" not in sys.modules:
        return error  # no tooltape error class exists yet, so none was raised
    from tooltape.cassettes import UnmatchedRequest
    from tooltape.harness import TooltapeUsageError

    found = next(
        (e for e in _chain(error) if isinstance(e, UnmatchedRequest | TooltapeUsageError)), None
    )
    if found is None and serves_host is not None:
        found = _vcrpy_took(error, serves_host)
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


def _vcrpy_took(
    error: BaseException, serves_host: Callable[[str], bool]
) -> TooltapeUsageError | None:
    """The usage error to show when vcrpy refused a request the fake providers would answer."""
    from tooltape.harness import TooltapeUsageError

    for refusal in _chain(error):
        kind = type(refusal)
        if (kind.__module__, kind.__name__) != _VCRPY_REFUSAL:
            continue
        request = getattr(refusal, "failed_request", None)
        uri = str(getattr(request, "uri", ""))
        if not uri or not serves_host(uri):
            continue
        host = urlsplit(uri).hostname
        usage = TooltapeUsageError(
            f"tooltape: a vcrpy cassette took the {getattr(request, 'method', '')} request for"
            f" {uri}, which a fake provider of this test serves. vcrpy patches httpx's"
            " transports, the one respx hands tooltape an httpx client's requests through"
            " included, so a vcrpy cassette answers (or refuses) them first, opened before or"
            " after the fakes. Leave the host to tooltape with the cassette's option"
            f" ignore_hosts=[{host!r}] (vcr.use_cassette(..., ignore_hosts=[...]), or"
            " pytest-recording's vcr_config fixture). httpx2 clients (the openai and anthropic"
            " SDKs' own) are answered by tooltape either way."
        )
        usage.__cause__ = refusal
        return usage
    return None


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
