"""The element a model's own reasoning says it is about to tap, when its call points elsewhere.

A small model that thinks before it acts often names the right element and then writes the
wrong index: `Tap "Book flights to Osaka".` followed by `tap(11)`, where 11 is another row of
the same list. The words are what it meant; the index is a lookup it got wrong. So when the
last thing the reasoning says it will tap names exactly one element of the screen, and the call
points at a different element of the same kind (another row, another button), the call is
aimed at the named element and the repair is recorded. The words can be the wrong half too: a
model moving a note from one folder to another may name the folder it came from while its
index points at the right one. So the words win only where the goal names the element they
name and not the one the index points at.

Only clear cases are mended. The named label must match one element and no other (a label
repeated on screen, such as every row's "complete box", says nothing about which one), and an
element of another role or one that holds or lies inside the named one (a switch beside its
label, a row around its text) is taken as the model's own way of reaching it.

A repeated label is told apart by the row it sits in: `Tap "complete box" by "Book flights to
Osaka".` names the one "complete box" in the row of the one element so labelled (a row is the
height of an element: what spans the control's middle is in its row). When the call taps
another "complete box", it is aimed at the named row's, on the same terms: the goal names the
row the words name and nothing in the row the index points at.
"""

from __future__ import annotations

import re

from agent.goal_switches import label_titles
from agent.screen import Element, Screen

# A tap the reasoning announces: "Tap "X".", "I will click on the "X" button", "Long-press "X""
_ANNOUNCED_TAP = re.compile(
    r"\b(?P<verb>long[- ]press|tap|click|press|select|choose)\s+(?:on\s+)?(?:the\s+)?"
    r"[\"“](?P<label>[^\"”\n]{1,200})[\"”]"
    r"(?P<by>\s+by\s+[\"“](?P<anchor>[^\"”\n]{1,200})[\"”])?",
    re.IGNORECASE,
)


def announced_target(
    thinking: str, tool: str, index: int, screen: Screen, goal: str
) -> Element | None:
    """The element to aim `tool` (tap or long_press) at instead of `index`, or None when the
    reasoning's last announced tap agrees with the call, is unclear, is not about this screen,
    or is not backed by the goal."""
    announced_taps = list(_ANNOUNCED_TAP.finditer(thinking))
    if not announced_taps:
        return None
    announced = announced_taps[-1]
    long_press = announced.group("verb").casefold().startswith("long")
    if long_press != (tool == "long_press"):
        return None
    label = announced.group("label").strip().casefold()
    try:
        called = screen.element(index)
    except LookupError:
        return None
    if announced.group("by"):
        return _beside(label, announced.group("anchor").strip().casefold(), called, screen, goal)
    named = [element for element in screen.elements if element.label.casefold() == label]
    if len(named) != 1 or called.label.casefold() == label:
        return None
    target = named[0]
    if target.role != called.role or _overlap(target, called):
        return None
    if not _goal_names(goal, target.label) or _goal_names(goal, called.label):
        return None
    return target


def _beside(
    label: str, anchor_label: str, called: Element, screen: Screen, goal: str
) -> Element | None:
    """The element labelled `label` in the row of the one element labelled `anchor_label`,
    when `called` is another element labelled `label` and the goal backs the words."""
    anchors = [
        element
        for element in screen.elements
        if anchor_label in (title.casefold() for title in label_titles(element.label))
    ]
    if len(anchors) != 1 or called.label.casefold() != label:
        return None
    anchor = anchors[0]
    beside = [
        element
        for element in screen.elements
        if element.label.casefold() == label
        and element.role == called.role
        and _in_row_of(element, anchor)
    ]
    if len(beside) != 1 or beside[0] is called or not _goal_names(goal, anchor.label):
        return None
    target = beside[0]
    called_row = [
        element
        for element in screen.elements
        if element is not called and _in_row_of(called, element) and not _in_row_of(target, element)
    ]
    if any(_goal_names(goal, element.label) for element in called_row):
        return None
    return target


def _in_row_of(control: Element, element: Element) -> bool:
    """Whether `element` spans the height of `control`'s middle."""
    _, top, _, bottom = element.bounds
    return top <= control.center[1] <= bottom


def _goal_names(goal: str, label: str) -> bool:
    """Whether the goal names the element by its label or by the label's title ("Notes" for
    "Notes, 3 items"), as whole words in any case."""
    return any(
        re.search(rf"(?<!\w){re.escape(title)}(?!\w)", goal, re.IGNORECASE)
        for title in label_titles(label)
    )


def _overlap(first: Element, second: Element) -> bool:
    """Whether one element's box holds the other's (a control and its own row)."""
    (l1, t1, r1, b1), (l2, t2, r2, b2) = first.bounds, second.bounds
    return (l1 <= l2 and t1 <= t2 and r1 >= r2 and b1 >= b2) or (
        l2 <= l1 and t2 <= t1 and r2 >= r1 and b2 >= b1
    )
