"""The training voices: every one renders for its task, none says or paraphrases a goal an
evaluation keeps from training (the held-out phrasing, both splits' goals in other people's
words), and the oracle solves each through the guarded loop."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from pathlib import Path

import pytest

from evals.demos import plan_demo_episodes
from evals.goals import others_words, others_words_validation
from evals.goals.training_voices import voiced_goal, voices
from evals.policies import PolicySpec
from evals.runner import EvalSettings, GivenGoal, Run, Runner
from evals.splits import DEVELOPMENT_SEEDS, TEST_SEEDS, VALIDATION_SEEDS, leaked_goal
from simulator.tasks import TASKS, TASKS_BY_NAME

# Eight were written a task; those that said or paraphrased a kept goal were dropped.
FEWEST_VOICES = 6
# A run this long shared with a kept goal's sentence would make the voice a paraphrase of it.
_LONGEST_SHARED_RUN = 5


def _sentences(template: str) -> list[tuple[str, ...]]:
    """The template's sentences as words, its fields left out (a run of them is no wording)."""
    without_fields = re.sub(r"\{[^{}]*\}", " ", template).casefold()
    pieces = re.split(r"(?<=[.?!:;\n])\s*", without_fields)
    return [words for piece in pieces if (words := tuple(re.findall(r"[\w'-]+", piece)))]


def _longest_shared_run(template: str, other: str) -> int:
    return max(
        (
            SequenceMatcher(None, mine, theirs, autojunk=False).find_longest_match().size
            for mine in _sentences(template)
            for theirs in _sentences(other)
        ),
        default=0,
    )


def test_every_task_has_its_voices_and_only_tasks_have_them() -> None:
    table = voices()
    assert set(table) <= set(TASKS_BY_NAME), set(table) - set(TASKS_BY_NAME)
    assert set(table) == {task.name for task in TASKS}, {t.name for t in TASKS} - set(table)
    short = {name: len(texts) for name, texts in table.items() if len(texts) < FEWEST_VOICES}
    assert not short
    repeated = {name for name, texts in table.items() if len(set(texts)) != len(texts)}
    assert not repeated


@pytest.mark.parametrize("name", sorted(voices()))
def test_a_voice_renders_every_value_on_any_seed(name: str) -> None:
    for voice, template in enumerate(voices()[name]):
        for seed in (100, 101, 357, 4_608):
            goal = voiced_goal(name, seed, voice)
            assert "{" not in goal and "}" not in goal, (name, template)
            assert 0 < len(goal) <= 400, (name, goal)


@pytest.mark.parametrize("name", sorted(voices()))
def test_no_voice_says_or_paraphrases_a_goal_kept_from_training(name: str) -> None:
    task = TASKS_BY_NAME[name]
    kept_templates = [
        task.templates[task.held_out_phrasing],
        *others_words.PHRASINGS.get(name, ()),
        *others_words_validation.PHRASINGS.get(name, ()),
    ]
    for voice, template in enumerate(voices()[name]):
        for seed in (*VALIDATION_SEEDS, *TEST_SEEDS, *DEVELOPMENT_SEEDS):
            assert leaked_goal(task, seed, voiced_goal(name, seed, voice)) is None, template
        for kept in kept_templates:
            assert _longest_shared_run(template, kept) <= _LONGEST_SHARED_RUN, (template, kept)


def test_an_export_says_voices_for_the_share_asked_and_never_for_none() -> None:
    tasks = [TASKS_BY_NAME["SystemWifiTurnOn"], TASKS_BY_NAME["ClockAlarmAdd"]]
    seeds = range(100, 300)
    plain = plan_demo_episodes(tasks, seeds, detours=True)
    assert all(episode.voice is None for episode in plain)
    voiced = plan_demo_episodes(tasks, seeds, detours=True, voices_share=0.4)
    said = [episode for episode in voiced if episode.voice is not None]
    assert 0.3 < len(said) / len(voiced) < 0.5
    # every voice of a task comes up, and the goal is the voice, not the phrasing
    assert {episode.voice for episode in said if episode.task.name == "ClockAlarmAdd"} == set(
        range(len(voices()["ClockAlarmAdd"]))
    )
    for episode in said[:20]:
        assert episode.voice is not None
        assert episode.goal == voiced_goal(episode.task.name, episode.seed, episode.voice)
    # the same seeds without voices keep their phrasings and rewordings
    assert [(e.phrasing, e.reworded) for e in plain] == [(e.phrasing, e.reworded) for e in voiced]


@pytest.mark.parametrize(
    ("name", "voice"),
    [
        # one voice a task in the quick loop; every one of them in the full suite
        pytest.param(name, voice, marks=() if voice == 0 else pytest.mark.slow)
        for name, texts in sorted(voices().items())
        for voice in range(len(texts))
    ],
)
def test_the_oracle_solves_every_voice_through_the_guarded_loop(
    name: str, voice: int, tmp_path: Path
) -> None:
    # A voice the loop misreads records no demonstration; the same misreading would turn a
    # true claim down for any model given such words.
    task, seed = TASKS_BY_NAME[name], 4_608 + voice
    given = GivenGoal(task, seed, voiced_goal(name, seed, voice), "voices")
    outcome = Runner(tmp_path, EvalSettings()).run(
        Run(task, seed, PolicySpec(kind="oracle"), True, given=given)
    )
    assert outcome.error is None, outcome.error
    assert outcome.stop_reason == "completed", (given.text, outcome.detail)
    assert outcome.refused_completions == 0
    assert outcome.success and outcome.side_effects == []
