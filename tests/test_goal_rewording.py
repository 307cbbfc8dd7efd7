"""Reworded goals in demonstrations: more ways to say a training goal, none a held-out one."""

from __future__ import annotations

import random
import re

from evals.goal_rewording import REQUESTS, SYNONYMS, reword, training_goal_template
from simulator.tasks import TASKS, TASKS_BY_NAME

TRAINING_TEMPLATES = [task.templates[i] for task in TASKS for i in task.training_phrasings]


def kept_verbatim(template: str) -> list[str]:
    return re.findall(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”", template)


def test_every_group_of_the_lexicon_rewords_some_training_goal() -> None:
    # A group no training phrasing uses would never come into a demonstration.
    training_text = "\n".join(TRAINING_TEMPLATES)
    for group in SYNONYMS:
        assert any(
            re.search(rf"\b{re.escape(phrase)}\b", training_text, re.IGNORECASE) for phrase in group
        ), group


def test_parameters_and_quoted_text_are_never_reworded() -> None:
    for template in TRAINING_TEMPLATES:
        for seed in range(5):
            reworded = reword(template, random.Random(seed))
            assert kept_verbatim(reworded) == kept_verbatim(template), template


def test_no_rewording_says_a_held_out_template() -> None:
    for task in TASKS:
        held_out = task.templates[task.held_out_phrasing].casefold().rstrip(".")
        for phrasing in task.training_phrasings:
            for seed in range(40):
                chosen = training_goal_template(task, phrasing, random.Random(seed))
                assert held_out not in chosen.casefold(), (task.name, chosen)
    # "Enable WLAN." is held out, so "Please enable WLAN." is never a training goal
    wifi = TASKS_BY_NAME["SystemWifiTurnOn"]
    said = {training_goal_template(wifi, 0, random.Random(seed)) for seed in range(400)}
    assert not any("enable wlan" in wording.casefold() for wording in said)


def test_a_goal_is_said_several_ways_and_keeps_its_subject() -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    wordings = {training_goal_template(task, 0, random.Random(seed)) for seed in range(200)}
    assert {
        "Turn on Wi-Fi.",
        "Switch on WLAN.",
        "Activate Wi-Fi.",
        "Please turn on WLAN.",
        "Turn on Wi-Fi, please.",
        "Kindly enable Wi-Fi.",
    } <= wordings
    assert all(re.search(r"\b(Wi-Fi|WLAN)\b", wording) for wording in wordings)
    # a name keeps its case wherever it comes in; a common phrase is capitalized only first
    battery = TASKS_BY_NAME["SystemBatterySaverTurnOn"]
    said = {training_goal_template(battery, 0, random.Random(seed)) for seed in range(200)}
    assert "Turn on power-saving mode." in said
    assert not any("Power-saving" in wording for wording in said)


def test_only_a_one_sentence_instruction_is_put_in_a_request() -> None:
    frames = [re.escape(request).replace(r"\{\}", "(.+)") for request in REQUESTS]

    def is_request(text: str) -> bool:
        return any(re.fullmatch(frame, text, re.DOTALL) for frame in frames)

    # a phrasing that already reads as a request ("Could you ...?") is left out: its own
    # words made it one, not a frame
    for template in (t for t in TRAINING_TEMPLATES if not is_request(t)):
        for seed in range(20):
            reworded = reword(template, random.Random(seed))
            if is_request(reworded):
                assert "?" not in template and template.count(".") <= 1, (template, reworded)
