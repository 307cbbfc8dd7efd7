"""Guards: checks around every model decision that turn known failure modes into finished tasks
or clean, explained stops. Each one leaves a GuardNote (kind + reason) in the trajectory.

- goal state: goals like "turn on Wi-Fi" name a switch and the state asked for; a compound
  goal ("turn off WLAN, then enable Bluetooth") names one per part, and a switch goes by the
  names phones give it (all read in `agent.goal_switches`). For each part the guards
  remember whether a screen showed its switch in the asked state, and whether a later screen
  showed it changed back. A tap that would flip a part's switch out of its asked state is
  blocked. Once every part of a goal read in full is shown as asked, that tap, or the agent's
  own action putting the last part in its asked state, completes the task.
- completion check: a `task_complete(success=true)` is refused, each time it is made, while a
  part was never shown in its asked state or was changed back since, and the model is told
  which part (the step budget bounds the retries). A part whose switch is not one every phone
  has counts only once a screen showed that switch, since a goal may call a switch what a
  phone does otherwise ("enable developer options" is seven taps on Build number). Goals
  read only in part ("turn on Wi-Fi, then open Clock") are checked on the parts read; goals
  not read at all are accepted as claimed. Counts ("delete 3 expenses") are not checked: a
  list seen in pieces, scrolled and with look-alike rows, does not tell how many went. But a
  goal that deletes items it names ("Delete the task Book flights to Osaka"), or every note,
  is refused, each time, while the screen of the claim still lists one of them by its exact title
  (`agent.goal_items`); small models delete the neighbouring row and call it done. A goal that
  marks named to-dos done is refused the same way while the screen lists one as open; a
  text, file name, amount of money or phone number the goal gives must have been on some
  screen, and a file's or folder's name outside a text field (a new name typed into a rename
  box and cancelled names no file); a goal that sends a message needs a Send button pressed;
  a goal that asks the stopwatch running or stopped needs its page last shown so
  (`agent.goal_stopwatch`); and a goal that asks a question or for a value ("How much ...?",
  "Find the number saved for ...") is refused, each time, while the claim carries no answer.
  A goal that deletes copies ("delete the duplicate recipes") is refused while the screen of
  the claim lists an item twice, word for word. A switch may be named with the words around
  it in any order ("the alarm set for 7:33 AM" is the "7:33 AM alarm" switch).
- every switch of a kind: a goal that asks every switch of a kind in one state ("turn off all
  my alarms") has its claim refused, every time, while a switch of that kind (its label holds
  the word) was last shown in the other state.
- off-goal switches: when a goal names some of the switches every phone has (by any of their
  names, in any sentence: "wifi's off, put it back on"), a tap on another of them (Auto-rotate)
  is blocked and the model told which switches the goal is about: small models answer a
  switch they cannot find with the nearest one, and a goal that is already met with a change
  of something else. Reading the asked state is not needed for this, only the names. For the
  same reason, a claim of success made after screens showed some of the phone's switches but
  none the goal names goes back to the model once, asking it to look.
- self-undo: flipping a switch back to the state the agent itself changed it away from is
  blocked; trying again stops the run (`undo_detected`).
- repetition: the same action on the same screen again (which also catches A-B-A-B cycles),
  or a streak of actions that changed nothing, first escalates (a hint, thinking on for the
  next step), and stops the run (`stuck`) the next time. One kind of repetition is deliberate
  rather than a loop: the same tap again and again, with nothing run in between, on a control
  that takes taps (clickable and enabled). Apps answer such taps with toasts and counters that
  a uiautomator dump never shows ("tap Build number" unlocks developer options on the seventh
  tap, with only a toast on the way), so an unchanged screen proves nothing there. Such a run
  is allowed up to `max_tap_run` taps, or up to the count the goal states ("3 times", "twice")
  when that is more; a stated count also allows that many of any other action in a row. A
  run counts as one action that changed nothing. Anything else repeated on an unchanged screen
  (a tap on a title, a key, a swipe, a back-and-forth cycle, a run past its bound) is handled
  as a loop, as before. Work done item by item shows the same screens for each item (a
  "Delete this recipe?" dialog dumps the same whichever recipe it is about), while the list it
  returns to has changed. So an action counts as repeated only when no screen the episode had
  not shown before came up since it was tried: a back-and-forth between two pages is caught
  on its second round, when both pages are known.
- answers: a `task_complete` answer that no screen of the episode showed (nor the goal) is
  pushed back once: small models answer a question as soon as the app opens, with a value
  made up or read from the wrong row. An answer may be worked out rather than read (a yes or
  no, and a bare number where the goal asks a count or a sum), so the same answer again is
  accepted. Each part of a list answer ("A, B and C") is looked for on its own, word for
  word, ignoring case and punctuation. An answer that the screen shows only in a row beside
  the one the goal names ("Fundraising Events 7" for "Fundraising Events 5") is pushed back
  once too.
- named files and people: where a screen lists a file the goal names ("meal_plan_work.md"),
  opening or selecting another file's row is blocked, each time, and the model told the named
  file's index: small models open the note beside the named one and edit that. Folders and
  other rows are not judged. For a goal that sends a message, the same holds for list rows
  (conversations) the goal mentions anywhere, as the person written to or the one whose
  message is read.
- made-up values: typing a file name or a phone number that neither the goal nor any screen
  of the episode gave is blocked, each time, and the model told to find it first: small
  models type a number "from Bob's last text" without opening it, or give a note they only
  edit a new name.
- risky actions: a target label or typed text with words like pay, delete, send or reset
  needs confirmation; without one the action is refused and the model is told.
- bad calls: an unusable reply goes back to the model with the reason; a few in a row stop the
  run (`model_error`).

Labels that change with state. A settings row is labelled with its title and summary joined by
", " ("Dark theme, Will never turn on automatically"), and the summary often follows the
switch ("... turn off automatically" once it is on). Goal subjects are therefore matched on the
label's title, and the self-undo guard knows a switch by its role and title. Where the title
ends is not marked: a title may hold ", " itself, so a goal subject may match any leading run of
the label's comma-separated pieces, and a switch is known by the first piece, which stays put
whatever the summary says.

`PassThroughGuards` has the same methods and lets everything through, for measuring what the
guards do (`RunSettings.guards=False`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from agent import prompt
from agent.actions import Action, LongPress, Tap, TaskComplete, TypeText, Wait, tool_name
from agent.goal_items import (
    answer_row_mismatch,
    asks_for_answer,
    asks_for_count,
    asks_for_phone_number,
    asks_to_send,
    copies_listed,
    deletes_items,
    holds_phone_number,
    is_item_row,
    item_titles,
    made_up_values,
    named_files,
    named_files_beside,
    named_rows_beside,
    padded_words,
    removal_shown,
    runaway_text,
    still_open,
    unlisted_names,
    unshown_durations,
    unshown_quotes,
    unshown_times,
)
from agent.goal_stopwatch import stopwatch_running, stopwatch_wish
from agent.goal_switches import (
    GoalTarget,
    every_switch,
    goal_parts,
    known_switch,
    label_title,
    named_switches,
    normalize_name,
)
from agent.screen import Element, Screen
from agent.trajectory import GuardKind, GuardNote, StopReason, Verdict

# Asks a person whether to go ahead with a risky action described in one line.
Confirm = Callable[[str], bool]
# Rows of a screen by title and index.
_Rows = list[tuple[str, int]]


@dataclass
class GuardDecision:
    verdict: Verdict
    notes: list[GuardNote] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)  # what the model reads next step
    stop_reason: StopReason | None = None  # with verdict "stop"


# --- risky actions ----------------------------------------------------------------------------

RISKY_WORDS = (
    "pay",
    "buy",
    "purchase",
    "delete",
    "remove",
    "uninstall",
    "send",
    "erase",
    "reset",
    "format",
    "factory",
)
# a control that sends what was written: "Send", "Send SMS", "Send message"
_SEND_BUTTON = re.compile(r"^\s*send\b", re.IGNORECASE)
_RISKY = re.compile(rf"\b({'|'.join(RISKY_WORDS)})\w*", re.IGNORECASE)
# the risky words that take an item away
_DELETION = re.compile(r"(?:delet|remov|eras)\w*", re.IGNORECASE)


def risky_word(action: Action, target: Element | None) -> str | None:
    """The risky word in the target's label (or the typed text), if any."""
    texts: list[str] = []
    if isinstance(action, Tap | LongPress | TypeText) and target is not None:
        texts.append(target.label)
    if isinstance(action, TypeText):
        texts.append(action.text)
    for text in texts:
        found = _RISKY.search(text)
        if found:
            return found.group(0)
    return None


# --- deliberate repetition ---------------------------------------------------------------------

DEFAULT_TAP_RUN = 7  # Build number, Android's best-known tap counter, needs seven taps
_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}
_TIMES = rf"(?P<number>\d{{1,3}}|{'|'.join(_NUMBER_WORDS)})\s+times"
_COUNT = re.compile(rf"\b(?:{_TIMES}|(?P<word>{'|'.join(_TIMES_WORDS)}))\b", re.IGNORECASE)


def goal_count(goal: str) -> int | None:
    """How many times the goal asks for something to be done ("7 times", "twice"), if it says;
    the largest such count when it says several."""
    counts = []
    for found in _COUNT.finditer(goal):
        if found["word"]:
            counts.append(_TIMES_WORDS[found["word"].casefold()])
        else:
            number = found["number"].casefold()
            counts.append(int(number) if number.isdigit() else _NUMBER_WORDS[number])
    return max(counts, default=None)


@dataclass(frozen=True)
class _Run:
    """The same action run again and again on one unchanged screen, nothing else in between."""

    key: tuple[str, str]  # screen signature, action
    length: int


# --- the guard state machine ------------------------------------------------------------------


class EpisodeGuards(Protocol):
    """What the loop asks of its guards: `Guards`, or `PassThroughGuards` to measure them."""

    def take_escalation(self) -> bool: ...

    def bad_call(self, message: str) -> GuardDecision: ...

    def review(self, action: Action, target: Element | None, screen: Screen) -> GuardDecision: ...

    def observe(self, action: Action, before: Screen, after: Screen) -> GuardDecision: ...

    def named_pick(self, target: Element, screen: Screen) -> Element | None: ...


@dataclass
class _Change:
    before: bool | None
    after: bool | None


@dataclass
class _PartSeen:
    """What the screens of the episode showed of one part of the goal."""

    shown: bool = False  # some screen showed the switch in the asked state
    last: bool | None = None  # the state the latest screen with the switch showed

    def saw(self, checked: bool | None, desired: bool) -> None:
        self.last = checked
        self.shown = self.shown or checked == desired


class Guards:
    """The guards' memory across the steps of one episode."""

    def __init__(
        self,
        goal: str,
        *,
        confirm: Confirm | None = None,
        max_bad_calls: int = 3,
        max_no_op_streak: int = 3,
        max_tap_run: int = DEFAULT_TAP_RUN,
    ) -> None:
        self._goal_text = goal
        self.goal = goal_parts(goal)
        self._named_switches = named_switches(goal) | {
            part.name for part in self.goal.parts if part.known
        }
        self._switches_shown: set[str] = set()  # the phone's switches any screen showed
        self._unlooked_pushed_back = False
        self._parts_seen = {part: _PartSeen() for part in self.goal.parts}
        self._every = every_switch(goal)
        self._every_last: dict[str, bool] = {}  # each switch of that kind shown: its last state
        self._every_pushed_back = False
        self._any_switch_shown = False  # of any kind, for a goal about every switch of one
        self._deletes = deletes_items(goal)
        # the titles of the rows the goal deletes, as screens listed them
        self._to_delete: set[str] = set()
        self._opened_item: str | None = None  # the label of the item row tapped last
        self._named_files = named_files(goal)
        self._sends = asks_to_send(goal)
        self._sent = False  # a send button pressed, and the screen changed
        self._stopwatch_wish = stopwatch_wish(goal)
        self._stopwatch_last: bool | None = None  # whether the stopwatch last shown was counting
        self._confirm = confirm
        self._max_bad_calls = max_bad_calls
        self._max_no_op_streak = max_no_op_streak
        self._max_tap_run = max_tap_run
        self._goal_count = goal_count(goal)
        self._bad_calls = 0
        self._no_op_streak = 0
        self._escalated = False
        self._think_next = False
        # (screen, action) tried -> the count of new screens shown by then
        self._attempted: dict[tuple[str, str], int] = {}
        self._screens_shown: set[str] = set()
        self._run: _Run | None = None
        self._agent_changes: dict[tuple[str, str], _Change] = {}
        self._undo_blocked = False
        self._answer_pushed_back = False
        self._wrong_row_pushed_back = False
        self._seen_labels: set[str] = set()  # every label shown in the episode
        self._listed_labels: set[str] = set()  # those shown outside text fields

    def take_escalation(self) -> bool:
        """True once after an escalation: the next decision should think."""
        think, self._think_next = self._think_next, False
        return think

    def bad_call(self, message: str) -> GuardDecision:
        self._bad_calls += 1
        note = GuardNote(kind="bad_call", reason=message)
        if self._bad_calls >= self._max_bad_calls:
            return GuardDecision(
                "stop",
                [note],
                stop_reason="model_error",
            )
        return GuardDecision("block", [note], [prompt.reply_not_run(message)])

    def review(self, action: Action, target: Element | None, screen: Screen) -> GuardDecision:
        """Before running an action: allow it, block it, or end the episode."""
        self._bad_calls = 0
        self._seen_labels.update(element.label for element in screen.elements)
        self._listed_labels.update(
            element.label for element in screen.elements if element.role != "input"
        )
        self._record_parts(screen)
        # the rows of this screen that the goal deletes
        to_delete = removal_shown(self._goal_text, screen) if self._deletes else []
        self._to_delete.update(to_delete)
        if isinstance(action, TaskComplete):
            return self._review_claim(action, screen)
        described = prompt.describe_action(action, screen)
        if isinstance(action, TypeText):
            made_up = made_up_values(action.text, self._goal_text, self._seen_labels)
            if made_up:
                return _blocked(
                    "made_up_value",
                    f"{_quoted(made_up)} given by neither the goal nor a screen",
                    prompt.made_up_values(made_up),
                )
            runaway = runaway_text(action.text, self._goal_text, self._seen_labels)
            if runaway is not None:
                return _blocked(
                    "made_up_value",
                    f"the text runs away at {_quoted([runaway])}, given by neither the goal "
                    "nor a screen",
                    prompt.runaway_text(runaway),
                )
        if isinstance(action, Tap) and target is not None and target.checked is not None:
            flip = self._review_flip(target, screen, described)
            if flip is not None:
                return flip
        notes: list[GuardNote] = []
        self._screens_shown.add(screen.signature)
        progress = len(self._screens_shown)
        key = (screen.signature, _action_key(action))
        if self._attempted.get(key, -1) == progress:
            in_a_row = self._run.length if self._run is not None and self._run.key == key else 0
            deliberate = 0 < in_a_row < self._run_bound(action, target)
            if not deliberate:
                self._attempted[key] = progress
                return self._escalate_or_stop(
                    GuardNote(kind="repeat", reason=f"{described} again on the same screen"),
                    prompt.repeated_action(described),
                    block=True,
                )
            notes.append(
                GuardNote(
                    kind="repeat",
                    reason=f"{described} {in_a_row + 1} times in a row: allowed as deliberate",
                )
            )
        self._attempted[key] = progress
        word = risky_word(action, target)
        if self._deletes:
            off_goal = self._review_deletion(action, target, screen, to_delete, word, described)
            if off_goal is not None:
                return off_goal
        if isinstance(action, Tap | LongPress) and target is not None and not target.selected:
            other = self._review_named_pick(target, screen, described)
            if other is not None:
                return other
        decision = GuardDecision("allow") if word is None else self._review_risky(described, word)
        decision.notes[:0] = notes
        return decision

    def observe(self, action: Action, before: Screen, after: Screen) -> GuardDecision:
        """After running an action: record what it changed; maybe complete or escalate."""
        described = prompt.describe_action(action, before)
        unchanged = before.signature == after.signature
        self._run = self._extend_run(action, before) if unchanged else None
        changes = _switch_changes(before, after)
        for key, change in changes.items():
            original = self._agent_changes.get(key)
            self._agent_changes[key] = _Change(
                original.before if original else change.before, change.after
            )
        if self._sends and isinstance(action, Tap) and not unchanged:
            self._sent |= _SEND_BUTTON.search(before.element(action.index).label) is not None
        turned = _turned_as_asked(self.goal.parts, before, after)
        self._record_parts(after)
        if turned and self._goal_reached():
            notes = [
                GuardNote(
                    kind="goal_state",
                    reason=f"{label_title(now.label)} is now {part.state_words(now.checked)} "
                    "as asked",
                )
                for part, now in turned
            ]
            return GuardDecision("complete", notes)
        if not unchanged or isinstance(action, Wait):
            self._no_op_streak = 0
            return GuardDecision("allow")
        if self._run is not None and self._run.length > 1:
            # a deliberate run that review allowed: the streak counted its first action already
            times = self._run.length
            return GuardDecision(
                "allow",
                [GuardNote(kind="no_op", reason=f"{described} changed nothing, {times} in a row")],
                [prompt.no_change_in_a_row(described, times)],
            )
        self._no_op_streak += 1
        note = GuardNote(kind="no_op", reason=f"{described} changed nothing on the screen")
        message = prompt.no_change(described, after.app)
        if self._no_op_streak < self._max_no_op_streak:
            return GuardDecision("allow", [note], [message])
        self._no_op_streak = 0
        decision = self._escalate_or_stop(
            GuardNote(
                kind="no_op",
                reason=f"{self._max_no_op_streak} actions in a row changed nothing",
            ),
            prompt.no_change_streak(self._max_no_op_streak),
            block=False,
        )
        decision.notes.insert(0, note)
        return decision

    def _run_bound(self, action: Action, target: Element | None) -> int:
        """How many of `action` in a row, on an unchanged screen, count as deliberate."""
        bound = self._goal_count or 1
        if isinstance(action, Tap) and target is not None and target.clickable and target.enabled:
            bound = max(bound, self._max_tap_run)
        return bound

    def _extend_run(self, action: Action, screen: Screen) -> _Run:
        key = (screen.signature, _action_key(action))
        if self._run is not None and self._run.key == key:
            return _Run(key, self._run.length + 1)
        return _Run(key, 1)

    def _record_parts(self, screen: Screen) -> None:
        for shown in screen.elements:
            if shown.checked is not None and (switch := known_switch(label_title(shown.label))):
                self._switches_shown.add(switch)
        for part, seen in self._parts_seen.items():
            element = part.find(screen)
            if element is not None:
                seen.saw(element.checked, part.desired)
        if self._stopwatch_wish is not None:
            running = stopwatch_running(screen)
            if running is not None:
                self._stopwatch_last = running
        if self._every is not None:
            for shown in screen.elements:
                self._any_switch_shown |= shown.checked is not None
                if self._every.matches(shown) and shown.checked is not None:
                    self._every_last[label_title(shown.label)] = shown.checked

    def _unmet(self, *, every_part: bool) -> tuple[list[GoalTarget], list[GoalTarget]]:
        """The parts of the goal no screen has shown in the asked state, and those shown so
        but changed back since. Unless `every_part`, a part counts as missing only when the
        episode can be held to show it: a switch every phone has, or one a screen showed."""
        missing: list[GoalTarget] = []
        undone: list[GoalTarget] = []
        for part, seen in self._parts_seen.items():
            if not seen.shown and (every_part or part.known or seen.last is not None):
                missing.append(part)
            elif seen.shown and seen.last != part.desired:
                undone.append(part)
        return missing, undone

    def _goal_reached(self) -> bool:
        """Whether every part of a goal read in full is shown as asked and not undone since."""
        return self.goal.complete and self._unmet(every_part=True) == ([], [])

    def _review_claim(self, action: TaskComplete, screen: Screen) -> GuardDecision:
        if not action.success:
            if self._goal_reached() and any(part.satisfied(screen) for part in self.goal.parts):
                note = GuardNote(
                    kind="completion_check",
                    reason="the model gave up, but the screen shows the goal state",
                )
                return GuardDecision("complete", [note])
            return GuardDecision("stop", stop_reason="infeasible")
        missing, undone = self._unmet(every_part=False)
        if missing or undone:
            why = [f"no screen showed {part.asked}" for part in missing] + [
                f"{part.asked} was changed back since" for part in undone
            ]
            return _refused_claim(
                "; ".join(why),
                prompt.completion_refused(
                    [part.asked for part in missing], [part.asked for part in undone]
                ),
            )
        if self._every is not None and not self._any_switch_shown and not self._every_pushed_back:
            # no switch shown yet at all: the claim goes back once, since a phone may have
            # none of that kind, and a goal read as every switch of a kind ("all
            # notifications off") may be about a switch of another name (Do Not Disturb)
            self._every_pushed_back = True
            return _blocked(
                "completion_check",
                f"no screen showed any switch, the goal asks {self._every.asked}; pushed back",
                prompt.named_switch_unseen(f"every {self._every.kind}"),
            )
        if self._every is not None:
            left = sorted(
                title
                for title, checked in self._every_last.items()
                if checked != self._every.desired
            )
            if left:
                state = "on" if self._every.desired else "off"
                return _refused_claim(
                    f"{_quoted(left)} last shown not {state}, the goal asks {self._every.asked}",
                    prompt.every_switch_unmet(left, state),
                )
        if self._stopwatch_wish is not None and self._stopwatch_last != self._stopwatch_wish:
            shown = (
                "no screen showed the stopwatch"
                if self._stopwatch_last is None
                else f"the stopwatch was last shown {_stopwatch_state(self._stopwatch_last)}"
            )
            return _refused_claim(
                f"{shown}, the goal asks it {_stopwatch_state(self._stopwatch_wish)}",
                prompt.stopwatch_unmet(self._stopwatch_wish, shown),
            )
        still_listed = removal_shown(self._goal_text, screen)
        if still_listed:
            return _refused_claim(
                f"{_quoted(still_listed)} still listed, the goal deletes it",
                prompt.still_listed(still_listed),
            )
        copies = copies_listed(self._goal_text, screen)
        if copies:
            return _refused_claim(
                f"{_quoted(copies)} still listed more than once, the goal deletes copies",
                prompt.copies_listed(copies),
            )
        open_items = still_open(self._goal_text, screen)
        if open_items:
            return _refused_claim(
                f"{_quoted(open_items)} still listed as not done, the goal marks it done",
                prompt.still_open(open_items),
            )
        unshown = unshown_quotes(self._goal_text, self._seen_labels)
        if unshown:
            return _refused_claim(
                f"no screen showed {_quoted(unshown)}, which the goal quotes",
                prompt.quote_unshown(unshown),
            )
        unlisted = unlisted_names(self._goal_text, self._listed_labels)
        if unlisted:
            return _refused_claim(
                f"no screen listed {_quoted(unlisted)}, which the goal names",
                prompt.name_unlisted(unlisted),
            )
        if self._sends and not self._sent:
            return _refused_claim(
                "no send button was pressed, the goal sends a message", prompt.message_unsent()
            )
        durations = unshown_durations(self._goal_text, self._seen_labels)
        if durations:
            return _refused_claim(
                f"no screen showed the timer at {_quoted(durations)}",
                prompt.duration_unshown(durations),
            )
        times = unshown_times(self._goal_text, self._seen_labels)
        if times:
            return _refused_claim(
                f"no screen showed {_quoted(times)}, the goal's time for an alarm",
                prompt.alarm_time_unshown(times),
            )
        if (
            self._named_switches
            and self._switches_shown
            and not self._named_switches & self._switches_shown
            and not self._unlooked_pushed_back
        ):
            # Among the phone's switches, but never at one the goal names: the claim goes back
            # once. Once only, and only when none of them was shown, because a goal may name a
            # switch in passing ("I'll use mobile data, so turn Wi-Fi off") and the asked state
            # is not read here.
            self._unlooked_pushed_back = True
            named = ", ".join(sorted(self._named_switches))
            return _blocked(
                "completion_check",
                f"no screen showed {named}, which the goal names; pushed back",
                prompt.named_switch_unseen(named),
            )
        if action.answer:
            return self._review_answer(action.answer, screen)
        if asks_for_answer(self._goal_text):
            return _refused_claim("the goal asks a question; no answer", prompt.answer_missing())
        return GuardDecision("complete")

    def _review_answer(self, answer: str, screen: Screen) -> GuardDecision:
        if asks_for_phone_number(self._goal_text) and not holds_phone_number(answer):
            return _refused_claim(
                f"the answer {json.dumps(answer, ensure_ascii=False)} holds no phone number, "
                "the goal asks for one",
                prompt.phone_number_missing(answer),
            )
        mismatch = answer_row_mismatch(self._goal_text, answer, screen)
        if mismatch is not None and not self._wrong_row_pushed_back:
            self._wrong_row_pushed_back = True
            read_from, asked_about = mismatch
            return _blocked(
                "answer_check",
                f"the answer is in the row {_quoted([read_from])}, the goal names "
                f"{_quoted([asked_about])}; pushed back",
                prompt.answer_from_other_row(answer, read_from, asked_about),
            )
        unseen = unseen_answer_parts(
            answer,
            self._seen_labels | {self._goal_text},
            counted=asks_for_count(self._goal_text),
        )
        if not unseen:
            return GuardDecision("complete")
        reason = f"the answer part {json.dumps(unseen[0], ensure_ascii=False)} was on no screen"
        if self._answer_pushed_back:
            return GuardDecision(
                "complete", [GuardNote(kind="answer_check", reason=reason + "; answered again")]
            )
        self._answer_pushed_back = True
        return _blocked("answer_check", reason + "; pushed back", prompt.answer_unseen(unseen[0]))

    def _review_flip(
        self, element: Element, screen: Screen, described: str
    ) -> GuardDecision | None:
        state = "on" if element.checked else "off"
        title = label_title(element.label)
        part = next((part for part in self.goal.parts if part.matches(element)), None)
        if part is not None:
            if element.checked != part.desired:
                return None
            self._parts_seen[part].saw(element.checked, part.desired)
            note = GuardNote(
                kind="goal_state",
                reason=f"{title} is already {state} as asked; blocked {described}",
            )
            if self._goal_reached():
                return GuardDecision("complete", [note])
            return GuardDecision(
                "block", [note], [prompt.already_as_asked(title, state, described)]
            )
        off_goal = self._review_off_goal(element, title, described)
        if off_goal is not None:
            return off_goal
        key = _element_key(element)
        change = self._agent_changes.get(key)
        if (
            change is None
            or change.before == change.after
            or element.checked != change.after
            or _checkables(screen).get(key) != element  # another switch with the same title
        ):
            return None
        reason = f"{described} would turn {title} back {'off' if element.checked else 'on'}"
        if self._undo_blocked:
            note = GuardNote(kind="self_undo", reason=reason + ", again")
            return GuardDecision("stop", [note], stop_reason="undo_detected")
        self._undo_blocked = True
        return _blocked(
            "self_undo", reason + "; blocked", prompt.undo_blocked(title, state, described)
        )

    def _review_off_goal(
        self, element: Element, title: str, described: str
    ) -> GuardDecision | None:
        """A tap on one of the phone's own switches that the goal does not name, while it
        names others: a goal about Wi-Fi never needs Auto-rotate moved, and moving it is a
        change the user did not ask for. Naming is enough, however the goal is worded."""
        switch = known_switch(title)
        if not self._named_switches or element.role != "switch" or switch is None:
            return None
        if switch in self._named_switches:
            return None
        named = ", ".join(sorted(self._named_switches))
        return _blocked(
            "off_goal",
            f"{title} is not in the goal ({named}); blocked",
            prompt.off_goal_switch(title, named, described),
        )

    def _review_deletion(
        self,
        action: Action,
        target: Element | None,
        screen: Screen,
        to_delete: list[str],
        word: str | None,
        described: str,
    ) -> GuardDecision | None:
        """For a goal that deletes named items: a pick of another item where they are listed
        (`to_delete`, by their titles on `screen`), or a deletion of another item; and the item
        row opened last, which a later deletion would remove."""
        if isinstance(action, Tap | LongPress) and target is not None:
            pick = self._review_pick(target, screen, to_delete, described)
            if pick is not None:
                return pick
        if word is not None and _DELETION.fullmatch(word):
            unasked = self._unasked_deletion(screen)
            if unasked:
                asked = sorted(self._to_delete)
                return _blocked(
                    "off_goal",
                    f"{_quoted(unasked)} picked for deletion, the goal deletes {_quoted(asked)}",
                    prompt.unasked_deletion(unasked, asked, described),
                )
        if isinstance(action, Tap) and target is not None and is_item_row(target):
            self._opened_item = target.label
        return None

    def _review_pick(
        self, target: Element, screen: Screen, listed: list[str], described: str
    ) -> GuardDecision | None:
        """A tap or long press that selects or opens an item other than the ones the goal
        deletes, while this screen lists them (`listed`): a goal that deletes named items
        never needs another one picked. Deselecting a row picked before is no pick."""
        if not is_item_row(target) or target.selected:
            return None
        if not listed or item_titles(target.label, listed):
            return None
        rows = {
            title: element.index
            for element in screen.elements
            if is_item_row(element)
            for title in item_titles(element.label, listed)
        }
        return _blocked(
            "off_goal",
            f"{_quoted([target.label])} picked, the goal deletes {_quoted(listed)} listed here",
            prompt.unasked_pick(described, [(title, rows.get(title)) for title in listed]),
        )

    def _review_named_pick(
        self, target: Element, screen: Screen, described: str
    ) -> GuardDecision | None:
        """A pick of a file the goal does not name where a screen lists one it does, or, for a
        goal that sends, of a conversation with someone the goal does not name where one it
        names is listed: small models open the row beside the named one and work there."""
        for for_what, named_here, message in self._named_rows_beside(target, screen):
            if named_here:
                return _blocked(
                    "off_goal",
                    f"{_quoted([target.label])} picked{for_what}, the goal names "
                    f"{_quoted([name for name, _ in named_here])} listed here",
                    message(described, named_here),
                )
        return None

    def _named_rows_beside(
        self, target: Element, screen: Screen
    ) -> Iterator[tuple[str, _Rows, Callable[[str, _Rows], str]]]:
        """For each kind of row the goal names (files; people, for a goal that sends), in turn:
        what the pick is for, the named rows `screen` lists beside `target`, and the message."""
        if self._named_files:
            named = named_files_beside(self._named_files, target, screen)
            yield "", named, prompt.unnamed_file_pick
        if self._sends:
            named = named_rows_beside(self._goal_text, target, screen)
            yield " for a message", named, prompt.unnamed_conversation

    def named_pick(self, target: Element, screen: Screen) -> Element | None:
        """The row a pick of `target` is meant for, where the goal names rows that `screen`
        lists and `target` is none of them: the named row nearest to it not picked yet. Small
        models tap the row beside the one the goal names, and told its index, tap the same row
        again until the run stops; the pick is the model's, the row the goal's. None where the
        goal names no such row or `target` is one."""
        if not is_item_row(target) or target.selected:
            return None
        named: list[int] = []
        if self._deletes:
            listed = removal_shown(self._goal_text, screen)
            if listed and not item_titles(target.label, listed):
                named += [
                    element.index
                    for element in screen.elements
                    if is_item_row(element) and item_titles(element.label, listed)
                ]
        for _, named_here, _ in self._named_rows_beside(target, screen):
            named += [index for _, index in named_here]
        rows = [
            element
            for element in screen.elements
            if element.index in named and not element.selected
        ]
        if not rows:
            return None
        return min(rows, key=lambda row: abs(row.center[1] - target.center[1]))

    def _unasked_deletion(self, screen: Screen) -> list[str]:
        """The items a deletion would remove that the goal does not ask to delete, by their
        rows' labels: the rows selected on `screen`, or else the item opened last. Known only
        once a screen has listed a row the goal deletes; small models pick the row beside it."""
        if not self._to_delete:
            return []
        selected = [e.label for e in screen.elements if e.selected and is_item_row(e)]
        picked = selected or ([self._opened_item] if self._opened_item else [])
        return [label for label in picked if not item_titles(label, self._to_delete)]

    def _review_risky(self, described: str, word: str) -> GuardDecision:
        if self._confirm is None:
            return _blocked(
                "risky",
                f'"{word}": refused, no confirmation possible',
                prompt.risky_unconfirmable(described, word),
            )
        if self._confirm(described):
            return GuardDecision(
                "allow", [GuardNote(kind="risky", reason=f'"{word}": confirmed by the user')]
            )
        return _blocked(
            "risky", f'"{word}": declined by the user', prompt.risky_declined(described)
        )

    def _escalate_or_stop(self, note: GuardNote, message: str, *, block: bool) -> GuardDecision:
        if self._escalated:
            return GuardDecision("stop", [note], stop_reason="stuck")
        self._escalated = True
        self._think_next = True
        escalation = GuardNote(kind="escalation", reason="hint given; thinking on for next step")
        return GuardDecision("block" if block else "allow", [note, escalation], [message])


class PassThroughGuards:
    """The guards switched off, to measure what they do: every parsed action runs, risky or not;
    a `task_complete` ends the episode as the model says; an unusable reply is not run (there is
    nothing to run) and the model is told why; nothing is ever blocked, escalated or stopped, so
    only the budgets end an episode the model does not end itself."""

    def take_escalation(self) -> bool:
        return False

    def bad_call(self, message: str) -> GuardDecision:
        note = GuardNote(kind="bad_call", reason=message)
        return GuardDecision("block", [note], [prompt.reply_not_run(message)])

    def named_pick(self, target: Element, screen: Screen) -> Element | None:
        return None

    def review(self, action: Action, target: Element | None, screen: Screen) -> GuardDecision:
        if not isinstance(action, TaskComplete):
            return GuardDecision("allow")
        if action.success:
            return GuardDecision("complete")
        return GuardDecision("stop", stop_reason="infeasible")

    def observe(self, action: Action, before: Screen, after: Screen) -> GuardDecision:
        return GuardDecision("allow")


# "A, B and C", "A; B", one per line: the parts of a list answer.
_ANSWER_PARTS = re.compile(r"[,;\n]|\band\b|&", re.IGNORECASE)
# Answers worked out rather than read off a screen: a yes or no, and a count where the goal
# asks one (`asks_for_count`).
_YES_OR_NO = re.compile(r"yes|no|true|false|none|nothing", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"\d+")


def unseen_answer_parts(answer: str, texts: Iterable[str], *, counted: bool = True) -> list[str]:
    """The parts of `answer` that none of `texts` shows word for word, apart from parts that
    are worked out rather than read: a yes or no, and a bare number while `counted` (a goal
    that asks "which tasks are due" is not answered "4" off a screen that shows no 4)."""
    shown = [padded_words(text) for text in texts]
    unseen = []
    for part in _ANSWER_PARTS.split(answer):
        words = padded_words(part).strip()
        bare = part.strip(" .!")
        if not words or _YES_OR_NO.fullmatch(bare) or (counted and _BARE_NUMBER.fullmatch(bare)):
            continue
        if not any(f" {words} " in text for text in shown):
            unseen.append(part.strip())
    return unseen


def _turned_as_asked(
    parts: Iterable[GoalTarget], before: Screen, after: Screen
) -> list[tuple[GoalTarget, Element]]:
    """The parts whose switch `before` showed out of the asked state and `after` shows in it,
    with the element that shows it."""
    turned = []
    for part in parts:
        was, now = part.find(before), part.find(after)
        if was is not None and now is not None and was.checked != now.checked == part.desired:
            turned.append((part, now))
    return turned


def _blocked(kind: GuardKind, reason: str, message: str) -> GuardDecision:
    """An action turned down: the trajectory's note says `reason`, the model reads `message`."""
    return GuardDecision("block", [GuardNote(kind=kind, reason=reason)], [message])


def _refused_claim(why: str, message: str) -> GuardDecision:
    """A success claim turned down, every time it is made."""
    return _blocked("completion_check", f"{why}: refused", message)


def _stopwatch_state(running: bool) -> str:
    return "running" if running else "stopped"


def _quoted(titles: list[str]) -> str:
    return ", ".join(json.dumps(title, ensure_ascii=False) for title in titles)


def _action_key(action: Action) -> str:
    return tool_name(action) + json.dumps(action.model_dump(), sort_keys=True)


def _element_key(element: Element) -> tuple[str, str]:
    return element.role, normalize_name(label_title(element.label))


def _checkables(screen: Screen) -> dict[tuple[str, str], Element]:
    """Labelled checkable elements by key, leaving out keys that more than one of them has."""
    seen: dict[tuple[str, str], Element] = {}
    duplicates: set[tuple[str, str]] = set()
    for element in screen.elements:
        if element.checked is None or not element.label:
            continue
        key = _element_key(element)
        if key in seen:
            duplicates.add(key)
        seen[key] = element
    return {key: element for key, element in seen.items() if key not in duplicates}


def _switch_changes(before: Screen, after: Screen) -> dict[tuple[str, str], _Change]:
    """Checkable elements present once on both screens whose checked state differs."""
    old, new = _checkables(before), _checkables(after)
    return {
        key: _Change(old[key].checked, new[key].checked)
        for key in old.keys() & new.keys()
        if old[key].checked != new[key].checked
    }
