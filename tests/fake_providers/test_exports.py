"""tooltape.fake_providers' public surface: what users type, pinned; quirk classes in ``quirks``."""

from __future__ import annotations

import subprocess
import sys

import tooltape.fake_providers as fake_providers
from tooltape.fake_providers import quirks
from tooltape.harness import Stage, quirk_kinds
from tooltape.harness._quirks import _REGISTRY

FACADE = [
    "BodyProblem",
    "Dialect",
    "EventQuirks",
    "FakeHistoryRejected",
    "FakeProvider",
    "FakeProviderApp",
    "FakeStreamError",
    "FakeToolStreamingModel",
    "FakeTransport",
    "IdShape",
    "ProviderError",
    "ProviderEvent",
    "ProviderRequest",
    "ProviderRouter",
    "ScriptedTurn",
    "ServerLimits",
    "Wire",
    "add_respx_routes",
    "decode_sse",
    "dialect_names",
    "get_dialect",
    "patch_httpx",
    "patch_httpx2",
    "profile_table",
    "register_dialect",
    "register_profile",
    "serve_in_thread",
]


def test_the_facade_exports_what_users_type_and_nothing_more():
    assert fake_providers.__all__ == FACADE
    assert all(hasattr(fake_providers, name) for name in FACADE)


def test_every_event_and_wire_quirk_class_is_in_the_quirks_module():
    ours = {
        kind
        for kind in quirk_kinds()
        if _REGISTRY[kind].stage >= Stage.EVENTS
        and _REGISTRY[kind].__module__.startswith("tooltape.fake_providers")
    }
    exported = {getattr(quirks, name).model_fields["kind"].default for name in quirks.__all__}
    assert ours <= exported
    assert quirks.__all__ == sorted(quirks.__all__)


def test_parse_quirk_knows_event_and_wire_kinds_without_importing_fake_providers():
    """The ``tooltape.quirks`` entry point loads them on the first unknown kind."""
    code = (
        "import sys\n"
        "from tooltape.harness import parse_quirk\n"
        "assert 'tooltape.fake_providers' not in sys.modules\n"
        "print(parse_quirk('ping_events'), parse_quirk({'kind': 'split_reads', 'pieces': 2}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "ping_events(every=1)",
        "split_reads(pieces=2,",
        "after_field=True)",
    ]
