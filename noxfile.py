"""Test environments: the newest releases, the oldest pyproject allows, and langchain-tests.

    nox -s tests                     # pip install .[test], then pytest (args after -- to pytest)
    nox -s oldest -- -m "not slow"   # every dependency at its pyproject lower bound
    nox -s standard                  # langchain-tests' standard chat-model suite (args: pytest's)
    nox -s langchain_core_regression # the matrix on langchain-core 1.2.13 must fail, naming cells
    nox -s subjects                  # LiteLLM (the subjects extra) as a matrix subject
    nox -s js                        # LangChain.js and the Vercel AI SDK (npm ci) as subjects
    nox -s subjects_llamaindex       # llama-index's LLMs (the llamaindex extra: openai<3)
    nox -s docs                      # the docs site: mkdocs build --strict, then Chromium

Each session installs the project (not the working tree) into its own environment
under ``.nox/``, so the tests import the installed ``tooltape`` as users do.
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests"]

STANDARD_TESTS = ("tests/fake_providers/test_chat_model_standard.py",)
"""The modules that need langchain-tests (``grep -rl langchain_tests tests``)."""


def show_versions(session: nox.Session) -> None:
    """Log the installed version of every distribution, for the CI log."""
    session.run(
        "python",
        "-c",
        "from importlib.metadata import distributions as d; "
        "print(*sorted(f'{x.name}=={x.version}' for x in d()))",
    )


@nox.session
def tests(session: nox.Session) -> None:
    """The suite on the newest releases pyproject allows."""
    session.install(".[test]")
    show_versions(session)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(venv_backend="uv")
def oldest(session: nox.Session) -> None:
    """The suite on the oldest versions pyproject allows.

    uv's ``lowest-direct`` resolution takes every declared dependency at the lowest
    version that installs beside the others (a bound another dependency lifts is
    lifted: anthropic 2 needs pydantic 2.12.5), and the newest of the rest.
    """
    session.install("--resolution", "lowest-direct", ".[test]")
    show_versions(session)
    session.run("python", "-m", "pytest", *session.posargs)


SUBJECT_TESTS = (
    "tests/plugin/test_matrix_litellm.py",
    "tests/plugin/test_openai_agents_subject.py",
)
"""The modules that need the subjects extra (their libraries are not in ``test``)."""


@nox.session
def subjects(session: nox.Session) -> None:
    """The subjects extra's libraries (LiteLLM, openai-agents) as matrix subjects: tests, matrix."""
    session.install(".[test,subjects]")
    show_versions(session)
    session.run("python", "-m", "pytest", *SUBJECT_TESTS, *session.posargs)
    session.run("tooltape", "matrix", "--adapters", "reference,litellm,openai-agents")


JS_TESTS = (
    "tests/plugin/test_js_subjects.py",
    "tests/plugin/test_js_reference.py",
    "tests/test_cross_language.py",
)
"""The modules that run node (LangChain.js, the Vercel AI SDK)."""


@nox.session
def js(session: nox.Session) -> None:
    """LangChain.js and the Vercel AI SDK as matrix subjects: npm ci, their tests, the matrix."""
    session.install(".[test]")
    show_versions(session)
    folder = str(Path("plugin/js").resolve())
    session.run("node", "--version", external=True)
    session.run("npm", "ci", "--no-audit", "--no-fund", "--prefix", folder, external=True)
    env = {"TOOLTAPE_JS_DIR": folder}
    session.run("python", "-m", "pytest", *JS_TESTS, *session.posargs, env=env)
    session.run("tooltape", "matrix", "--adapters", "reference,langchain-js,vercel-ai", env=env)


LLAMA_INDEX_TESTS = ("tests/plugin/test_llama_index_subject.py",)
"""The modules that need the llamaindex extra."""


@nox.session(venv_backend="uv")
def subjects_llamaindex(session: nox.Session) -> None:
    """llama-index's OpenAI and Anthropic LLMs as matrix subjects: tests, matrix.

    Not with ``test``: llama-index-llms-openai 0.8 wants ``openai<3`` (``test`` asks >=3.38),
    so this environment has the project, its llamaindex extra and the test runner only.
    """
    session.install(".[llamaindex]", "pytest-xdist>=3.5", "pytest-asyncio>=1.0")
    show_versions(session)
    session.run("python", "-m", "pytest", *LLAMA_INDEX_TESTS, *session.posargs)
    adapters = "reference,llama-index-openai,llama-index-anthropic"
    session.run("tooltape", "matrix", "--adapters", adapters)


@nox.session
def standard(session: nox.Session) -> None:
    """langchain-tests' standard suite, in an environment where its pins may downgrade."""
    session.install(".[standard-tests]")
    show_versions(session)
    session.run("python", "-m", "pytest", *STANDARD_TESTS, *session.posargs)


OLD_LANGCHAIN_CORE = "1.2.13"
"""The release before langchain-core merged calls sharing an index only when their ids agree."""


@nox.session(venv_backend="uv")
def langchain_core_regression(session: nox.Session) -> None:
    """``tooltape matrix`` on an old langchain-core must fail and name the cells it changed.

    The release is installed with ``--no-deps`` over the project (pyproject asks for a
    newer one): 1.2.13 merged two calls on index 0 with different ids into one
    ``get_weatherget_weather``, which the pinned reference outcomes must catch.
    """
    session.install(".")
    session.install("--no-deps", f"langchain-core=={OLD_LANGCHAIN_CORE}")
    show_versions(session)
    output = session.run(
        "tooltape", "matrix", "--adapters", "reference", silent=True, success_codes=[1]
    )
    flagged = [line for line in str(output).splitlines() if line.startswith("UNEXPECTED")]
    expected = (
        f"UNEXPECTED shared_index_idless x openai_chat x reference: "
        f"langchain-core {OLD_LANGCHAIN_CORE} is not as"
    )
    if not any(line.startswith(expected) for line in flagged):
        session.error(f"the matrix did not name shared_index_idless x openai_chat:\n{output}")
    session.log(f"{len(flagged)} cells named, as expected; the first: {flagged[0][:300]}")


DOCS_TESTS = ("tests/test_docs_site.py",)
"""The modules that need the docs extra (``grep -rl mkdocs tests``)."""


@nox.session
def docs(session: nox.Session) -> None:
    """The docs site built strictly (``mkdocs.yml``), then checked in headless Chromium.

    The build runs from the working tree (the pages are not installed); the API pages
    read the installed package's docstrings.
    """
    session.install(".[docs]")
    show_versions(session)
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})
    # pyproject's pytest options name pytest-asyncio's, which this environment lacks.
    ignore_unknown_options = ("-W", "ignore::pytest.PytestConfigWarning")
    session.run("python", "-m", "pytest", *ignore_unknown_options, *DOCS_TESTS, *session.posargs)
