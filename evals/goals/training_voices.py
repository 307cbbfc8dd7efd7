"""Goals in the voices of people who use phones, written for training: what the rewording
lexicon (`evals.goal_rewording`) cannot teach, because it only swaps words inside the tasks'
own sentences.

Twelve formal phrasings a task taught the model the tasks, not the ways people ask for them.
These voices are whole sentences of other shapes: terse lower-case commands, texting shorthand,
requests with the reason for them, the app first or never named, the outcome wished, questions,
times and dates written as people write them (through `evals.goals.views`), rows of values as
lists. They were written from scratch for this set, per app (`voices/*.json`, each a map from a
task's name to its format strings), from the tasks' parameters and checks, without reading the
validation or test split's goals; a test checks that no voice says one of those goals or shares
a run of six words with one, nor with its task's held-out phrasing.

`eval --export-demos --voices SHARE` plays a share of the training episodes under a voice
(`evals.demos`); nothing else reads them.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path

from evals.goals import views

VOICES_DIR = Path(__file__).with_name("voices")


@functools.cache
def voices() -> Mapping[str, tuple[str, ...]]:
    """Task name -> its voices' format strings, from every file of `VOICES_DIR`."""
    table: dict[str, tuple[str, ...]] = {}
    for path in sorted(VOICES_DIR.glob("*.json")):
        for task, texts in json.loads(path.read_text(encoding="utf-8")).items():
            if task in table:
                raise ValueError(f"{path.name}: {task} has voices in another file too")
            table[task] = tuple(texts)
    return table


def voiced_goal(task_name: str, seed: int, voice: int) -> str:
    """Voice number `voice` of the task, rendered with the parameters of `seed`."""
    return views.render(task_name, voices()[task_name][voice], seed, {})
