"""tooltape.cassettes: the bundled scenario cassette library and the code that indexes it."""

__all__: list[str] = []
