"""AndroidWorld T3A's element description of a uiautomator dump, rebuilt for size comparisons.

T3A prints one line per element, `UI element {i}: {repr(element)}`, where the element is its
`UIElement` dataclass with every field (None and empty ones included) and `i` is the element's
position in the unfiltered list, so filtered elements leave gaps. Before printing it drops
elements that are not visible or whose pixel box does not overlap the logical screen.

Two selections, both from the same dump:

- `xml` — what AndroidWorld's own uiautomator path (`xml_dump_to_ui_elements`) builds: every
  `<node>` below the root, attributes copied as they are (an empty `text=""` stays `''`),
  `bbox` equal to `bbox_pixels`, `is_visible` always True, `resource_id` set, `hint_text`,
  `is_editable` and `resource_name` never set.
- `forest` — what its default accessibility-forest path keeps, as far as a dump tells it:
  leaves, nodes with a content description and scrollable nodes; empty strings become None,
  `bbox` is None (the environment passes no screen size), `resource_name` carries the id,
  visibility comes from `visible-to-user` where the dump has it. Fewer elements, so a smaller
  text: the stricter baseline.

The logical screen is the union of the top-level windows' bounds, which on a phone is the
display in its current rotation.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Literal

from lxml import etree

Selection = Literal["xml", "forest"]
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_EDIT_TEXT_CLASSES = ("EditText", "AutoCompleteTextView")
# Dump attributes that both paths turn into `is_<attribute>` flags the same way.
_STATE_ATTRIBUTES = (
    "checked", "checkable", "clickable", "enabled", "focused", "focusable", "long-clickable",
    "scrollable", "selected",
)  # fmt: skip


# The two dataclasses reproduce T3A's printed form: their names, field order and defaults are
# what `repr` shows, so they must not be reordered or renamed.
@dataclasses.dataclass
class BoundingBox:
    x_min: int
    x_max: int
    y_min: int
    y_max: int


@dataclasses.dataclass
class UIElement:
    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox: BoundingBox | None = None
    bbox_pixels: BoundingBox | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_name: str | None = None
    tooltip: str | None = None
    resource_id: str | None = None
    metadata: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class Description:
    text: str
    elements: int  # lines printed, after the visibility filter


def describe(data: bytes, selection: Selection = "xml") -> Description:
    """T3A's element list for the dump `data` (strict XML, as AndroidWorld parses it)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    root = etree.fromstring(data, parser)
    nodes = [node for node in root.iter("node") if node is not root]
    windows = [child for child in root if child.tag == "node"]
    boxes = [_box(window.get("bounds")) for window in windows]
    width = max((box.x_max for box in boxes if box is not None), default=0)
    height = max((box.y_max for box in boxes if box is not None), default=0)
    build = _xml_element if selection == "xml" else _forest_element
    elements = [build(node) for node in nodes if selection == "xml" or _forest_keeps(node)]
    lines = [
        f"UI element {index}: {element!r}\n"
        for index, element in enumerate(elements)
        if _valid(element, width, height)
    ]
    return Description(text="".join(lines), elements=len(lines))


def _xml_element(node: etree._Element) -> UIElement:
    box = _box(node.get("bounds"))
    return UIElement(
        text=node.get("text"),
        content_description=node.get("content-desc"),
        class_name=node.get("class"),
        bbox=box,
        bbox_pixels=box,
        **_state_flags(node),
        package_name=node.get("package"),
        resource_id=node.get("resource-id"),
        is_visible=True,
    )


def _forest_keeps(node: etree._Element) -> bool:
    has_children = any(child.tag == "node" for child in node)
    return not has_children or bool(node.get("content-desc")) or node.get("scrollable") == "true"


def _forest_element(node: etree._Element) -> UIElement:
    def text(name: str) -> str | None:
        return node.get(name) or None

    class_name = node.get("class") or ""
    return UIElement(
        text=text("text"),
        content_description=text("content-desc"),
        class_name=text("class"),
        bbox=None,
        bbox_pixels=_box(node.get("bounds")) or BoundingBox(0, 0, 0, 0),
        hint_text=text("hint"),
        is_editable=node.get("editable") == "true" or class_name.endswith(_EDIT_TEXT_CLASSES),
        **_state_flags(node),
        is_visible=node.get("visible-to-user") != "false",
        package_name=text("package"),
        resource_name=text("resource-id"),
    )


def _state_flags(node: etree._Element) -> dict[str, Any]:
    """`UIElement`'s state flags, each True where the dump's attribute says "true"."""
    return {
        "is_" + attribute.replace("-", "_"): node.get(attribute) == "true"
        for attribute in _STATE_ATTRIBUTES
    }


def _box(bounds: str | None) -> BoundingBox | None:
    match = _BOUNDS.fullmatch(bounds or "")
    if match is None:
        return None
    x1, y1, x2, y2 = (int(group) for group in match.groups())
    return BoundingBox(x_min=x1, x_max=x2, y_min=y1, y_max=y2)


def _valid(element: UIElement, width: int, height: int) -> bool:
    """T3A's filter: visible, and a pixel box (when there is one) that overlaps the screen."""
    if not element.is_visible:
        return False
    box = element.bbox_pixels
    if box is None:
        return True
    return not (
        box.x_min >= box.x_max
        or box.x_min >= width
        or box.x_max <= 0
        or box.y_min >= box.y_max
        or box.y_min >= height
        or box.y_max <= 0
    )
