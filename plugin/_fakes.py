"""The fake providers a test uses, installed for the test's duration.

One :class:`FakeSession` per test owns one router and installs it on both HTTP
stacks (httpx2 for the official SDKs, httpx through respx), so a test may use
``fake_openai`` and ``fake_anthropic`` together. Dialects whose SDK speaks
botocore (Bedrock) are also served on a 127.0.0.1 server that botocore's
requests are rerouted to. Imported lazily by the fixtures.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, Self

from tooltape.cassettes import get_scenario
from tooltape.fake_providers import (
    Dialect,
    FakeProvider,
    ProviderRouter,
    Wire,
    patch_httpx,
    patch_httpx2,
)
from tooltape.harness import (
    Plan,
    PlannedStream,
    Scenario,
    TooltapeAssertionError,
)

__all__ = ["FakeSession", "ScriptedProvider"]


class ScriptedProvider(FakeProvider):
    """A :class:`FakeProvider` that also takes bundled scenario names and the session seed.

    ``fake_openai.stream("parallel_interleaved")`` streams the bundled scenario;
    ``.stream(plan, quirks=[...])`` renders a plan; ``.then(...)`` scripts the next turn.
    """

    default_seed: int = 0

    def __init__(self, dialect: str | Dialect = "openai_chat", *, base_url: str | None = None):
        super().__init__(dialect, base_url=base_url)
        self.declared_tools: list[dict[str, Any]] = []
        """The scripted tools in Anthropic's request form, kept current as turns are queued.

        :meth:`chat_model` sends this very list, so a model built before the turns
        were scripted still declares them.
        """

    def stream(
        self,
        plan: Plan | PlannedStream | Scenario | Wire | str,
        quirks: Any = (),
        seed: int | None = None,
    ) -> Self:
        """Queue a streamed turn (a scenario name, scenario, plan, planned stream or wire)."""
        if isinstance(plan, str):
            plan = get_scenario(plan)
        if seed is None and not isinstance(plan, Scenario):
            seed = self.default_seed + self.scripted
        super().stream(plan, quirks, seed)
        self.declared_tools[:] = [_declared(name) for name in self.tool_names]
        return self

    then = stream

    def chat_model(self, **kwargs: Any) -> Any:
        """This dialect's LangChain chat model (:meth:`Dialect.chat_model`), pointed here.

        ``ChatAnthropic`` requests declare the scripted tools (unless the model's own
        ``bind_tools`` or ``model_kwargs`` give tools), as a real tool-calling request
        does.
        """
        return self.dialect.chat_model(self.base_url, tools=self.declared_tools, **kwargs)


def _declared(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"tooltape: the scripted tool {name}",
        "input_schema": {"type": "object", "properties": {}},
    }


class FakeSession:
    """The fake providers of one test, served on httpx2 and httpx until :meth:`close`."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.providers: list[ScriptedProvider] = []
        self._router: ProviderRouter | None = None
        self._stack = ExitStack()
        self._optional: set[int] = set()
        self._botocore: Any = None

    def provider(
        self, dialect: str, *, base_url: str | None = None, optional: bool = False
    ) -> ScriptedProvider:
        """Create a provider for ``dialect`` and start serving it.

        An ``optional`` provider's unplayed turns do not fail the test (a case a
        test may only inspect).
        """
        provider = ScriptedProvider(dialect, base_url=base_url)
        provider.default_seed = self.seed
        if self._router is None:
            self._router = ProviderRouter([provider])
            self._stack.enter_context(patch_httpx2(router=self._router))
            self._stack.enter_context(patch_httpx(router=self._router))
        else:
            self._router.add(provider)
        if provider.dialect.sdk_stack == "botocore":
            self._route_botocore(provider)
        self.providers.append(provider)
        if optional:
            self._optional.add(id(provider))
        return provider

    def serves_host(self, url: str) -> bool:
        """True when one of this test's fake providers lives at ``url``'s host."""
        return self._router is not None and self._router.serves_host(url)

    def _route_botocore(self, provider: ScriptedProvider) -> None:
        """Serve ``provider`` to boto3 too, over one 127.0.0.1 server per test."""
        if self._botocore is None:
            from tooltape.fake_providers.botocore_patch import patch_botocore

            self._botocore = self._stack.enter_context(patch_botocore(provider))
        else:
            self._botocore.router.add(provider)

    def close(self, *, check: bool) -> None:
        """Stop serving; with ``check``, fail on an unplayed turn or an unrouted request."""
        self._stack.close()
        if not check or self._router is None:
            return
        problems = []
        for provider in self.providers:
            if id(provider) in self._optional:
                continue
            try:
                provider.assert_all_played()
            except AssertionError as error:
                problems.append(str(error).removeprefix("tooltape: "))
        unrouted = list(self._router.unrouted)
        if self._botocore is not None:
            unrouted += self._botocore.router.unrouted
        problems += [f"no fake provider serves {request}" for request in unrouted]
        if problems:
            raise TooltapeAssertionError("; ".join(problems))
