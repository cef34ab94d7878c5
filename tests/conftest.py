"""Shared test configuration: hypothesis profiles and the conformance corpus."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# CI runs derandomized with a bounded number of examples: the machine has 2 cores.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
