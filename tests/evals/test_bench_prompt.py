"""`bench prompt`: T3A's element text rebuilt exactly, lost controls found, sizes and timings."""

from __future__ import annotations

import json
from pathlib import Path
from xml.sax.saxutils import quoteattr

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.cli import main
from agent.screen import Screen
from evals.bench import coverage, prompt, t3a

APP = "com.example.app"


def node(
    cls: str, bounds: tuple[int, int, int, int], *children: str, package: str = APP, **attrs: str
) -> str:
    """A `<node>` with uiautomator's attributes; flags given as keyword names ('true')."""
    values = {
        "index": "0",
        "text": "",
        "resource-id": "",
        "class": cls,
        "package": package,
        "content-desc": "",
        "checkable": "false",
        "checked": "false",
        "clickable": "false",
        "enabled": "true",
        "focusable": "false",
        "focused": "false",
        "scrollable": "false",
        "long-clickable": "false",
        "password": "false",
        "selected": "false",
    }
    values.update({key.replace("_", "-"): value for key, value in attrs.items()})
    x1, y1, x2, y2 = bounds
    rendered = " ".join(f"{key}={quoteattr(value)}" for key, value in values.items())
    rendered += f' bounds="[{x1},{y1}][{x2},{y2}]"'
    return f"<node {rendered}>{''.join(children)}</node>" if children else f"<node {rendered} />"


def dump(*windows: str) -> bytes:
    body = "".join(windows)
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
        f'<hierarchy rotation="0">{body}</hierarchy>'
    ).encode()


# -- T3A's text ------------------------------------------------------------------------------


def test_t3a_prints_every_field_of_every_node_with_original_indices() -> None:
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node("android.widget.Button", (0, 3000, 500, 3100), text="Below the screen"),
            node("android.widget.Button", (40, 100, 500, 200), text="OK", clickable="true"),
        )
    )
    described = t3a.describe(data)
    lines = described.text.splitlines()
    assert described.elements == 2 == len(lines)
    # The window is element 0; the off-screen button (1) is filtered and leaves a gap.
    assert lines[0].startswith("UI element 0: UIElement(text='', content_description=''")
    assert lines[1] == (
        "UI element 2: UIElement(text='OK', content_description='', "
        "class_name='android.widget.Button', "
        "bbox=BoundingBox(x_min=40, x_max=500, y_min=100, y_max=200), "
        "bbox_pixels=BoundingBox(x_min=40, x_max=500, y_min=100, y_max=200), "
        "hint_text=None, is_checked=False, is_checkable=False, is_clickable=True, "
        "is_editable=None, is_enabled=True, is_focused=False, is_focusable=False, "
        "is_long_clickable=False, is_scrollable=False, is_selected=False, is_visible=True, "
        f"package_name='{APP}', resource_name=None, tooltip=None, resource_id='', "
        "metadata=None)"
    )


def test_t3a_forest_selection_keeps_leaves_descriptions_and_lists_without_empty_strings() -> None:
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node(
                "android.widget.LinearLayout",
                (0, 0, 1080, 300),
                node("android.widget.TextView", (0, 0, 500, 100), text="Title"),
            ),
            node(
                "androidx.recyclerview.widget.RecyclerView",
                (0, 300, 1080, 2400),
                node("android.widget.ImageView", (0, 300, 100, 400), content_desc="Photo"),
                scrollable="true",
            ),
            node(
                "android.widget.EditText",
                (0, 2000, 1080, 2100),
                hint="Search",
                visible_to_user="false",
            ),
        )
    )
    lines = t3a.describe(data, "forest").text.splitlines()
    # kept: the title leaf (2), the list (3) and its image (4); the hidden field is dropped
    assert [line.split(":", 1)[0] for line in lines] == [
        "UI element 0",
        "UI element 1",
        "UI element 2",
    ]
    assert lines[0].startswith("UI element 0: UIElement(text='Title', content_description=None")
    assert "bbox=None, bbox_pixels=BoundingBox(x_min=0, x_max=500, y_min=0, y_max=100)" in lines[0]
    assert "is_scrollable=True" in lines[1] and "resource_name=None" in lines[1]
    assert "content_description='Photo'" in lines[2]


Box = tuple[int, int, int, int]


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> tuple[str, list[tuple[Box, str]]]:
    """A random node tree: its XML, and (bounds, text) of each node in document order."""
    x1, y1 = draw(st.integers(-200, 1200)), draw(st.integers(-200, 2600))
    box = (x1, y1, x1 + draw(st.integers(-50, 900)), y1 + draw(st.integers(-50, 900)))
    label = draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8))
    children = draw(st.lists(trees(depth + 1), max_size=3)) if depth < 3 else []
    xml = node("android.view.View", box, *(child for child, _ in children), text=label)
    return xml, [(box, label)] + [entry for _, entries in children for entry in entries]


@settings(max_examples=60, deadline=None)
@given(st.lists(trees(), min_size=1, max_size=3))
def test_t3a_lists_exactly_the_nodes_whose_box_overlaps_the_screen(
    windows: list[tuple[str, list[tuple[Box, str]]]],
) -> None:
    width = max(entries[0][0][2] for _, entries in windows)
    height = max(entries[0][0][3] for _, entries in windows)
    nodes = [entry for _, entries in windows for entry in entries]
    expected = [
        (index, label)
        for index, ((x1, y1, x2, y2), label) in enumerate(nodes)
        if x1 < x2 and y1 < y2 and x1 < width and y1 < height and x2 > 0 and y2 > 0
    ]
    lines = t3a.describe(dump(*(xml for xml, _ in windows))).text.splitlines()
    assert len(lines) == len(expected)
    for line, (index, label) in zip(lines, expected, strict=True):
        assert line.startswith(f"UI element {index}: UIElement(text={label!r}, ")


# -- lost controls ---------------------------------------------------------------------------


def gapped_wrapper(**attributes: str) -> str:
    """A clickable, unlabeled row whose two buttons leave its centre (540, 700) uncovered."""
    return node(
        "android.widget.LinearLayout",
        (0, 500, 1080, 900),
        node("android.widget.Button", (0, 500, 1080, 600), text="Top", clickable="true"),
        node("android.widget.Button", (0, 800, 1080, 900), text="Bottom", clickable="true"),
        clickable="true",
        **attributes,
    )


def test_an_unlabeled_wrapper_whose_centre_no_element_covers_is_reported_lost() -> None:
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            gapped_wrapper(resource_id="com.example.app:id/row"),
        )
    )
    found = coverage.check(data, Screen.parse(data))
    assert found.actionable == 3
    assert [(n.resource_id, n.bounds, n.actions, n.wraps) for n in found.lost] == [
        ("com.example.app:id/row", (0, 500, 1080, 900), ["click"], 2)
    ]


def test_a_clickable_row_around_a_zero_size_text_is_listed_by_that_text() -> None:
    hidden_child = node(
        "android.widget.TextView", (0, 0, 0, 0), text="Charging 65%", clickable="true"
    )
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node(
                "android.widget.LinearLayout",
                (230, 2170, 850, 2254),
                hidden_child,
                clickable="true",
            ),
        )
    )
    screen = Screen.parse(data)
    assert [(e.label, e.bounds) for e in screen.elements] == [
        ("Charging 65%", (230, 2170, 850, 2254))
    ]
    assert coverage.check(data, screen).lost == []


def test_keyboard_keys_system_bars_and_covered_controls_are_not_counted_lost() -> None:
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node("android.widget.Button", (40, 1300, 500, 1400), text="Under", clickable="true"),
            node("android.widget.Button", (40, 100, 500, 200), text="Save", clickable="true"),
        ),
        node(
            "android.widget.FrameLayout",
            (0, 2300, 1080, 2400),
            node(
                "android.widget.ImageView",
                (0, 2300, 360, 2400),
                content_desc="Back",
                clickable="true",
            ),
            package="com.android.systemui",
        ),
        node(
            "android.widget.FrameLayout",
            (0, 1200, 1080, 2250),
            node("android.widget.Button", (0, 1200, 100, 1300), text="q", clickable="true"),
            package="com.google.android.inputmethod.latin",
        ),
    )
    screen = Screen.parse(data)
    found = coverage.check(data, screen)
    assert screen.keyboard
    assert (found.actionable, found.system_bar, found.lost) == (1, 1, [])


def test_a_list_does_not_cover_the_rows_inside_it() -> None:
    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node(
                "android.widget.ListView", (0, 300, 1080, 2400), gapped_wrapper(), scrollable="true"
            ),
        )
    )
    found = coverage.check(data, Screen.parse(data))
    assert [n.bounds for n in found.lost] == [(0, 500, 1080, 900)]


# -- the bench over a corpus ------------------------------------------------------------------


def test_the_real_corpus_meets_both_size_targets_and_reports_lost_controls(
    corpus_dir: Path,
) -> None:
    report = prompt.run_prompt_bench(str(corpus_dir), prompt.corpus_from_dir(corpus_dir), repeat=1)
    assert len(report.dumps) + len(report.skipped) == len(list(corpus_dir.glob("*.xml")))
    assert report.ratio_vs_t3a.met and report.ratio_vs_t3a.chars <= prompt.TARGET_VS_T3A
    assert report.ratio_vs_raw_xml.met and report.ratio_vs_raw_xml.chars <= 0.12
    # the forest selection prints fewer nodes, so it is the smaller (stricter) baseline
    assert report.medians.t3a_forest.chars < report.medians.t3a.chars
    assert report.lost_actionable == sum(len(d.lost) for d in report.dumps)
    assert all(d.parse_render_ms > 0 and d.lxml_ms > 0 for d in report.dumps)
    assert list(report.model_dump())[-2:] == ["ratio_vs_t3a", "ratio_vs_raw_xml"]


def test_every_control_the_list_misses_wraps_listed_elements(corpus_dir: Path) -> None:
    for path in sorted(corpus_dir.glob("*.xml")):
        data = path.read_bytes()
        for lost in coverage.check(data, Screen.parse(data)).lost:
            assert lost.wraps, f"{path.name}: nothing listed leads to {lost}"


def test_token_counts_come_from_the_given_tokenizer(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers", reason="--tokenizer needs the tokenizers package")
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    tokenizer = Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    count = prompt.load_token_counter(tmp_path)  # a folder holding tokenizer.json
    assert count("app: x, keyboard: hidden") == 7  # words and punctuation runs

    data = dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node("android.widget.Button", (40, 100, 500, 200), text="Save draft", clickable="true"),
        )
    )
    report = prompt.run_prompt_bench("made", [prompt.Dump("a.xml", data)], count, "words", repeat=1)
    result = report.dumps[0]
    ours, theirs = count(Screen.parse(data).render()), count(t3a.describe(data).text)
    assert (result.ours.tokens, result.t3a.tokens) == (ours, theirs)
    assert result.ratio_vs_t3a.tokens == pytest.approx(ours / theirs, abs=1e-4)
    assert report.ratio_vs_t3a.tokens == result.ratio_vs_t3a.tokens
    assert report.ratio_vs_raw_xml.tokens is not None


@pytest.mark.slow  # plays every task's oracle plan
def test_the_default_corpus_is_every_screen_the_oracle_visits() -> None:
    simulated = prompt.oracle_screens()
    assert len(simulated) > 100  # the oracle walks every app of the simulator
    assert len({Screen.parse(d.data).signature for d in simulated}) == len(simulated)
    assert len({Screen.parse(d.data).app for d in simulated}) >= 5


# -- the command -------------------------------------------------------------------------------


def test_bench_prompt_prints_json_and_skips_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.xml").write_bytes(
        dump(
            node(
                "android.widget.FrameLayout",
                (0, 0, 1080, 2400),
                node(
                    "android.widget.Switch", (900, 100, 1040, 200), text="Wi-Fi", checkable="true"
                ),
            )
        )
    )
    (tmp_path / "bad.xml").write_text("not a dump")
    code = main(["bench", "prompt", "--corpus", str(tmp_path), "--repeat", "2", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [d["name"] for d in report["dumps"]] == ["good.xml"]
    assert [s["name"] for s in report["skipped"]] == ["bad.xml"]
    assert report["ratio_vs_t3a"]["target"] == 0.4 and report["ratio_vs_raw_xml"]["target"] == 0.12
    assert report["lost_actionable"] == 0


def test_bench_prompt_text_names_targets_and_lost_controls(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("014_systemui_shade_dnd_es.xml", "017_permission_location_dialog.xml"):
        (tmp_path / name).write_bytes((corpus_dir / name).read_bytes())
    assert main(["bench", "prompt", "--corpus", str(tmp_path), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "ratio vs T3A: chars" in out and "(target <= 0.4: met)" in out
    assert "lost actionable elements: 2 (2 wrap listed elements)" in out
    assert "017_permission_location_dialog.xml: android.widget.LinearLayout" in out
    assert "014_systemui_shade_dnd_es.xml: android" not in out  # its charging row is listed


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--corpus", "{tmp}/missing"], "corpus directory not found"),
        (["--corpus", "{tmp}"], "no *.xml dumps"),
        (["--tokenizer", "{tmp}"], "no tokenizer.json"),
        (["--repeat", "0", "--corpus", "{corpus}"], "--repeat must be at least 1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "one.xml").write_bytes(dump(node("android.widget.FrameLayout", (0, 0, 10, 10))))
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = [a.format(tmp=empty, corpus=corpus) for a in arguments]
    assert main(["bench", "prompt", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
