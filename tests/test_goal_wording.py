"""Reworded goals in demonstrations: more ways to say a training goal, none of a held-out one."""

from __future__ import annotations

import random
import re

from evals.goal_wording import SYNONYMS, reword, training_goal_template
from simulator.tasks import TASKS, TASKS_BY_NAME

TRAINING_TEMPLATES = [task.templates[i] for task in TASKS for i in task.training_phrasings]


def kept_verbatim(template: str) -> list[str]:
    return re.findall(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”", template)


def test_every_phrase_a_rewording_brings_in_is_already_in_a_training_phrasing() -> None:
    # Otherwise rewordings would teach words that only the held-out phrasings use.
    training_text = "\n".join(TRAINING_TEMPLATES)
    for group in SYNONYMS:
        for phrase in group:
            pattern = rf"\b{re.escape(phrase)}\b"
            assert re.search(pattern, training_text, re.IGNORECASE), phrase


def test_parameters_and_quoted_text_are_never_reworded() -> None:
    for template in TRAINING_TEMPLATES:
        for seed in range(5):
            reworded = reword(template, random.Random(seed))
            assert kept_verbatim(reworded) == kept_verbatim(template), template


def test_no_rewording_is_a_held_out_template() -> None:
    for task in TASKS:
        held_out = task.templates[task.held_out_phrasing].casefold().rstrip(".")
        for phrasing in task.training_phrasings:
            for seed in range(40):
                chosen = training_goal_template(task, phrasing, random.Random(seed))
                assert chosen.casefold().rstrip(".") != held_out, (task.name, chosen)


def test_a_goal_is_said_several_ways_and_keeps_its_subject() -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    wordings = {training_goal_template(task, 0, random.Random(seed)) for seed in range(60)}
    assert len(wordings) >= 4
    assert {"Turn on Wi-Fi.", "Switch on Wi-Fi.", "Enable Wi-Fi."} <= wordings
    assert all("Wi-Fi" in wording for wording in wordings)
