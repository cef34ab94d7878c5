"""A name typed wrong anywhere in the plugin or the command line fails loud, never green.

Each failure says "did you mean" with the closest known name; a filter that
selects nothing is an error, not one skipped test.
"""

from __future__ import annotations

import pytest

from tooltape.plugin.cli import main

pytest_plugins = ["pytester"]


def _marked(pytester: pytest.Pytester, marker: str) -> pytest.RunResult:
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.{marker}
        def test_x(tooltape_case):
            pass
        """
    )
    return pytester.runpytest_subprocess("-p", "no:cacheprovider")


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'tooltape_scenarios(tags=["truncatoin"])',
            "unknown tag 'truncatoin' (did you mean 'truncation'?); known tags: ",
        ),
        (
            'tooltape_scenarios(names=["parallel_interleavd"])',
            "unknown scenario 'parallel_interleavd' (did you mean 'parallel_interleaved'",
        ),
        (
            'tooltape_scenarios(dialects=["anthropic_mesages"])',
            "unknown dialect 'anthropic_mesages' (did you mean 'anthropic_messages'?)",
        ),
        (
            'tooltape_scenarios(tag=["ids"])',
            "unknown argument 'tag' (did you mean 'tags'?); known arguments: dialects, names, tags",
        ),
        (
            'tooltape_cassette("x", record_mod="all")',
            "unknown argument 'record_mod' (did you mean 'record_mode'?)",
        ),
    ],
)
@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_typo_in_a_marker_fails_collection_with_the_close_name(pytester, marker, message):
    result = _marked(pytester, marker)
    out = result.stdout.str()
    assert result.ret != pytest.ExitCode.OK
    assert message in out
    assert "skipped" not in out and "Traceback" not in out


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_tag_unknown_to_the_library_is_an_error_not_a_skip(pytester):
    result = _marked(pytester, 'tooltape_scenarios(tags=["typo"])')
    result.assert_outcomes(errors=1)
    assert "unknown tag 'typo'; known tags: " in result.stdout.str()


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_marker_selection_that_renders_nowhere_is_an_error(pytester):
    # Anthropic's wire cannot say a repeated name: the marker asks for nothing runnable.
    marker = 'tooltape_scenarios(names=["repeated_name"], dialects=["anthropic_messages"])'
    result = _marked(pytester, marker)
    result.assert_outcomes(errors=1)
    assert "no scenario x dialect to run" in result.stdout.str()
    assert "repeated_name" in result.stdout.str()


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_an_unknown_dialect_option_is_a_usage_error(pytester):
    pytester.makepyfile("def test_x(): pass")
    for args in (["--tooltape-dialects=openai,anthropc"], ["-o", "tooltape_dialects=typo"]):
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        err = result.stderr.str()
        assert "tooltape: --tooltape-dialects / tooltape_dialects: unknown dialect" in err
    assert (
        "'anthropc' (did you mean 'anthropic'"
        in pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--tooltape-dialects=anthropc"
        ).stderr.str()
    )


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_short_names_and_profiles_are_known_to_the_dialect_option(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_scenarios(names=["openai_golden"], dialects=["openai_chat", "groq"])
        def test_x(tooltape_case):
            pass
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-dialects=groq,anthropic", "--collect-only", "-q"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*test_x?openai_golden-groq?*"])


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_dialect_option_that_deselects_a_test_says_why(pytester):
    # Both names are known; narrowing the run to Gemini leaves this OpenAI-only test out.
    marker = 'tooltape_scenarios(names=["openai_golden"], dialects=["openai_chat"])'
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.{marker}
        def test_x(tooltape_case):
            pass
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-dialects=gemini", "-rs"
    )
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*--tooltape-dialects=gemini leaves none of this test's dialects*"]
    )


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line in this process (its imports are already paid for)."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("scenarios", "--tag", "typo"), "unknown tag 'typo'; known tags: "),
        (("scenarios", "--tag", "truncatoin"), "(did you mean 'truncation'?)"),
        (("matrix", "--tag", "truncatoin"), "(did you mean 'truncation'?)"),
        (("scenarios", "--dialect", "gemnii"), "(did you mean 'gemini'"),
        (("render", "openai_goldn", "-d", "openai_chat"), "(did you mean 'openai_golden'"),
        (
            ("render", "openai_golden", "-d", "openai_chat", "--framing", "split_utf"),
            "'split_utf8'",
        ),
        (("matrix", "--adapters", "langchain-opanai"), "(did you mean 'langchain-openai'"),
    ],
)
def test_the_command_line_refuses_unknown_names_with_the_close_one(capsys, args, message):
    code, out, err = _cli(capsys, *args)
    assert code == 2, (code, out, err)
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_scenarios_with_a_tag_no_scenario_in_the_dialect_has_is_an_error(capsys):
    code, out, err = _cli(capsys, "scenarios", "--tag", "names", "--dialect", "gemini")
    assert code == 2, out
    assert "no bundled scenario with the tag(s) names renders in gemini" in err


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_an_unknown_key_in_tooltape_config_fails_the_test_with_the_close_name(pytester):
    pytester.makeconftest(
        """
        import pytest

        @pytest.fixture
        def tooltape_config():
            return {"sed": 3}
        """
    )
    pytester.makepyfile("def test_x(tooltape_seed): pass")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*the tooltape_config fixture for *: unknown setting 'sed' (did you mean 'seed'?)*"]
    )


@pytest.mark.slow  # a nested pytest run or a CLI subprocess: CI, not the inner loop
def test_a_hook_scenario_that_names_an_unknown_dialect_fails_collection(pytester):
    pytester.makeconftest(
        """
        from tooltape.harness import Plan, Scenario

        def pytest_tooltape_scenarios(config):
            plan = Plan(calls=[{"name": "f"}])
            return [
                Scenario(name="mine", description="x", plan=plan, dialects=["openai_chta"])
            ]
        """
    )
    result = _marked(pytester, 'tooltape_scenarios(names=["mine"])')
    result.assert_outcomes(errors=1)
    assert "scenario 'mine', dialects: unknown dialect 'openai_chta' (did you mean" in (
        result.stdout.str()
    )
