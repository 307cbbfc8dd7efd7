"""From a uiautomator node tree to the elements the model sees.

Windows. Top-level nodes are windows, listed bottom to top. A soft keyboard's window is never
listed key by key (the header says a keyboard is shown). Thin strips along a screen edge (status
bar, navigation bar, gesture areas, edge-panel handles) are left out: the model has keys for back,
home and recent apps, and a clock or battery icon is noise. An element that lies entirely inside
a window drawn above its own (a dialog, the keyboard) is covered and left out, as are elements
with no area or off the screen. The foreground app is the package of the topmost window that
takes input (see `_foreground_app`).

Controls. A node that is clickable, long-clickable, checkable or a text field is a control. It
takes its label from its own text (or a longer content description that contains the text),
content description or hint, then from the texts of the plain nodes below it: a settings row
reads "Saved networks, 1 network". A toggle (switch, checkbox, radio button) or an unlabeled
text field inside a row is merged into that row, so the row "Wi-Fi" and its Switch are one
`switch "Wi-Fi" on`; the row's title wins over the toggle's own text, which on some vendors is
only its state ("On"). A plain row that is not itself clickable but holds one unlabeled toggle
and a few texts is merged the same way. Taps on a merged row go to its toggle or field when that
takes taps, because on a two-target row the row itself opens another page. A checkable text
(CheckedTextView) beside a radio button repeats the radio's state and becomes its label.

Containers. A control covering half the screen or more, or holding more than a few texts, is a
container, not a button: its texts stay separate elements. A control with no label at all that
wraps other elements is dropped: tapping it means tapping one of them. A scrollable node is a
`list` and never absorbs the texts inside it.

Texts. Text no control claims stays as a `text` (or `image`) element: titles, summaries, values
and messages are what the model reads to decide and to answer. A container's description that
only repeats its children's texts is not listed twice. Identical elements stacked on the same
spot are listed once. A text field or toggle still unlabeled at the end borrows the nearest label
on its line ("To" beside an e-mail field); as a last resort a label comes from the resource id
(`settings_button` -> "settings button"; minified ids such as `fo8` are no name).

Order. Elements sorted by their top edge are grouped into lines (an element joins the line of
the element that opened it when each one's vertical middle lies within the other); each line
runs left to right, or right to left on a screen whose labels are mostly right-to-left. A list
comes just before its first row. The same dump always gives the same indices.

Size. A screen lists at most `MAX_ELEMENTS` elements, the first in reading order, and counts the
rest (`Extraction.omitted`): more would not fit the model's prompt, and a phone screen seldom
shows a quarter as many (the largest real dump we know holds 59).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agent.screen_text import clean, is_rtl, join_pieces, label_from_resource_id, truncate
from agent.screen_xml import Bounds, Node

SYSTEM_UI = "com.android.systemui"
_KEYBOARD_PACKAGE = re.compile(
    r"inputmethod|keyboard|honeyboard|swiftkey|simeji|fleksy|openwnn|\.ime\b|baidu\.input|"
    r"sogou|iflytek|\.input$",
    re.IGNORECASE,
)
EDGE_STRIP_FRACTION = 0.08  # a window this thin along a screen edge is a bar, not content
LARGE_FRACTION = 0.5  # a control covering this much of the screen is a container
SHADE_FRACTION = 0.9  # a system UI window this large (shade, lock screen) is in front of apps
MAX_ABSORBED_TEXTS = 5  # a control with more texts than this is a card/container
ROW_FRACTION = 0.25  # a lone toggle pairs with texts of a plain parent at most this tall
MAX_ELEMENTS = 200


@dataclass(slots=True)
class Draft:
    """An element before its index is known: `node` gives bounds and identity, `source` (the
    node itself, or the toggle or field merged into it) gives role and state."""

    node: Node
    source: Node
    role: str
    label: str
    tap: tuple[int, int]
    window: int
    labelled_by_id: bool = False

    @property
    def checked(self) -> bool | None:
        return self.source.checked if self.source.checkable else None


@dataclass(slots=True)
class Extraction:
    app: str
    keyboard: bool
    width: int
    height: int
    drafts: list[Draft]
    omitted: int = 0  # elements past MAX_ELEMENTS in reading order, not listed


@dataclass(slots=True)
class _Pending:
    """What a subtree leaves for the control above it to claim."""

    texts: list[tuple[str, Node]] = field(default_factory=list)
    controls: list[Node] = field(default_factory=list)  # toggles and unlabeled text fields


def extract(windows: list[Node]) -> Extraction:
    width = max((w.bounds[2] for w in windows), default=0)
    height = max((w.bounds[3] for w in windows), default=0)
    screen_area = max(width * height, 1)
    keyboards = [is_keyboard_window(w) for w in windows]
    strips = [is_edge_strip(w.bounds, width, height) for w in windows]
    drafts: list[Draft] = []
    for z, window in enumerate(windows):
        if keyboards[z] or strips[z]:
            continue
        walker = _Walker(z, screen_area, height, drafts)
        walker.flush(walker.visit(window))
    # For each window, the bounds of the windows drawn above it (they hide what they contain).
    cover_bounds = [None if strip else w.bounds for w, strip in zip(windows, strips, strict=True)]
    covers = [[b for b in cover_bounds[z + 1 :] if b is not None] for z in range(len(windows))]
    visible = [
        d
        for d in drafts
        if has_area(d.node.bounds)
        and intersects(d.node.bounds, (0, 0, width, height))
        and not any(contains(bounds, d.node.bounds) for bounds in covers[d.window])
    ]
    visible = _without_stacked_copies(visible)
    omitted = max(len(visible) - MAX_ELEMENTS, 0)
    if omitted:
        # Labelling from the line costs time quadratic in the elements: spent on listed ones only.
        visible = reading_order(visible)[:MAX_ELEMENTS]
    _label_from_line(visible)
    return Extraction(
        app=_foreground_app(windows, keyboards, strips, screen_area),
        keyboard=any(k and has_area(w.bounds) for k, w in zip(keyboards, windows, strict=True)),
        width=width,
        height=height,
        drafts=reading_order(visible),
        omitted=omitted,
    )


class _Walker:
    """Post-order walk of one window: a subtree hands its unclaimed texts and toggles upward
    until a control claims them or a list or the window root emits them on their own."""

    def __init__(self, window: int, screen_area: int, screen_height: int, out: list[Draft]):
        self.window = window
        self.screen_area = screen_area
        self.screen_height = screen_height
        self.out = out

    def visit(self, node: Node) -> _Pending:
        emitted_before = len(self.out)
        pending = _Pending()
        for child in node.children:
            below = self.visit(child)
            pending.texts.extend(below.texts)
            pending.controls.extend(below.controls)
        wraps_elements = len(self.out) > emitted_before
        if node.scrollable and not node.editable:
            self.flush(pending)
            self._emit(node, node, "list", _own_label(node))
            return _Pending()
        own = _own_label(node)
        # A toggle's state matters even when scrolling has clipped it away; a clipped text
        # field tells nothing.
        widget = not (wraps_elements or pending.controls or pending.texts)
        if widget and (node.checkable or (node.editable and not own and has_area(node.bounds))):
            pending.controls.append(node)  # the row above names it, or it stands alone later
            return pending
        if node.clickable or node.long_clickable or node.checkable or node.editable:
            if not has_area(node.bounds):
                # nothing to tap, but its text may name the row around it ("Charging 65%")
                if own:
                    pending.texts.insert(0, (own, node))
                return pending
            self._control(node, own, pending, wraps_elements)
            return _Pending()
        if own:
            self._add_container_label(own, node, pending)
        if not pending.controls:
            return pending
        main = _merge_target(pending.controls)
        if (
            main is not None
            and not _own_label(main)
            and 0 < len(pending.texts) <= 3
            and _height(node.bounds) <= ROW_FRACTION * self.screen_height
        ):
            label = join_pieces(_distinct(text for text, _ in pending.texts))
            self._emit(node, main, _role(main), label)
            return _Pending()
        return pending

    @staticmethod
    def _add_container_label(own: str, node: Node, pending: _Pending) -> None:
        """A plain container's own label usually summarises its children's texts."""
        if not pending.texts:
            pending.texts.append((own, node))
        elif all(text.casefold() in own.casefold() for text, _ in pending.texts):
            pending.texts[:] = [(own, node)]  # "Phone: +7 993" over "+7 993" and "Phone"
        elif node.text:
            pending.texts.insert(0, (own, node))
        # else: a description that differs from the children's texts adds little to them

    def _control(self, node: Node, own: str, pending: _Pending, wraps_elements: bool) -> None:
        if (
            _area(node.bounds) >= LARGE_FRACTION * self.screen_area
            or len(pending.texts) > MAX_ABSORBED_TEXTS
        ):
            self.flush(pending)  # a container: what it holds stays separate
            if own or not wraps_elements:
                self._emit(node, node, _role(node), own)
            return
        pieces = _distinct(text for text, _ in pending.texts)
        if own:
            pieces = [own, *(p for p in pieces if p.casefold() not in own.casefold())]
        main = _merge_target(pending.controls)
        if main is None:
            self.flush(_Pending(controls=pending.controls))
        elif not pieces:
            # Only the merged widgets name the row (a radio button beside its checked text).
            pieces = _distinct(_own_label(control) for control in pending.controls)
        if not pieces and main is None and wraps_elements:
            return  # an unlabeled wrapper around other elements
        source = main or node
        self._emit(node, source, _role(source), join_pieces(pieces))

    def flush(self, pending: _Pending) -> None:
        """Emit what no control claimed: loose texts, and toggles or fields on their own."""
        for text, node in pending.texts:
            self._emit(node, node, "image" if "Image" in node.class_name else "text", text)
        for control in pending.controls:
            self._emit(control, control, _role(control), _own_label(control))
        pending.texts.clear()
        pending.controls.clear()

    def _emit(self, node: Node, source: Node, role: str, label: str) -> None:
        by_id = not label
        if by_id:
            label = label_from_resource_id(node.resource_id) or label_from_resource_id(
                source.resource_id
            )
        # Tap the merged widget itself when it takes taps: on a two-target settings row the
        # row opens a page and only the switch toggles.
        tap = center(node.bounds)
        if source is not node and (source.clickable or source.editable):
            widget_tap = center(source.bounds)
            if contains(node.bounds, (*widget_tap, *widget_tap)):
                tap = widget_tap
        self.out.append(Draft(node, source, role, label, tap, self.window, by_id))


def _merge_target(controls: list[Node]) -> Node | None:
    """The one widget a row stands for: its only toggle or field, ignoring checkable texts
    (CheckedTextView), which repeat the state of the radio button beside them."""
    widgets = [c for c in controls if not c.class_name.endswith("CheckedTextView")]
    if len(widgets) == 1:
        return widgets[0]
    if not widgets and controls:
        return controls[0]
    return None


def _own_label(node: Node) -> str:
    if not (node.text or node.desc or node.hint):
        return ""
    if node.editable:
        name = clean(node.hint) or clean(node.desc)
        value = clean(node.text)
        if value and name and value != name:
            return truncate(f"{name}: {value}")
        return truncate(value or name)
    text, desc = clean(node.text), clean(node.desc)
    if text and len(desc) > len(text) and text.casefold() in desc.casefold():
        return truncate(desc)  # "A said: hi, 12:37" says more than the bubble's "hi"
    return truncate(text or desc or clean(node.hint))


def _distinct(pieces: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for piece in pieces:
        key = piece.casefold()
        if piece and key not in seen:
            seen.add(key)
            kept.append(piece)
    return kept


def _role(node: Node) -> str:
    tail = node.class_name.rpartition(".")[2]
    if node.editable:
        return "input"
    if "Switch" in tail or "Toggle" in tail:
        return "switch"
    if "RadioButton" in tail:
        return "radio"
    if node.checkable or "CheckBox" in tail:
        return "checkbox"
    if "SeekBar" in tail or "Slider" in tail or "RatingBar" in tail:
        return "slider"
    if "Spinner" in tail:
        return "dropdown"
    if tail.endswith(("TabView", "Tab")):
        return "tab"
    return "button"


def _without_stacked_copies(drafts: list[Draft]) -> list[Draft]:
    """Views stacked on the same spot with the same text (ad frameworks repeat theirs dozens of
    times) are one thing to tap."""
    seen: set[tuple[str, str, Bounds, bool | None]] = set()
    kept = []
    for draft in drafts:
        key = (draft.role, draft.label, draft.node.bounds, draft.checked)
        if key not in seen:
            seen.add(key)
            kept.append(draft)
    return kept


def _label_from_line(drafts: list[Draft]) -> None:
    """Give an unlabeled field or toggle the nearest labelled element on its line."""
    for draft in drafts:
        if (draft.label and not draft.labelled_by_id) or draft.role not in (
            "input",
            "switch",
            "checkbox",
            "radio",
        ):
            continue
        x1, y1, x2, y2 = draft.node.bounds
        middle = (y1 + y2) // 2
        best: tuple[int, str] | None = None
        for other in drafts:
            ox1, oy1, ox2, oy2 = other.node.bounds
            if other is draft or not other.label or other.labelled_by_id:
                continue
            if not oy1 <= middle <= oy2 or other.role in ("list", "input"):
                continue
            gap = x1 - ox2 if ox2 <= x1 else ox1 - x2 if ox1 >= x2 else -1
            if gap >= 0 and (best is None or gap < best[0]):
                best = (gap, other.label)
        if best is not None:
            draft.label = best[1]
            draft.labelled_by_id = False


def reading_order(drafts: list[Draft]) -> list[Draft]:
    rtl_votes = sum(1 if is_rtl(d.label) else -1 for d in drafts if d.label)
    ordered = sorted(
        drafts, key=lambda d: (d.node.bounds[1], d.node.bounds[0], -_area(d.node.bounds))
    )
    result: list[Draft] = []
    line: list[Draft] = []
    line_top = line_middle = line_bottom = 0
    for draft in ordered:
        _, y1, _, y2 = draft.node.bounds
        middle = (y1 + y2) // 2
        if line and y1 <= line_middle <= y2 and line_top <= middle <= line_bottom:
            line.append(draft)
            continue
        result.extend(_sort_line(line, rtl_votes > 0))
        line = [draft]
        line_top, line_middle, line_bottom = y1, middle, y2
    result.extend(_sort_line(line, rtl_votes > 0))
    return result


def _sort_line(line: list[Draft], rtl: bool) -> list[Draft]:
    if rtl:
        return sorted(line, key=lambda d: -d.node.bounds[2])
    return sorted(line, key=lambda d: d.node.bounds[0])


def _foreground_app(
    windows: list[Node], keyboards: list[bool], strips: list[bool], screen_area: int
) -> str:
    """The package taking input: the topmost app window.

    System UI is skipped unless it fills the screen (notification shade, lock screen), because its
    small windows (heads-up notifications, volume panel) float above the app the user is in.
    A dialog from another package (permission controller, installer, chooser) is on top and takes
    input, so it is the foreground app while it shows.
    """
    candidates = [
        w for z, w in enumerate(windows) if not keyboards[z] and not strips[z] and w.package
    ]
    for window in reversed(candidates):
        if window.package != SYSTEM_UI or _area(window.bounds) >= SHADE_FRACTION * screen_area:
            return window.package
    return candidates[-1].package if candidates else ""


def is_keyboard_window(window: Node) -> bool:
    """An input method's window: an IME package in a window that does not start at the top of
    the screen (a keyboard app's own settings screen is a full-screen app, not a keyboard)."""
    return window.bounds[1] > 0 and bool(_KEYBOARD_PACKAGE.search(window.package))


def is_edge_strip(bounds: Bounds, width: int, height: int) -> bool:
    x1, y1, x2, y2 = bounds
    thin_row = y2 - y1 <= EDGE_STRIP_FRACTION * height and (y1 <= 0 or y2 >= height)
    thin_column = x2 - x1 <= EDGE_STRIP_FRACTION * width and (x1 <= 0 or x2 >= width)
    return thin_row or thin_column


# Geometry of (x1, y1, x2, y2) bounds.


def center(bounds: Bounds) -> tuple[int, int]:
    x1, y1, x2, y2 = bounds
    return (x1 + x2) // 2, (y1 + y2) // 2


def _area(bounds: Bounds) -> int:
    return max(bounds[2] - bounds[0], 0) * max(bounds[3] - bounds[1], 0)


def _height(bounds: Bounds) -> int:
    return bounds[3] - bounds[1]


def has_area(bounds: Bounds) -> bool:
    return bounds[2] > bounds[0] and bounds[3] > bounds[1]


def intersects(a: Bounds, b: Bounds) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def contains(outer: Bounds, inner: Bounds) -> bool:
    """Whether `inner` lies within `outer`, edges included (a point is a zero-size box)."""
    return (
        outer[0] <= inner[0]
        and outer[1] <= inner[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )
