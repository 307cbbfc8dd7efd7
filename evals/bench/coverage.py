"""Does the element list still reach every control a user could use on the screen?

Checked on the node tree, independently of how the screen model picks elements: every node that
is clickable, long-clickable, checkable, scrollable or editable, has an area on the screen and is
not hidden must be covered by a listed element, meaning the element's bounds contain the node's
centre or the element is that node. A `list` element covers only scrollable nodes: it stands for
scrolling, and counting it for the taps inside it would let any row inside a list go missing.

Hidden: under a window drawn above the node's own window (entirely inside its bounds), or a key
of a soft keyboard (the header says a keyboard is shown). Nodes in the
system bars along the screen edges are reported apart, as dropped by design: the model reaches
back, home and recent apps through `press_key`.

A lost node that wraps listed elements (a card, a dialog frame, a web page's click handler)
is usually reached through them: its centre merely falls in a gap between its children. Each
lost node says how many listed elements have their tap point inside it, so those cases read
apart from a node that nothing on the list leads to.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from agent.screen import Element, Screen
from agent.screen_elements import (
    center,
    contains,
    has_area,
    intersects,
    is_edge_strip,
    is_keyboard_window,
)
from agent.screen_xml import Bounds, Node, parse_hierarchy


class ActionableNode(BaseModel):
    """A control node, as a person would look it up in the dump."""

    class_name: str
    label: str
    resource_id: str
    bounds: tuple[int, int, int, int]
    actions: list[str]
    wraps: int  # listed elements whose tap point lies inside the node


class Coverage(BaseModel):
    actionable: int  # visible control nodes outside the system bars
    lost: list[ActionableNode]  # of those, the ones no element covers
    system_bar: int  # control nodes in status/navigation bars, left out on purpose


def check(data: bytes, screen: Screen) -> Coverage:
    """The controls of dump `data` that `screen` (its parse) does not cover."""
    windows = parse_hierarchy(data).windows
    width, height = screen.width, screen.height
    strips = [is_edge_strip(window.bounds, width, height) for window in windows]
    actionable, system_bar = 0, 0
    lost: list[ActionableNode] = []
    for z, window in enumerate(windows):
        if is_keyboard_window(window):
            continue
        above = [w.bounds for w in windows[z + 1 :] if not is_edge_strip(w.bounds, width, height)]
        for node in _nodes(window):
            actions = _actions(node)
            if not actions or not _on_screen(node, width, height):
                continue
            if any(contains(bounds, node.bounds) for bounds in above):
                continue
            if strips[z]:
                system_bar += 1
                continue
            actionable += 1
            if not any(_covers(element, node) for element in screen.elements):
                lost.append(
                    ActionableNode(
                        class_name=node.class_name,
                        label=node.text or node.desc or node.hint,
                        resource_id=node.resource_id,
                        bounds=node.bounds,
                        actions=actions,
                        wraps=sum(
                            _inside(element.center, node.bounds) for element in screen.elements
                        ),
                    )
                )
    return Coverage(actionable=actionable, lost=lost, system_bar=system_bar)


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in node.children:
        yield from _nodes(child)


def _actions(node: Node) -> list[str]:
    flags = (
        ("click", node.clickable),
        ("long_click", node.long_clickable),
        ("check", node.checkable),
        ("scroll", node.scrollable),
        ("edit", node.editable),
    )
    return [name for name, present in flags if present]


def _on_screen(node: Node, width: int, height: int) -> bool:
    return has_area(node.bounds) and intersects(node.bounds, (0, 0, width, height))


def _covers(element: Element, node: Node) -> bool:
    if element.bounds == node.bounds and element.class_name == node.class_name:
        return True  # the node itself (or its identical twin)
    if element.role == "list" and not node.scrollable:
        return False
    return _inside(center(node.bounds), element.bounds)


def _inside(point: tuple[int, int], bounds: Bounds) -> bool:
    return contains(bounds, (*point, *point))
