"""The view tree the simulator renders, and its serialisation as uiautomator XML.

Apps build a fresh tree from state on every frame. A tree is laid out in screen pixels; the
visible tree is the laid-out tree clipped to each parent (as Android clips children), with the
off-screen rows of a recycler dropped (RecyclerView detaches them). The same visible tree is
dumped and hit-tested, so a tap lands exactly where the dump says an element is.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

# Class names as real apps report them.
FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
RELATIVE = "android.widget.RelativeLayout"
VIEW_GROUP = "android.view.ViewGroup"
VIEW = "android.view.View"
TEXT = "android.widget.TextView"
IMAGE = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
BUTTON = "android.widget.Button"
SWITCH = "android.widget.Switch"
EDIT = "android.widget.EditText"
SCROLL = "android.widget.ScrollView"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
CARD = "androidx.cardview.widget.CardView"
RADIO = "android.widget.RadioButton"

Handler = Callable[[], None]


def rid(package: str, name: str) -> str:
    """A resource id as uiautomator reports it: `com.android.settings:id/title`."""
    return f"{package}:id/{name}"


@dataclass(frozen=True)
class Rect:
    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def width(self) -> int:
        return self.x2 - self.x1

    @property
    def height(self) -> int:
        return self.y2 - self.y1

    @property
    def center(self) -> tuple[int, int]:
        return (self.x1 + self.x2) // 2, (self.y1 + self.y2) // 2

    def is_empty(self) -> bool:
        return self.x2 <= self.x1 or self.y2 <= self.y1

    def contains(self, x: int, y: int) -> bool:
        return self.x1 <= x < self.x2 and self.y1 <= y < self.y2

    def intersect(self, other: Rect) -> Rect:
        return Rect(
            max(self.x1, other.x1),
            max(self.y1, other.y1),
            min(self.x2, other.x2),
            min(self.y2, other.y2),
        )

    def inset(self, dx: int, dy: int) -> Rect:
        return Rect(self.x1 + dx, self.y1 + dy, self.x2 - dx, self.y2 - dy)

    def shifted(self, dx: int, dy: int) -> Rect:
        return Rect(self.x1 + dx, self.y1 + dy, self.x2 + dx, self.y2 + dy)

    def with_y(self, y1: int, y2: int) -> Rect:
        return Rect(self.x1, y1, self.x2, y2)

    def with_x(self, x1: int, x2: int) -> Rect:
        return Rect(x1, self.y1, x2, self.y2)


@dataclass
class ScrollState:
    """How far a scrollable container's content is scrolled, and how far it can go."""

    offset: int = 0
    max_offset: int = 0

    def scroll_by(self, delta: int) -> bool:
        """Move the content; return whether anything moved."""
        new = min(max(self.offset + delta, 0), self.max_offset)
        moved = new != self.offset
        self.offset = new
        return moved


@dataclass(eq=False)
class View:
    cls: str
    bounds: Rect
    rid: str = ""
    text: str = ""
    desc: str = ""
    children: list[View] = field(default_factory=list)
    clickable: bool = False
    long_clickable: bool = False
    focusable: bool = False
    focused: bool = False
    checkable: bool = False
    checked: bool = False
    scrollable: bool = False
    enabled: bool = True
    selected: bool = False
    password: bool = False
    hint: str = ""
    on_tap: Handler | None = None
    on_long_press: Handler | None = None
    scroll: ScrollState | None = None
    # RecyclerView: rows scrolled out of view are detached, so they vanish and indices restart.
    recycler: bool = False
    # A dialog window that closes when touched outside its bounds.
    on_outside_tap: Handler | None = None
    index: int = 0

    def walk(self) -> Iterator[View]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class Window:
    package: str
    root: View
    # Dialog windows take every touch: inside goes to them, outside cancels or is ignored.
    modal: bool = False
    # Toasts are drawn over everything but let touches through to the windows below.
    touchable: bool = True


def shifted(view: View, dx: int, dy: int = 0) -> View:
    """A copy of the tree moved right by dx and down by dy pixels (a window sliding in)."""
    return replace(
        view,
        bounds=view.bounds.shifted(dx, dy),
        children=[shifted(child, dx, dy) for child in view.children],
    )


def char_width(char: str, size: int) -> float:
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return float(size)
    if unicodedata.combining(char):
        return 0.0
    return size * 0.52


def text_width(text: str, size: int) -> int:
    """Rough rendered width of one line of text at a font size in pixels."""
    return int(sum(char_width(char, size) for char in text)) + 1


def text_box(text: str, x: int, y: int, size: int, max_x: int, line_height: int = 0) -> Rect:
    """Bounds of a wrap_content TextView starting at (x, y), cut at max_x like a one-line label."""
    height = line_height or int(size * 1.36)
    return Rect(x, y, min(x + text_width(text, size), max_x), y + height)


def visible(view: View, clip: Rect, index: int = 0, in_control: bool = False) -> View | None:
    """The part of `view` a user can see inside `clip`, or None when nothing of it shows.

    The copy carries its uiautomator `index`: its position among its parent's children, or, in
    a recycler, among the rows still attached. Inside a control that still shows (a settings
    row scrolled half out of view), children clipped away entirely stay in the tree with the
    inverted bounds Android reports for them (`[66,2216][359,2154]`), so the row keeps the
    title and summary that name it.
    """
    bounds = view.bounds.intersect(clip)
    if bounds.is_empty() and not in_control:
        return None
    kept: list[View] = []
    inside = in_control or (view.clickable and not bounds.is_empty())
    for position, child in enumerate(view.children):
        shown = visible(child, bounds, len(kept) if view.recycler else position, inside)
        if shown is not None:
            kept.append(shown)
    return replace(view, bounds=bounds, children=kept, index=index)


# ---------------------------------------------------------------------------------------------
# Serialisation


def _escape(value: str) -> str:
    out: list[str] = []
    for char in value:
        code = ord(char)
        if char == "&":
            out.append("&amp;")
        elif char == "<":
            out.append("&lt;")
        elif char == ">":
            out.append("&gt;")
        elif char == '"':
            out.append("&quot;")
        elif char in "\n\r\t" or code > 0xFFFF:
            # The device's XML writer emits these (and characters beyond the BMP) as references.
            out.append(f"&#{code};")
        elif code < 0x20:
            continue
        else:
            out.append(char)
    return "".join(out)


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _node_xml(view: View, package: str, order: int, out: list[str]) -> None:
    b = view.bounds
    out.append(
        f'<node index="{view.index}" text="{_escape(view.text)}" '
        f'resource-id="{_escape(view.rid)}" class="{view.cls}" package="{package}" '
        f'content-desc="{_escape(view.desc)}" checkable="{_flag(view.checkable)}" '
        f'checked="{_flag(view.checked)}" clickable="{_flag(view.clickable)}" '
        f'enabled="{_flag(view.enabled)}" focusable="{_flag(view.focusable)}" '
        f'focused="{_flag(view.focused)}" scrollable="{_flag(view.scrollable)}" '
        f'long-clickable="{_flag(view.long_clickable)}" password="{_flag(view.password)}" '
        f'selected="{_flag(view.selected)}" bounds="[{b.x1},{b.y1}][{b.x2},{b.y2}]" '
        f'drawing-order="{order}" hint="{_escape(view.hint)}"'
    )
    if not view.children:
        out.append(" />")
        return
    out.append(">")
    for position, child in enumerate(view.children):
        _node_xml(child, package, position + 1, out)
    out.append("</node>")


def dump(windows: list[Window], rotation: int = 0) -> str:
    """uiautomator XML of visible (already clipped) windows, single-line like `uiautomator dump`."""
    declaration = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
    out = [f'{declaration}<hierarchy rotation="{rotation}">']
    for window in windows:
        _node_xml(window.root, window.package, 0, out)
    out.append("</hierarchy>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Hit testing


def find_target(root: View, x: int, y: int, want: Callable[[View], bool]) -> View | None:
    """The deepest, top-most view at (x, y) that satisfies `want` (later siblings draw on top)."""
    if not root.bounds.contains(x, y):
        return None
    for child in reversed(root.children):
        found = find_target(child, x, y, want)
        if found is not None:
            return found
    return root if want(root) else None


def is_touchable(view: View) -> bool:
    return view.enabled and (view.clickable or view.on_tap is not None)


def is_long_touchable(view: View) -> bool:
    return view.enabled and (view.long_clickable or view.on_long_press is not None)
