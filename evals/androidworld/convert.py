"""Between AndroidWorld and our agent, without importing android_world.

Elements. AndroidWorld describes a screen as a flat list of `UIElement`s (text,
content_description, class_name, bbox_pixels, is_* flags, ...), read here by attribute name.
Elements are skipped the way AndroidWorld's own agents skip them (invisible, or a box off the
screen or empty), keyboard keys are left out (the header says a keyboard is shown), and so are
elements with neither a label nor anything to do. The rest become our `Element`s, numbered 1..n
in AndroidWorld's order; `ObservedScreen.aw_index` maps each of our indices back to the
element's original position in AndroidWorld's list. A switch, checkbox or field without a label
of its own borrows the text beside it on the same line ("Wi-Fi" for the row's switch).

Actions. Ours become AndroidWorld JSON actions (dicts of `JSONAction` fields):

- tap(i), long_press(i): click / long_press at the centre of the element the model saw;
- type_text(text, i?, clear?): input_text at the field (unless it is focused), clear_text;
  AndroidWorld always presses Enter after typing, and skips an input_text without text
  entirely (its tap and clear_text too), so an empty type_text is refused;
- swipe(direction, i?): scroll in the opposite direction (ours names the finger's way, theirs
  the view's), inside element i when given;
- press_key(back / home / enter): navigate_back / navigate_home / keyboard_enter;
- open_app(name), wait(s): open_app(app_name), wait (AndroidWorld always waits one second;
  the caller waits the rest);
- task_complete(success, answer?): answer(text) when there is an answer, then
  status(complete / infeasible).

Positions, not indices: AndroidWorld resolves an index against a fresh list at execution time,
which may have changed since the model looked; coordinates hit what the model saw.

Tools. `tools_schema()` is what the model reads there: our tools, with the text of type_text,
press_key and wait saying what AndroidWorld's actions really do.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, assert_never

from agent.actions import (
    Action,
    LongPress,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    Wait,
)
from agent.actions import tools_schema as our_tools_schema
from agent.screen import Element, Screen

_KEYBOARD_PACKAGE = re.compile(r"inputmethod|keyboard", re.IGNORECASE)
_SYSTEM_UI = "com.android.systemui"
_KEYS = {"back": "navigate_back", "home": "navigate_home", "enter": "keyboard_enter"}
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
AW_WAIT_S = 1.0  # what android_world's `wait` action sleeps, whatever was asked

# Tool -> (its description, {argument: description}) where AndroidWorld differs from a phone;
# None keeps our description.
_AW_TOOL_TEXT: dict[str, tuple[str | None, dict[str, str]]] = {
    "type_text": (
        "Type text into a text field; Enter is always pressed afterwards here.",
        {"text": "The text to type (not empty).", "submit": "No effect here: Enter is pressed."},
    ),
    "press_key": (None, {"key": "Key name: back, home or enter (no others here)."}),
    "wait": (
        None,
        {"seconds": f"At least {AW_WAIT_S:g} here (shorter waits last that long), at most 10."},
    ),
}

AwAction = dict[str, Any]  # keyword arguments of android_world's JSONAction


class UnsupportedAction(ValueError):
    """An action AndroidWorld's JSON actions cannot express (a key other than back, home or
    enter)."""


@dataclass(frozen=True)
class ObservedScreen:
    """The screen as our agent sees it, and where each of its elements came from."""

    screen: Screen
    aw_index: dict[int, int]  # our index -> position in AndroidWorld's ui_elements


def screen_from_aw(
    ui_elements: Sequence[Any], screen_size: tuple[int, int], app: str | None = None
) -> ObservedScreen:
    """Our screen from AndroidWorld's `ui_elements` on a screen of `screen_size` (w, h)."""
    width, height = screen_size
    kept: list[tuple[int, dict[str, Any]]] = []
    keyboard = False
    for position, ui in enumerate(ui_elements):
        bounds = _bounds(ui, width, height)
        if bounds is None or not getattr(ui, "is_visible", None):
            continue
        if _KEYBOARD_PACKAGE.search(getattr(ui, "package_name", None) or ""):
            keyboard = True
            continue
        fields = _fields(ui, bounds)
        if fields["label"] or _actionable(fields):
            kept.append((position, fields))
    _borrow_labels([fields for _, fields in kept])
    elements = [Element(index=number, **fields) for number, (_, fields) in enumerate(kept, start=1)]
    packages = Counter(e.package for e in elements if e.package and e.package != _SYSTEM_UI)
    foreground = app or (packages.most_common(1)[0][0] if packages else "")
    screen = Screen(foreground, keyboard, width, height, 0, elements)
    return ObservedScreen(
        screen, {number: position for number, (position, _) in enumerate(kept, start=1)}
    )


def _bounds(ui: Any, width: int, height: int) -> tuple[int, int, int, int] | None:
    box = getattr(ui, "bbox_pixels", None)
    if box is None:
        return None
    x1, x2, y1, y2 = (round(float(v)) for v in (box.x_min, box.x_max, box.y_min, box.y_max))
    if x1 >= x2 or y1 >= y2 or x1 >= width or y1 >= height or x2 <= 0 or y2 <= 0:
        return None
    return max(x1, 0), max(y1, 0), min(x2, width), min(y2, height)


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value else ""


def _fields(ui: Any, bounds: tuple[int, int, int, int]) -> dict[str, Any]:
    class_name = _text(getattr(ui, "class_name", None))
    checkable = bool(getattr(ui, "is_checkable", None))
    editable = bool(getattr(ui, "is_editable", None)) or class_name.endswith("EditText")
    scrollable = bool(getattr(ui, "is_scrollable", None))
    clickable = bool(getattr(ui, "is_clickable", None))
    label = next(
        (
            _text(getattr(ui, name, None))
            for name in ("text", "content_description", "hint_text")
            if _text(getattr(ui, name, None))
        ),
        "",
    )
    x1, y1, x2, y2 = bounds
    return {
        "role": _role(class_name, checkable, editable, scrollable, clickable),
        "label": label,
        "checked": bool(getattr(ui, "is_checked", None)) if checkable else None,
        "enabled": getattr(ui, "is_enabled", None) is not False,
        "focused": bool(getattr(ui, "is_focused", None)),
        "selected": bool(getattr(ui, "is_selected", None)),
        "password": False,
        "scrollable": scrollable,
        "clickable": clickable or checkable or editable,
        "long_clickable": bool(getattr(ui, "is_long_clickable", None)),
        "bounds": bounds,
        "center": ((x1 + x2) // 2, (y1 + y2) // 2),
        "package": _text(getattr(ui, "package_name", None)),
        "resource_id": _text(
            getattr(ui, "resource_name", None) or getattr(ui, "resource_id", None)
        ),
        "class_name": class_name,
    }


def _role(
    class_name: str, checkable: bool, editable: bool, scrollable: bool, clickable: bool
) -> str:
    short = class_name.rsplit(".", 1)[-1].casefold()
    if checkable:
        if "radio" in short:
            return "radio"
        return "checkbox" if "checkbox" in short else "switch"
    if editable:
        return "input"
    if scrollable:
        return "list"
    if clickable:
        return "button"
    return "image" if "image" in short else "text"


def _actionable(fields: dict[str, Any]) -> bool:
    return bool(fields["clickable"] or fields["scrollable"] or fields["checked"] is not None)


def _borrow_labels(elements: list[dict[str, Any]]) -> None:
    """An unlabeled toggle or field takes the nearest text on its line, left of it first."""
    texts = [e for e in elements if e["label"] and e["role"] in ("text", "button")]
    for element in elements:
        if element["label"] or element["role"] not in ("switch", "checkbox", "radio", "input"):
            continue
        middle = element["center"][1]
        same_line = [t for t in texts if t["bounds"][1] <= middle <= t["bounds"][3]]
        if same_line:
            nearest = min(same_line, key=lambda t: abs(t["center"][0] - element["center"][0]))
            element["label"] = nearest["label"]


def action_to_aw(action: Action, observed: ObservedScreen) -> list[AwAction]:
    """The AndroidWorld actions that carry out `action` on the screen the model saw."""
    screen = observed.screen
    match action:
        case Tap(index=index) | LongPress(index=index):
            x, y = screen.element(index).center
            touch = "click" if isinstance(action, Tap) else "long_press"
            return [{"action_type": touch, "x": x, "y": y}]
        case TypeText():
            if not action.text:
                raise UnsupportedAction(
                    "type_text needs text here: AndroidWorld skips an empty one entirely, clear "
                    "included; to replace a field's text, type the new text with clear=true"
                )
            typed: AwAction = {"action_type": "input_text", "text": action.text}
            if action.index is not None and not screen.element(action.index).focused:
                typed["x"], typed["y"] = screen.element(action.index).center
            if action.clear:
                typed["clear_text"] = True
            return [typed]
        case Swipe(direction=direction, index=index):
            scroll: AwAction = {"action_type": "scroll", "direction": _OPPOSITE[direction]}
            if index is not None:
                screen.element(index)  # the model named an element that is there
                position = observed.aw_index[index]
                if position:  # AndroidWorld reads index 0 as "the whole screen"
                    scroll["index"] = position
            return [scroll]
        case PressKey(key=key):
            if key not in _KEYS:
                raise UnsupportedAction(
                    f"press_key {key!r} is not available here; use back, home or enter"
                )
            return [{"action_type": _KEYS[key]}]
        case OpenApp(name=name):
            return [{"action_type": "open_app", "app_name": name}]
        case Wait():
            return [{"action_type": "wait"}]
        case TaskComplete(success=success, answer=answer):
            status = {
                "action_type": "status",
                "goal_status": "complete" if success else "infeasible",
            }
            if answer:
                return [{"action_type": "answer", "text": answer}, status]
            return [status]
        case _:
            assert_never(action)


def tools_schema() -> list[dict[str, Any]]:
    """Our tools as the model gets them under AndroidWorld (same names and arguments)."""
    tools = our_tools_schema()
    for tool in tools:
        function = tool["function"]
        if function["name"] in _AW_TOOL_TEXT:
            description, arguments = _AW_TOOL_TEXT[function["name"]]
            function["description"] = description or function["description"]
            for argument, text in arguments.items():
                function["parameters"]["properties"][argument]["description"] = text
    return tools
