"""``tooltape serve``: a real fake provider on 127.0.0.1, for clients in any language.

The server is :func:`tooltape.fake_providers.serve_in_thread` running a
:class:`~tooltape.fake_providers.FakeProviderApp` (or a cassette player in its
router's place). Each request is logged on one line: method, path, status and
the validation result (the dialect's real 400 text when the history is
broken). Turns come from ``--scenario`` (every request gets it), ``--script``
(a YAML or JSON list played in order, ``--repeat`` to cycle it) or
``--cassette``. It runs until Ctrl-C, or ``--max-requests N`` / ``--once``.

Built to stay up: the request log keeps the last ``--log-requests`` requests
with at most ``--log-body-bytes`` of each body; headers not whole within
``--header-timeout`` close the connection and headers over ``--max-header-bytes``
get a 431, a body not whole within ``--body-timeout`` gets the provider's 408 and
one over ``--max-body-bytes`` its 413; malformed bodies get the provider's 400; a
client that reads nothing of its response for ``--write-timeout`` seconds is
reset. Other clients are unaffected. The provider holds the played turns the log
keeps, no more, so memory stays flat however many requests it answers.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from tooltape.harness import TooltapeUsageError
from tooltape.harness.json_text import loads
from tooltape.plugin.cli._limit_options import limit_option

__all__ = ["serve"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
_SERVER_MATCH_ON = ("method", "path", "query")
"""A served cassette matches without the host: the recorded host is not the server's."""


def _log(line: str) -> None:
    click.echo(f"{time.strftime('%H:%M:%S')} {line}")


# --- the script --------------------------------------------------------------------------


def load_script(path: Path) -> list[Any]:
    """Read a turn script: a YAML/JSON list (or ``{turns: [...]}``) of turns.

    A turn is a scenario name; ``{scenario: NAME, quirks: [...], seed: N}``;
    ``{plan: {...}, quirks: [...], seed: N}``; or ``{error: STATUS, body: {...}}``.

    Raises:
        TooltapeUsageError: Unreadable, not YAML/JSON, or not a list of turns.
    """
    from tooltape.cassettes.yaml_text import load_yaml
    from tooltape.harness.user_files import read_text_file

    text = read_text_file(path, what="script")
    document = load_yaml(text, path, what="script")  # bombs, deep nesting: one line
    from tooltape.harness.bounded_reprs import bounded

    turns = document.get("turns") if isinstance(document, dict) else document
    if not isinstance(turns, list) or not turns:
        raise TooltapeUsageError(f"{path}: expected a non-empty list of turns (or 'turns: [...]')")
    for number, turn in enumerate(turns):
        if not isinstance(turn, str | dict) or (
            isinstance(turn, dict) and not {"scenario", "plan", "error"} & set(turn)
        ):
            raise TooltapeUsageError(
                f"{path}: turn {number}: expected a scenario name or a mapping with "
                f"'scenario', 'plan' or 'error', got {bounded(turn)}"
            )
    return turns


def _queue(provider: Any, turn: Any) -> None:
    """Queue one script turn on a provider (rendering it now, so errors show at start)."""
    from tooltape.cassettes import get_scenario
    from tooltape.harness import Plan

    if isinstance(turn, str):
        provider.stream(get_scenario(turn))
        return
    if "error" in turn:
        status = turn["error"]
        if isinstance(status, str) and status.isdigit() and len(status) == 3:
            status = int(status)
        if type(status) is not int or not 400 <= status <= 599:
            raise TooltapeUsageError(
                f"error: expected an HTTP error status (400-599), got {_shown(status)}"
            )
        provider.error(status, turn.get("body"))
        return
    quirks = turn.get("quirks", ())
    seed = turn.get("seed")
    if "scenario" in turn:
        provider.stream(get_scenario(turn["scenario"]), quirks, seed)
    else:
        provider.stream(Plan.model_validate(turn["plan"]), quirks, seed)


class _Script:
    """The turns every provider plays, re-queued when ``repeat`` and the script ran out."""

    def __init__(self, turns: Sequence[Any], repeat: bool, source: str = "--scenario") -> None:
        self.turns = list(turns)
        self.repeat = repeat
        self.source = source
        self.lock = threading.Lock()

    def load(self, provider: Any) -> None:
        for number, turn in enumerate(self.turns):
            try:
                _queue(provider, turn)
            except (TooltapeUsageError, ValueError, TypeError, RecursionError) as error:
                raise TooltapeUsageError(
                    f"{self.source}: turn {number}: {_turn_problem(error)}"
                ) from None

    def refill(self, providers: Sequence[Any]) -> None:
        if not self.repeat:
            return
        with self.lock:
            for provider in providers:
                if provider.played == provider.scripted:
                    self.load(provider)


def _shown(value: Any) -> str:
    from tooltape.harness.bounded_reprs import bounded

    return bounded(value)


def _turn_problem(error: BaseException) -> str:
    """One line for what is wrong with a turn (pydantic's first error, or the error's text)."""
    from pydantic import ValidationError

    from tooltape.harness.bounded_reprs import bounded, bounded_text, error_text

    if isinstance(error, ValidationError):
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        return f"plan.{field}: {bounded_text(first['msg'])} (got {bounded(first.get('input'))})"
    if isinstance(error, TooltapeUsageError):
        return bounded_text(" ".join(str(error)[:4000].split()), 2000)
    return error_text(error)


# --- logging and stopping ----------------------------------------------------------------


def _error_text(wire: Any) -> str:
    try:
        body = loads(wire.body)
    except ValueError:
        return str(wire.body[:200].decode("utf-8", "replace"))
    error = body.get("error", body) if isinstance(body, dict) else body
    message = error.get("message") if isinstance(error, dict) else None
    return " ".join(str(message or body).split())


class _Watch:
    """Logs each request and stops the server after ``limit`` of them."""

    def __init__(self, limit: int | None, before: Callable[[], None] = lambda: None) -> None:
        self.limit = limit
        self.count = 0
        self.done = threading.Event()
        self.before = before
        self.lock = threading.Lock()

    def wrap(self, router: Any) -> None:
        dispatch = router.dispatch

        def logged(request: Any, url: str) -> Any:
            self.before()
            wire = dispatch(request, url)
            verdict = "valid" if wire.status < 400 else f"rejected: {_error_text(wire)}"
            with self.lock:
                self.count += 1
                number = self.count
            _log(f"#{number} {request.method} {request.path} -> {wire.status} {verdict}")
            if self.limit is not None and number >= self.limit:
                self.done.set()
            return wire

        router.dispatch = logged


def _providers(dialects: Sequence[str], script: _Script) -> list[Any]:
    from tooltape.fake_providers import FakeProvider

    providers = []
    for name in dialects:
        provider = FakeProvider(name, base_url="http://tooltape.invalid")
        script.load(provider)
        providers.append(provider)
    return providers


def _client_base(dialect: str, url: str) -> str:
    """The base URL a client of ``dialect`` is given: the server plus its API's base path.

    OpenAI SDKs want the ``/v1`` of ``https://api.openai.com/v1``; a profile is
    given its base dialect's path.
    """
    from urllib.parse import urlsplit

    from tooltape.fake_providers import get_dialect

    chosen = get_dialect(dialect)
    public = getattr(chosen, "base", chosen).base_url or ""
    return url + urlsplit(public).path.rstrip("/")


def _run(
    app: Any,
    where: tuple[str, int, bool],
    limits: Any,
    watch: _Watch,
    banner: Callable[[str], list[str]],
) -> None:
    from tooltape.fake_providers import serve_in_thread
    from tooltape.fake_providers.loopback import is_loopback

    host, port, allow = where

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    with serve_in_thread(app, host=host, port=port, allow_non_loopback=allow, limits=limits) as url:
        click.echo(f"tooltape serve: listening on {url}")
        for line in banner(url):
            click.echo(line)
        if not is_loopback(host):
            _log(f"WARNING: serving on non-loopback {host}: anyone who reaches it gets answers")
        try:
            while not watch.done.wait(0.1):
                pass
        except KeyboardInterrupt:
            _log("interrupted")
    _log(f"stopped after {watch.count} request(s)")


@click.command(context_settings=CONTEXT)
@click.option(
    "--dialect",
    "-d",
    "dialects",
    multiple=True,
    help="Dialect or profile to serve (repeatable; each on its own path). Default openai_chat.",
)
@click.option("--scenario", "-s", help="Answer every request with this bundled scenario.")
@click.option("--cassette", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--script",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YAML/JSON list of turns: scenario names, {scenario, quirks, seed}, {plan}, {error}.",
)
@click.option(
    "--repeat", is_flag=True, help="Start the script over when it runs out (cassette: replay)."
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", "-p", type=int, default=0, help="Port to bind (0: a free one).")
@click.option(
    "--allow-non-loopback", is_flag=True, help="Allow a non-loopback --host (logged loudly)."
)
@click.option("--max-requests", type=click.IntRange(min=1), help="Stop after N requests.")
@click.option("--once", is_flag=True, help="Stop after one request (--max-requests 1).")
@limit_option(
    "--log-requests", 100, "Keep the last N requests in memory (the request log stays bounded)."
)
@limit_option("--log-body-bytes", 64 * 1024, "Keep at most N bytes of each logged request body.")
@limit_option(
    "--header-timeout",
    10.0,
    "Seconds a client may take to send its headers before the connection closes.",
    open_minimum=True,
)
@limit_option(
    "--body-timeout",
    30.0,
    "Seconds a client may take to send its body before it gets the provider's 408.",
    open_minimum=True,
)
@limit_option(
    "--max-body-bytes", 32 * 1024 * 1024, "Larger request bodies get the provider's 413.", minimum=1
)
@limit_option(
    "--max-header-bytes",
    64 * 1024,
    "A request line and headers over this get a 431 and the connection closes.",
    minimum=1,
)
@limit_option(
    "--write-timeout",
    30.0,
    "Seconds a client may read nothing of its response before its connection is reset.",
    open_minimum=True,
)
def serve(
    dialects: tuple[str, ...],
    scenario: str | None,
    cassette: Path | None,
    script: Path | None,
    repeat: bool,
    host: str,
    port: int,
    allow_non_loopback: bool,
    max_requests: int | None,
    once: bool,
    log_requests: int,
    log_body_bytes: int,
    header_timeout: float,
    body_timeout: float,
    max_body_bytes: int,
    max_header_bytes: int,
    write_timeout: float,
) -> None:
    """Serve a fake provider over real HTTP until Ctrl-C.

    Requests are validated like the real API (broken tool-call pairing gets the
    provider's real 400) and logged one per line. Point any client at the
    printed base URL.

    \b
    Examples:
      tooltape serve --dialect openai_chat --scenario parallel_interleaved --port 8787
      tooltape serve -d anthropic_messages --script turns.yaml --repeat
      tooltape serve --cassette weather.yaml --once
    """  # noqa: D301  (click's \b keeps the examples unwrapped)
    from tooltape.fake_providers import FakeProviderApp, ServerLimits, get_dialect
    from tooltape.fake_providers.loopback import is_loopback

    limits = ServerLimits(
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_body_bytes=max_body_bytes,
        max_header_bytes=max_header_bytes,
        write_timeout=write_timeout,
        log_requests=log_requests,
        log_body_bytes=log_body_bytes,
    )
    if sum(x is not None for x in (scenario, cassette, script)) > 1:
        raise TooltapeUsageError("give one of --scenario, --script or --cassette")
    if not allow_non_loopback and not is_loopback(host):
        raise TooltapeUsageError(
            f"refusing to serve on {host!r}: it is not a loopback address; use 127.0.0.1 or ::1, "
            "or pass --allow-non-loopback to expose the fake provider"
        )
    limit = 1 if once else max_requests
    if cassette is not None:
        from tooltape.cassettes import CassettePlayer, load_cassette

        player = CassettePlayer(
            load_cassette(cassette), match_on=_SERVER_MATCH_ON, allow_repeats=repeat
        )
        app = FakeProviderApp(*_providers(["openai_chat"], _Script(["openai_golden"], False)))
        app.router = player  # the app routes through whatever router it holds
        watch = _Watch(limit)
        watch.wrap(player)
        count = len(player.cassette.interactions)

        def banner(url: str) -> list[str]:
            return [f"replaying {cassette} ({count} interaction(s)) at {url}"]

    else:
        names = list(dialects) or ["openai_chat"]
        for name in names:
            get_dialect(name)
        plan = _Script(
            load_script(script) if script else [scenario or "openai_golden"],
            repeat or script is None,
            str(script) if script else "--scenario",
        )
        app = FakeProviderApp(*_providers(names, plan))
        watch = _Watch(limit, before=lambda: plan.refill(app.router.providers))
        watch.wrap(app.router)

        def banner(url: str) -> list[str]:
            return [
                f"serving {name}: POST {url}{get_dialect(name).path} "
                f"(client base URL {_client_base(name, url)})"
                for name in names
            ]

    _run(app, (host, port, allow_non_loopback), limits, watch, banner)
