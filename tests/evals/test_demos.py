"""`eval --export-demos`: oracle decisions recorded as the requests the agent really sends."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent import prompt
from agent.loop import RunSettings, run_episode
from agent.model_client import ClientSettings, ModelClient
from evals.demos import (
    DemoEpisode,
    DemoSplitError,
    check_split,
    export_demos,
    is_held_out,
    plan_demo_episodes,
    record_episode,
)
from evals.runner import goal_confirmation
from evals.scripted_model import ScriptedServer, call
from evals.splits import leaked_goal, others_words
from simulator import Simulator
from simulator.tasks import TASKS, TASKS_BY_NAME, Task


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def listed(line: dict[str, Any]) -> list[tuple[int, str]]:
    """The (index, label) of each element the line's screen lists, in order."""
    screen = str(line["messages"][-1]["content"])
    found = re.findall(r"^\[(\d+)\] \w+ \"([^\"]*)\"", screen, re.MULTILINE)
    return [(int(index), label) for index, label in found]


def tapped_index(line: dict[str, Any]) -> int:
    index: int = json.loads(line["target"]["tool_calls"][0]["function"]["arguments"])["index"]
    return index


def states_goal(line: dict[str, Any], goal: str) -> bool:
    """The user turn opens with this goal (a goal may span several lines)."""
    return str(line["messages"][-1]["content"]).startswith(f"Goal: {goal}\n\n")


@pytest.mark.parametrize("thinking", [True, False])
def test_each_line_is_the_request_the_model_client_sends(tmp_path: Path, thinking: bool) -> None:
    task = TASKS_BY_NAME["SystemBluetoothTurnOn"]
    path = tmp_path / "demos.jsonl"
    episode = DemoEpisode(task, seed=100, phrasing=1, thinking=thinking)
    export_demos([episode], path)
    lines = read_lines(path)
    # the guards end the run once the goal shows reached, so the last planned steps may not run
    assert 0 < len(lines) <= len(task.oracle(100))

    # The same episode with the model client against a server that answers with the targets.
    replies = [
        call(c["name"], **json.loads(c["arguments"]))
        for c in (line["target"]["tool_calls"][0]["function"] for line in lines)
    ]
    with ScriptedServer(replies) as server:
        client = ModelClient(ClientSettings(base_url=server.base_url, thinking=thinking))
        result = run_episode(
            episode.goal,
            Simulator(state=task.initial_state(100), seed=100),
            client,
            RunSettings(max_steps=task.max_steps),
            tmp_path / "replayed.jsonl",
            confirm=goal_confirmation(episode.goal),
            sleep=lambda seconds: None,
        )
        client.close()
        sent = [request.body for request in server.chat_requests]
    assert result.stop_reason == "completed"
    assert [body["messages"] for body in sent] == [line["messages"] for line in lines]
    assert [body["tools"] for body in sent] == [line["tools"] for line in lines]
    assert [body["chat_template_kwargs"] for body in sent] == [
        line["chat_template_kwargs"] for line in lines
    ]
    assert all(line["target"]["role"] == "assistant" for line in lines)


@pytest.mark.parametrize("thinking", [True, False])
def test_thinking_names_the_row_before_the_call_picks_its_index(
    tmp_path: Path, thinking: bool
) -> None:
    """With thinking on, the target's reasoning names the element by the goal's words (the
    task's title beside a row's "complete box"), and the call taps that row's box; a request
    with thinking off is answered at once."""
    task = TASKS_BY_NAME["TasksCompleteTask"]
    path = tmp_path / "demos.jsonl"
    export_demos([DemoEpisode(task, seed=100, phrasing=0, thinking=thinking)], path)
    lines = read_lines(path)
    if not thinking:
        assert all("reasoning_content" not in line["target"] for line in lines)
        return
    title = task.params(100)["title"]
    assert [line["target"]["reasoning_content"] for line in lines] == [
        "Open Tasks.",
        f'Tap "complete box" by "{title}".',
        "The goal is reached.",
    ]
    shown = listed(lines[1])
    position = [index for index, _ in shown].index(tapped_index(lines[1]))
    assert shown[position][1] == "complete box"
    assert shown[position - 1][1] == title  # the row's title comes right before its box


@pytest.mark.parametrize("task", TASKS[::4], ids=lambda task: task.name)
def test_every_tap_s_reasoning_names_the_element_it_taps(task: Task, tmp_path: Path) -> None:
    """From a detour too (going back, looking further down a page), the sentence before a tap
    or long press quotes words of the label of the element the call acts on."""
    lines = record_episode(DemoEpisode(task, 100, 0, thinking=True, detour=True), tmp_path)
    assert lines is not None
    for line in lines:
        if line["target"]["tool_calls"][0]["function"]["name"] not in ("tap", "long_press"):
            continue
        reasoning = line["target"]["reasoning_content"]
        label = dict(listed(line))[tapped_index(line)].casefold()
        named = re.match(r'(?:Tap|Long-press) "([^"]*)"', reasoning)
        assert named is not None, reasoning
        target = named.group(1).casefold()
        # a long label is cut short on screen: then the target starts with what it shows
        cut = label.endswith("…") and target.startswith(label.removesuffix("…"))
        assert target in label or cut, (reasoning, label)


def test_training_file_holds_no_held_out_task_seed_or_phrasing(tmp_path: Path) -> None:
    tasks = TASKS[::6]
    seeds = range(100, 106)
    path = tmp_path / "demos.jsonl.gz"
    summary = export_demos(plan_demo_episodes(tasks, seeds), path)
    assert summary.decisions > 0

    import gzip

    with gzip.open(path, "rt", encoding="utf-8") as file:
        lines = [json.loads(line) for line in file]
    by_name = {task.name: task for task in tasks}
    for line in lines:
        task = by_name[line["task"]]
        assert not is_held_out(task, line["seed"], line["phrasing"]), line["task"]
        episode = DemoEpisode(
            task,
            line["seed"],
            line["phrasing"],
            thinking=True,
            detour=line["source"] == "detour",
            reworded=line["reworded"],
        )
        assert states_goal(line, episode.goal) and line["goal"] == episode.goal
        # The held-out wording never reaches training, whichever seed it would come with, nor
        # does a goal in either split's others' words in any case or politeness.
        assert not any(states_goal(line, task.goal(seed, task.held_out_phrasing)) for seed in seeds)
        assert leaked_goal(task, line["seed"], line["goal"]) is None
    # both thinking modes, plain and reworded goals are represented
    assert {line["chat_template_kwargs"]["enable_thinking"] for line in lines} == {True, False}
    assert {line["reworded"] for line in lines} == {True, False}


def test_a_goal_saying_a_held_out_goal_or_others_words_is_refused_in_any_case_or_politeness(
    tmp_path: Path,
) -> None:
    """A training phrasing that says the held-out one with a prefix or in another case, or says
    a goal of the validation or the test split's others' words, is refused like a held-out
    phrasing."""
    wifi = TASKS_BY_NAME["SystemWifiTurnOn"]
    prefixed = replace(wifi, templates=("Please ENABLE wlan!", *wifi.templates[1:]))
    with pytest.raises(DemoSplitError, match="held out"):
        export_demos([DemoEpisode(prefixed, 100, 0, thinking=True)], tmp_path / "demos.jsonl")
    assert not (tmp_path / "demos.jsonl").exists()

    off = TASKS_BY_NAME["SystemWifiTurnOff"]
    for split in ("validation", "test"):
        kept = next(g.text for g in others_words(split) if g.task.name == off.name)
        worded = replace(off, templates=(f"{kept.upper()}, thanks.", *off.templates[1:]))
        with pytest.raises(DemoSplitError, match="held out"):
            check_split([DemoEpisode(worded, 100, 0, thinking=False)])
    check_split([DemoEpisode(off, 100, 0, thinking=False)])


def test_no_exported_episode_says_a_held_out_goal_or_others_words() -> None:
    """Every goal an export of training seeds plans, rewordings and detours included, keeps
    clear of the held-out phrasings and of both splits' others' words: no export is refused
    for it."""
    check_split(plan_demo_episodes(TASKS, range(100, 200), detours=True))


def test_held_out_seeds_and_phrasings_are_refused(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    with pytest.raises(DemoSplitError, match="held out"):
        plan_demo_episodes([task], [100, 99])
    held = DemoEpisode(task, seed=100, phrasing=task.held_out_phrasing, thinking=True)
    with pytest.raises(DemoSplitError, match="held out"):
        export_demos([held], tmp_path / "demos.jsonl")
    assert not (tmp_path / "demos.jsonl").exists()


def test_repeated_decisions_are_all_written_in_order_by_any_number_of_workers(
    tmp_path: Path,
) -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]  # no parameters: every seed plays the same
    one = export_demos([DemoEpisode(task, 100, 0, thinking=True)], tmp_path / "one.jsonl")
    episodes = [DemoEpisode(task, seed, 0, thinking=True) for seed in range(100, 103)]
    summary = export_demos(episodes, tmp_path / "demos.jsonl", workers=2)
    assert one.decisions > 0
    assert (summary.decisions, summary.distinct) == (3 * one.decisions, one.decisions)
    requests = [line["messages"] for line in read_lines(tmp_path / "demos.jsonl")]
    assert requests == 3 * [line["messages"] for line in read_lines(tmp_path / "one.jsonl")]


def test_a_thinking_mode_asked_for_holds_for_detours_too() -> None:
    """`--demo-thinking off` must give a file with no thinking in it, detours included; only
    `mixed` gives a detour the other mode than its task and seed's start."""
    tasks = [TASKS_BY_NAME["SystemWifiTurnOn"], TASKS_BY_NAME["ClockAlarmAdd"]]
    for mode, wanted in (("off", {False}), ("on", {True})):
        episodes = plan_demo_episodes(tasks, range(100, 104), mode, detours=True)
        assert {e.thinking for e in episodes} == wanted
    mixed = plan_demo_episodes(tasks, range(100, 104), "mixed", detours=True)
    starts, detours = mixed[::2], mixed[1::2]
    assert all(d.detour and d.thinking != s.thinking for s, d in zip(starts, detours, strict=True))


def test_detour_episodes_show_the_way_back(tmp_path: Path) -> None:
    tasks = [TASKS_BY_NAME["SystemWifiTurnOn"], TASKS_BY_NAME["ClockAlarmAdd"]]
    episodes = plan_demo_episodes(tasks, range(100, 103), "on", detours=True)
    assert [e.detour for e in episodes] == [False, True] * 6
    summary = export_demos(episodes, tmp_path / "demos.jsonl")
    assert not summary.failed_episodes
    lines = read_lines(tmp_path / "demos.jsonl")
    detoured = [line for line in lines if line["source"] == "detour"]
    assert detoured and {line["source"] for line in lines} == {"plan", "detour"}
    # a detour starts away from the task's own start (same goal: the seed picks the phrasing)
    firsts = {
        (line["task"], line["seed"], line["source"]): line["messages"][-1]["content"]
        for line in lines
        if line["step"] == 1
    }
    for (name, seed, source), turn in firsts.items():
        if source == "detour":
            assert turn != firsts[(name, seed, "plan")]


def test_the_export_command_writes_training_seeds_and_refuses_held_out_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent.cli import main

    path = tmp_path / "demos.jsonl"
    export = ["eval", "--suite", "sim", "--policy", "oracle", "--tasks", "SystemWifiTurnOn"]
    assert main([*export, "--export-demos", str(path), "--demo-seeds", "100-101"]) == 0
    lines = read_lines(path)
    assert {line["seed"] for line in lines} == {100, 101}
    assert "decisions" in capsys.readouterr().out

    assert main([*export, "--export-demos", str(path), "--demo-seeds", "99-100"]) == 2
    assert "held out" in capsys.readouterr().err
    assert main(["eval", "--policy", "faulty:loops", "--export-demos", str(path)]) == 2
    assert "--policy oracle" in capsys.readouterr().err


# Tasks whose plans read a value on one screen and use it on another.
MEMORY_TASKS = [task for task in TASKS if any(step.tool == "remember" for step in task.oracle(0))]


def readable(word: str, text: str) -> bool:
    """`word` can be read off `text`: as it is, as a number written with a leading zero (an
    alarm's hour typed "04"), or as the start of a word the screen cut short ("Reimbursabl…")."""
    if word in text or (word.isdigit() and str(int(word)) in re.findall(r"\d+", text)):
        return True
    return any(word.startswith(cut[:-1]) for cut in re.findall(r"\S{3,}…", text))


def typed_values(target: dict[str, Any]) -> list[str]:
    arguments = [json.loads(call["function"]["arguments"]) for call in target["tool_calls"]]
    return [a[key] for a in arguments for key in ("text", "answer") if a.get(key)]


def test_every_task_that_carries_a_value_between_screens_writes_it_down() -> None:
    assert {task.name for task in MEMORY_TASKS} == {
        "ClockAlarmFromSms",
        "ContactsAddContactFromSms",
        "ExpenseAddMultipleFromMarkor",
        "RecipeAddMultipleRecipesFromMarkor",
        "SimpleCalendarAddEventWithContactNumber",
        "SimpleSmsSendContactNumber",
        "SimpleSmsSendEventTime",
        "SimpleSmsSendReceivedAddress",
        "TasksHighPriorityTasks",  # the list hides priorities: each task's page shows its own
        "TasksHighPriorityTasksDueOnDate",
    }


@pytest.mark.parametrize("task", MEMORY_TASKS, ids=lambda task: task.name)
def test_a_value_read_on_another_screen_is_remembered_before_it_is_typed(
    tmp_path: Path, task: Any
) -> None:
    for seed, detour in ((100, False), (101, True)):
        lines = record_episode(DemoEpisode(task, seed, 0, thinking=False, detour=detour), tmp_path)
        assert lines is not None
        notes = [line for line in lines if line["target"]["content"]]
        assert notes, "the oracle never wrote a value down"
        for line in notes:
            user = line["messages"][-1]["content"]
            screen = user.rpartition("Screen:\n")[2]
            for note in prompt.split_remembered(line["target"]["content"])[0]:
                assert all(readable(word, screen) for word in note.split()[-2:]), (note, screen)
        for line in lines:
            user = line["messages"][-1]["content"]
            for value in typed_values(line["target"]):
                # an answer lists titles with ", " between them
                words = value.replace(", ", " ").split()
                unread = [word for word in words if not readable(word, user)]
                assert not unread, (task.name, value, user)


LISTED_ANSWERS = [
    "TasksDueOnDate",
    "TasksHighPriorityTasks",
    "TasksCompletedTasksForDate",
    "TasksIncompleteTasksOnDate",
]


@pytest.mark.parametrize("name", LISTED_ANSWERS)
def test_an_answer_read_off_a_list_names_its_titles_top_to_bottom(
    tmp_path: Path, name: str
) -> None:
    # An order the screen does not show cannot be learnt: the model would be taught to guess.
    for seed in range(100, 106):
        lines = record_episode(DemoEpisode(TASKS_BY_NAME[name], seed, 0, thinking=False), tmp_path)
        assert lines is not None
        last = lines[-1]
        answer = json.loads(last["target"]["tool_calls"][0]["function"]["arguments"])["answer"]
        screen = last["messages"][-1]["content"].rpartition("Screen:\n")[2]
        places = [screen.index(f'"{title}"') for title in answer.split(", ")]
        assert places == sorted(places), (answer, screen)
