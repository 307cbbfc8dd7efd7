"""With speculation on, what a tool call's grammar forces is drafted before the proposer's guess;
where the grammar leaves a choice, or does not apply yet, the proposer's draft stands."""

from __future__ import annotations

import types
from typing import Any

import pytest

pytest.importorskip("vllm")

from vllm.v1.core.sched.scheduler import Scheduler
from vllm.v1.outputs import DraftTokenIds

from serving.vllm_plugin.scheduler import ForcedTokenScheduler


class _Matcher:
    def __init__(self, forced: str, terminated: bool = False) -> None:
        self.forced = forced
        self.terminated = terminated

    def find_jump_forward_string(self) -> str:
        return self.forced

    def is_terminated(self) -> bool:
        return self.terminated


class _Tokenizer:
    """One token per character: its code point."""

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        assert not add_special_tokens
        return [ord(character) for character in text]


def _request(matcher: _Matcher | None, reasoning_ended: bool = True) -> Any:
    structured = types.SimpleNamespace(
        reasoning_ended=reasoning_ended, grammar=types.SimpleNamespace(matcher=matcher)
    )
    return types.SimpleNamespace(
        use_structured_output=matcher is not None,
        structured_output_request=structured if matcher is not None else None,
    )


def _drafts(
    monkeypatch: pytest.MonkeyPatch, requests: dict[str, Any], proposed: dict[str, list[int]]
) -> dict[str, list[int]]:
    """What the scheduler hands on to vLLM's own as drafts for the proposer's `proposed`."""
    scheduler = ForcedTokenScheduler.__new__(ForcedTokenScheduler)
    scheduler.requests = requests
    scheduler.num_spec_tokens = 4
    scheduler.structured_output_manager = types.SimpleNamespace(tokenizer=_Tokenizer())  # type: ignore[assignment]
    handed: dict[str, list[int]] = {}

    def keep(self: object, drafts: DraftTokenIds) -> None:
        handed.update(zip(drafts.req_ids, drafts.draft_token_ids, strict=True))

    monkeypatch.setattr(Scheduler, "update_draft_token_ids", keep)
    scheduler.update_draft_token_ids(DraftTokenIds(list(proposed), list(proposed.values())))
    return handed


def test_forced_text_is_drafted_up_to_the_speculative_tokens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    requests = {"call": _request(_Matcher("</arg_key>")), "short": _request(_Matcher("ab"))}
    handed = _drafts(monkeypatch, requests, {"call": [7, 7], "short": []})
    assert handed == {"call": [ord(c) for c in "</ar"], "short": [ord("a"), ord("b")]}


def test_the_proposer_s_draft_stands_where_the_grammar_does_not_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    requests = {
        "choice": _request(_Matcher("")),  # the grammar allows several continuations
        "reasoning": _request(_Matcher("<tool_call>"), reasoning_ended=False),
        "done": _request(_Matcher("x", terminated=True)),
        "free": _request(None),  # no grammar at all
    }
    proposed = {"choice": [1, 2], "reasoning": [3], "done": [], "free": [4, 5, 6]}
    assert _drafts(monkeypatch, requests, proposed) == proposed
    assert _drafts(monkeypatch, {}, {"gone": [9]}) == {"gone": [9]}  # a request that has finished
