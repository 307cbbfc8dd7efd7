"""Generated uiautomator trees and arbitrary bytes: the parser never crashes and stays coherent."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from agent.screen import Screen, ScreenParseError
from agent.screen_text import MAX_LABEL_CHARS

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00ad]")
_CLASSES = [
    "android.widget.FrameLayout",
    "android.widget.LinearLayout",
    "android.widget.TextView",
    "android.widget.Button",
    "android.widget.ImageView",
    "android.widget.Switch",
    "android.widget.CheckBox",
    "android.widget.RadioButton",
    "android.widget.CheckedTextView",
    "android.widget.EditText",
    "androidx.recyclerview.widget.RecyclerView",
    "android.widget.SeekBar",
    "android.view.View",
]
_PACKAGES = [
    "com.example.app",
    "com.android.systemui",
    "com.google.android.inputmethod.latin",
    "com.google.android.permissioncontroller",
    "",
]
_FLAGS = ["clickable", "long-clickable", "checkable", "checked", "enabled", "focused",
          "selected", "password", "scrollable"]  # fmt: skip

# Text as apps put it on screen: any script, emoji, bidi marks, markup characters, newlines.
_label = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff")
    | st.sampled_from(["\u200e", "\u202a", "\u202c", "\n", "&", "<", '"', "'", "-", " "]),
    max_size=120,
)
_coordinate = st.integers(min_value=-200, max_value=2600)


@st.composite
def _attributes(draw: st.DrawFn, package: str) -> dict[str, str]:
    attrs = {
        "index": "0",
        "text": draw(_label),
        "resource-id": draw(st.sampled_from(["", "com.x:id/title", "com.x:id/fo8", "a:id/Ab_c"])),
        "class": draw(st.sampled_from(_CLASSES)),
        "package": package,
        "content-desc": draw(_label),
        "bounds": "[{},{}][{},{}]".format(*(draw(_coordinate) for _ in range(4))),
    }
    for flag in _FLAGS:
        attrs[flag] = "true" if draw(st.booleans()) else "false"
    if draw(st.booleans()):
        attrs["hint"] = draw(_label)
    return attrs


def _tree(package: str) -> st.SearchStrategy[Any]:
    leaf: st.SearchStrategy[Any] = _attributes(package).map(lambda attrs: (attrs, []))
    return st.recursive(
        leaf,
        lambda children: st.tuples(_attributes(package), st.lists(children, max_size=4)),
        max_leaves=25,
    )


def _add(parent: etree._Element, tree: Any) -> None:
    attrs, children = tree
    element = etree.SubElement(parent, "node", attrs)
    for child in children:
        _add(element, child)


@st.composite
def dumps(draw: st.DrawFn) -> bytes:
    root = etree.Element("hierarchy", rotation=str(draw(st.integers(0, 3))))
    for package in draw(st.lists(st.sampled_from(_PACKAGES), min_size=0, max_size=4)):
        _add(root, draw(_tree(package)))
    pretty = draw(st.booleans())
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=pretty)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dumps())
def test_generated_dumps_parse_into_coherent_elements(data: bytes) -> None:
    screen = Screen.parse(data)
    assert [e.index for e in screen.elements] == list(range(1, len(screen.elements) + 1))
    rendered = screen.render().splitlines()
    assert rendered[0].startswith("app: ")
    assert len(rendered) == 1 + max(len(screen.elements), 1)
    for element, line in zip(screen.elements, rendered[1:], strict=False):
        assert line.startswith(f"[{element.index}] {element.role}")
        if element.label:
            escaped = element.label.replace("\\", "\\\\").replace('"', '\\"')
            assert f' "{escaped}"' in line
        assert len(element.label) <= MAX_LABEL_CHARS
        assert not _INVISIBLE.search(element.label) and "\n" not in element.label
        x1, y1, x2, y2 = element.bounds
        assert x1 <= element.center[0] <= x2 and y1 <= element.center[1] <= y2
    again = Screen.parse(data)
    assert again.render() == screen.render() and again.signature == screen.signature
    assert screen.diff(again).is_empty()


@settings(max_examples=30, deadline=None)
@given(
    dumps(),
    st.sampled_from(["utf-16", "utf-8-sig"]),
    st.sampled_from(["", "\r\nUI hierchary dumped to: /dev/tty\r\n"]),
)
def test_generated_dumps_survive_capture_mistakes(data: bytes, encoding: str, tail: str) -> None:
    text = data.decode("utf-8") + tail
    assert Screen.parse(text.encode(encoding)).render() == Screen.parse(data).render()


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.lists(
            st.sampled_from(
                [
                    "<hierarchy>",
                    "</hierarchy>",
                    "<node ",
                    'text="a"',
                    "/>",
                    ">",
                    "</node>",
                    "\x00",
                    "\ufeff",
                    "<?xml version='1.0' encoding='UTF-16'?>",
                    "&amp;",
                    "&x;",
                ]
            ),
            max_size=12,
        ).map("".join),
    )
)
def test_arbitrary_input_parses_or_raises_the_typed_error(data: bytes | str) -> None:
    try:
        screen = Screen.parse(data)
    except ScreenParseError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert screen.render().startswith("app: ")
