"""The tooltape_scenarios marker: parametrization, ids, the case fixture and the matrix summary."""

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

CASE_TEST = """
import pytest

@pytest.mark.tooltape_scenarios(names=["parallel_interleaved", "repeated_name"],
                                dialects=["openai_chat", "anthropic_messages"])
def test_adapter(tooltape_case):
    model = tooltape_case.chat_model()
    message = None
    for chunk in model.stream("hi"):
        message = chunk if message is None else message + chunk
    tooltape_case.assert_merge(message)
"""


def test_cases_get_readable_ids_and_run_real_adapters(pytester: pytest.Pytester):
    pytester.makepyfile(CASE_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    # repeated_name cannot be said on Anthropic's wire, so it is not generated there.
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "*test_adapter?parallel_interleaved-openai? PASSED*",
            "*test_adapter?parallel_interleaved-anthropic? PASSED*",
            "*test_adapter?repeated_name-openai? PASSED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*tooltape scenario matrix*",
            "*anthropic*openai*",
            "parallel_interleaved*pass*pass*",
            "repeated_name*·*hazard*",
        ]
    )


def test_tags_and_the_dialect_option_filter(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_scenarios(tags=["truncation"])
        def test_truncation(tooltape_case):
            assert "truncation" in tooltape_case.scenario.tags
            assert tooltape_case.dialect_name == "openai_responses"
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-dialects=responses", "--collect-only", "-q"
    )
    result.stdout.fnmatch_lines(["*truncated_mid_string-responses*"])
    assert "-openai]" not in result.stdout.str()


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'tooltape_scenarios(tag=["x"])',
            "unknown argument 'tag' (did you mean 'tags'?); known arguments: dialects, names, tags",
        ),
        ('tooltape_scenarios("golden")', "positional arguments ('golden',) are not accepted"),
        ("tooltape_scenarios(names=[1])", "names must be a string or a list of strings, got [1]"),
        ('tooltape_scenarios(names=["nope"])', "unknown scenario 'nope'"),
        ('tooltape_scenarios(dialects=["klingon"])', "unknown dialect 'klingon'"),
    ],
)
def test_misuse_is_a_usage_error_listing_what_is_accepted(
    pytester: pytest.Pytester, marker, message
):
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.{marker}
        def test_x(tooltape_case):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert message in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_marker_without_the_case_argument(pytester: pytest.Pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_scenarios(names=["openai_golden"])
        def test_x():
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "parametrizes the 'tooltape_case' argument" in result.stdout.str()


def test_extra_scenarios_from_the_hook(pytester: pytest.Pytester):
    pytester.makeconftest(
        """
        from tooltape.harness import Plan, Scenario

        def pytest_tooltape_scenarios(config):
            plan = Plan(calls=[{"name": "lookup", "args": {"q": "x"}, "id": "call_q"}])
            mine = Scenario(name="my_lookup", description="ours", plan=plan, quirks=("whole_call",))
            return [mine]
        """
    )
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_scenarios(names=["my_lookup"], dialects=["openai_chat"])
        def test_mine(tooltape_case):
            assert tooltape_case.reference.calls()[0]["name"] == "lookup"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_mine?my_lookup-openai? PASSED*"])


def test_works_under_xdist_with_two_workers(pytester: pytest.Pytester):
    pytester.makepyfile(CASE_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*tooltape scenario matrix*", "repeated_name*·*hazard*"])


SPINNING_CASE = """
import pytest

@pytest.mark.tooltape_scenarios(names=["framing_keepalives", "openai_golden"],
                                dialects=["openai_chat"])
def test_consumer(tooltape_case):
    model = tooltape_case.chat_model()
    chunks = list(model.stream("hi"))
    while tooltape_case.scenario.name == "framing_keepalives":  # a consumer that spins
        chunks = chunks[:]
    assert chunks
"""


def test_a_case_that_spins_fails_as_hanging_and_the_run_goes_on(pytester: pytest.Pytester):
    pytester.makepyfile(SPINNING_CASE)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-v", "--tooltape-case-timeout=5", timeout=120
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_consumer?framing_keepalives-openai? FAILED*",
            "*test_consumer?openai_golden-openai? PASSED*",
            "*tooltape_case framing_keepalives-openai: the test hangs: still running after "
            "5 s (the time limit) (--tooltape-case-timeout)*",
        ]
    )
