"""Which dialect a recorded interaction speaks: from the cassette's metadata or its URL."""

from __future__ import annotations

from functools import cache

from tooltape.cassettes._errors import CassetteError, where
from tooltape.cassettes._model import Cassette, Interaction
from tooltape.fake_providers import Dialect, FakeProvider, dialect_names, get_dialect
from tooltape.fake_providers.dialects import BUNDLED_DIALECTS

__all__ = ["dialect_for", "infer_dialect"]


@cache
def _routes(names: tuple[str, ...]) -> tuple[tuple[str, FakeProvider], ...]:
    return tuple((name, FakeProvider(name, base_url="http://tooltape.invalid")) for name in names)


def infer_dialect(interaction: Interaction) -> str | None:
    """The dialect whose URL path (and, on a tie, media type) fits the interaction.

    Still tied (``/v1/chat/completions`` is both ``openai_chat`` and
    ``mistral_native``), the longer path wins, then the earlier line of
    ``BUNDLED_DIALECTS``: a dialect added later never takes an older one's cassettes.
    """
    path = interaction.request.path
    candidates = [
        name
        for name, provider in _routes(tuple(dialect_names()))
        if provider.serves(None, None, path)
    ]
    if len(candidates) > 1:
        media = interaction.response.content_type.split(";")[0].strip().lower()
        typed = [n for n in candidates if get_dialect(n).media_type.startswith(media)]
        candidates = typed or candidates
        order = {cls.name: position for position, cls in enumerate(BUNDLED_DIALECTS)}
        candidates.sort(key=lambda n: (-len(get_dialect(n).path), order.get(n, len(order))))
    return candidates[0] if candidates else None


def dialect_for(cassette: Cassette, index: int, dialect: str | None = None) -> Dialect:
    """The dialect of interaction ``index``: given, from the metadata, or from the URL.

    Raises:
        CassetteError: The dialect is unknown, or none fits the URL.
    """
    name = dialect or cassette.info.dialect or infer_dialect(cassette.interactions[index])
    if name is None:
        request = cassette.interactions[index].request
        raise CassetteError(
            f"{where(cassette.path, index)}: no dialect serves {request.method} {request.uri}; "
            f"name one (dialects: {', '.join(dialect_names())})"
        )
    try:
        return get_dialect(name)
    except ValueError as error:
        raise CassetteError(f"{where(cassette.path, index)}: {error}") from None
