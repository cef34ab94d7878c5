"""The pytest plugin tooltape registers (entry point ``pytest11: tooltape``).

Its hooks and fixtures are defined in ``_hooks`` and ``_fixtures``; pytest finds
them here. This module is separate from the package's ``__init__`` so that the
command line (``tooltape.plugin.cli``), which lives in this package, never
imports pytest.
"""

from __future__ import annotations

from tooltape.plugin._fixtures import (
    fake_anthropic as fake_anthropic,
)
from tooltape.plugin._fixtures import (
    fake_openai as fake_openai,
)
from tooltape.plugin._fixtures import (
    fake_provider as fake_provider,
)
from tooltape.plugin._fixtures import (
    fake_responses as fake_responses,
)
from tooltape.plugin._fixtures import (
    tooltape_case as tooltape_case,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette as tooltape_cassette,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette_autouse as tooltape_cassette_autouse,
)
from tooltape.plugin._fixtures import (
    tooltape_cassette_dir as tooltape_cassette_dir,
)
from tooltape.plugin._fixtures import (
    tooltape_config as tooltape_config,
)
from tooltape.plugin._fixtures import (
    tooltape_fakes as tooltape_fakes,
)
from tooltape.plugin._fixtures import (
    tooltape_record_mode as tooltape_record_mode,
)
from tooltape.plugin._fixtures import (
    tooltape_seed as tooltape_seed,
)
from tooltape.plugin._fixtures import (
    tooltape_snapshot as tooltape_snapshot,
)
from tooltape.plugin._hooks import (
    pytest_addhooks as pytest_addhooks,
)
from tooltape.plugin._hooks import (
    pytest_addoption as pytest_addoption,
)
from tooltape.plugin._hooks import (
    pytest_configure as pytest_configure,
)
from tooltape.plugin._hooks import (
    pytest_generate_tests as pytest_generate_tests,
)
from tooltape.plugin._hooks import (
    pytest_report_header as pytest_report_header,
)
from tooltape.plugin._hooks import (
    pytest_runtest_call as pytest_runtest_call,
)
from tooltape.plugin._hooks import (
    pytest_runtest_makereport as pytest_runtest_makereport,
)
from tooltape.plugin._hooks import (
    pytest_runtest_setup as pytest_runtest_setup,
)
