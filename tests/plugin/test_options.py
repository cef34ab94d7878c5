"""Options, ini keys, the config fixture, their precedence, and the report header."""

import pytest

pytestmark = pytest.mark.slow

pytest_plugins = ["pytester"]

SEED_TEST = """
import pytest

@pytest.mark.parametrize("expected", [{expected}])
def test_seed(tooltape_seed, expected):
    assert tooltape_seed == expected
"""


@pytest.mark.parametrize(
    ("ini", "conftest", "cli", "expected"),
    [
        (None, None, None, 0),
        ("tooltape_seed = 5", None, None, 5),
        ("tooltape_seed = 5", "7", None, 7),
        ("tooltape_seed = 5", "7", "--tooltape-seed=9", 9),
        (None, None, "--tooltape-seed=3", 3),
    ],
)
def test_precedence_cli_over_config_fixture_over_ini(pytester, ini, conftest, cli, expected):
    if ini:
        pytester.makeini(f"[pytest]\n{ini}\n")
    if conftest:
        pytester.makeconftest(
            f"""
            import pytest

            @pytest.fixture
            def tooltape_config():
                return {{"seed": {conftest}}}
            """
        )
    pytester.makepyfile(SEED_TEST.format(expected=expected))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *([cli] if cli else []))
    result.assert_outcomes(passed=1)


def test_header_shows_the_effective_settings(pytester):
    pytester.makeini("[pytest]\ntooltape_dialects = openai_chat, anthropic_messages\n")
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-seed=4")
    result.stdout.fnmatch_lines(
        [
            "tooltape: record_mode=none, cassette_dir=cassettes/<module> beside each test, "
            "dialects=openai_chat,anthropic_messages, block_network=on, seed=4"
        ]
    )


def test_recording_turns_network_blocking_off_by_default(pytester):
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tooltape-record-mode=once")
    result.stdout.fnmatch_lines(["*record_mode=once*block_network=off*"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--tooltape-record-mode=sometimes"],
            "unknown record mode 'sometimes'; known record modes: all, new_episodes, none, once",
        ),
        (["--tooltape-seed=abc"], "seed 'abc' is not an integer"),
        (["--tooltape-block-network=maybe"], "'maybe' is not a boolean"),
    ],
)
def test_bad_option_values_are_usage_errors(pytester, args, message):
    pytester.makepyfile("def test_x(): pass")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_markers_are_registered_for_strict_markers(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.tooltape_cassette("x")
        def test_x():
            pass
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--strict-markers", "--collect-only"
    )
    assert result.ret == pytest.ExitCode.OK
    listed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--markers")
    listed.stdout.fnmatch_lines(["@pytest.mark.tooltape_cassette(name=None, *, record_mode=None*"])


def test_cassette_dir_fixture(pytester):
    pytester.makepyfile(
        test_where="""
        def test_dir(tooltape_cassette_dir, request):
            assert tooltape_cassette_dir == request.path.parent / "cassettes" / "test_where"
        """
    )
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
    pytester.makepyfile(
        test_where="""
        def test_dir(tooltape_cassette_dir, pytestconfig):
            assert tooltape_cassette_dir == pytestconfig.rootpath / "recordings" / "test_where"
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tooltape-cassette-dir=recordings"
    )
    result.assert_outcomes(passed=1)
