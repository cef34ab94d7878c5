"""The one unknown-name helper: closest names first, every known name after, bounded."""

from __future__ import annotations

import pytest

from tooltape.cassettes import bundled_scenarios
from tooltape.fake_providers import get_dialect
from tooltape.harness import (
    Plan,
    TooltapeUsageError,
    assert_agent_run_healthy,
    assert_merge,
    check_merger,
    parse_quirk,
    select_scenarios,
)
from tooltape.harness.name_checks import check_names, unknown_name, unknown_name_message
from tooltape.harness.strategies import histories, quirk_sets


def test_a_close_name_is_suggested_and_every_known_name_listed():
    message = unknown_name_message("tag", "truncatoin", ["truncation", "ids", "golden"])
    assert message == (
        "unknown tag 'truncatoin' (did you mean 'truncation'?); known tags: golden, ids, truncation"
    )


def test_a_part_of_a_name_or_another_case_finds_it():
    assert "did you mean 'record_mode'?" in unknown_name_message(
        "argument", "mode", ["record_mode"]
    )
    assert "did you mean 'openai_chat'?" in unknown_name_message(
        "d", "OpenAI_Chat", ["openai_chat"]
    )


def test_nothing_close_means_no_suggestion():
    message = unknown_name_message("dialect", "klingon", ["openai_chat", "gemini"])
    assert "did you mean" not in message
    assert message.endswith("known dialects: gemini, openai_chat")


def test_several_names_long_names_and_long_lists_stay_one_bounded_line():
    known = [f"name_{i:03d}" for i in range(100)]
    message = unknown_name_message("scenario", ["name_0x1", "z" * 500], known)
    assert "'name_0x1' (did you mean " in message
    assert "z" * 60 not in message and "...'" in message
    assert message.endswith("and 60 more")
    assert "\n" not in message


def test_the_error_class_and_prefix_are_the_callers():
    error = unknown_name("api", "x", ["y"], error=LookupError, prefix="file.json: ")
    assert type(error) is LookupError
    assert str(error) == "file.json: unknown api 'x'; known apis: y"
    check_names("tag", ["ids"], ["ids"])  # known names pass
    with pytest.raises(TooltapeUsageError, match="unknown tag 'idz' \\(did you mean 'ids'\\?\\)"):
        check_names("tag", ["ids", "idz"], ["ids"])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: get_dialect("openai_chta"),
            "unknown dialect 'openai_chta' (did you mean 'openai_chat'",
        ),
        (lambda: get_dialect("azrue"), "(did you mean 'azure'"),
        (
            lambda: parse_quirk("missing_idd"),
            "unknown quirk kind 'missing_idd' (did you mean 'missing_id'",
        ),
        (lambda: quirk_sets(kinds=["split_nme"]), "(did you mean 'split_name'"),
        (lambda: histories(shapes=["openai_chatt"]), "unknown shape 'openai_chatt' (did you mean"),
        (
            lambda: select_scenarios(bundled_scenarios(), names=["parallel_interleavd"]),
            "unknown scenario 'parallel_interleavd' (did you mean 'parallel_interleaved'",
        ),
        (
            lambda: assert_merge([], Plan(), allow_hazards=["dupliate_id"]),
            "unknown hazard kind 'dupliate_id' (did you mean 'duplicate_id'?)",
        ),
        (
            lambda: check_merger(lambda deltas: [], on_reference_hazard="requre"),
            "(did you mean 'require'?)",
        ),
        (
            lambda: assert_agent_run_healthy([], allow=["dropped_reslt"]),
            "unknown diagnosis kind 'dropped_reslt' (did you mean 'dropped_result'",
        ),
        (
            lambda: select_scenarios(bundled_scenarios(), tags=["truncatoin"]),
            "unknown tag 'truncatoin' (did you mean 'truncation'?)",
        ),
    ],
)
def test_every_library_entry_point_suggests(call, message):
    with pytest.raises(TooltapeUsageError) as raised:
        call()
    assert message in str(raised.value)


def test_a_known_tag_that_selects_nothing_among_the_names_is_an_error():
    with pytest.raises(TooltapeUsageError, match="no scenario among openai_golden has the tag"):
        select_scenarios(bundled_scenarios(), names=["openai_golden"], tags=["truncation"])
