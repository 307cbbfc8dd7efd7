"""The simulated apps answer to the names people use for them, in `open_app` and in the
launcher's search; a name that fits several apps is refused with the candidates named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.screen import Screen
from devices.base import AppNotFound
from simulator import Simulator
from simulator.apps.names import APP_ALIASES, compact, find_app
from simulator.state import (
    BROCCOLI,
    CALENDAR,
    CLOCK,
    CONTACTS,
    EXPENSE,
    FILES,
    MARKOR,
    MESSAGES,
    SETTINGS,
    TASKS_APP,
)

NAMES_PEOPLE_USE = {
    "calendar": CALENDAR,
    "Calendar app": CALENDAR,
    "the calendar app": CALENDAR,
    "Simple Calendar Pro": CALENDAR,
    "clock": CLOCK,
    "alarm": CLOCK,
    "contacts": CONTACTS,
    "messages": MESSAGES,
    "SMS": MESSAGES,
    "texts": MESSAGES,
    "expenses": EXPENSE,
    "Pro Expense": EXPENSE,
    "ProExpense": EXPENSE,
    "expense tracker": EXPENSE,
    "markor": MARKOR,
    "notes": MARKOR,
    "files": FILES,
    "File Manager": FILES,
    "tasks": TASKS_APP,
    "to-do": TASKS_APP,
    "todo list": TASKS_APP,
    "recipes": BROCCOLI,
    "Broccoli": BROCCOLI,
    "settings": SETTINGS,
    "  SETTINGS ": SETTINGS,
    SETTINGS: SETTINGS,
}


def phone() -> Simulator:
    return Simulator(state={"permission_prompts": []})


@pytest.mark.parametrize(("name", "package"), NAMES_PEOPLE_USE.items())
def test_open_app_takes_the_names_people_use(name: str, package: str) -> None:
    sim = phone()
    assert sim.open_app(name) == package
    assert sim.foreground_app() == package


@pytest.mark.parametrize(
    ("name", "candidates"),
    [
        ("Pro", "'Calendar', 'Pro Expense'"),
        ("text", "'Markor', 'Messages'"),
        ("Google", "'Files', 'Messages'"),
    ],
)
def test_a_name_that_fits_several_apps_opens_none_and_names_them(
    name: str, candidates: str
) -> None:
    sim = phone()
    with pytest.raises(
        AppNotFound, match=f"'{name}' is ambiguous: it could be any of {candidates}"
    ):
        sim.open_app(name)
    assert sim.foreground_app() != EXPENSE


def test_an_unknown_name_still_suggests_the_closest_label() -> None:
    with pytest.raises(AppNotFound, match=r"no app named 'Setings' is installed; did you mean"):
        phone().open_app("Setings")
    with pytest.raises(AppNotFound, match=r"^no app named 'Snapchat' is installed$"):
        phone().open_app("Snapchat")


def test_no_name_belongs_to_two_apps() -> None:
    labels = {package: package for package in APP_ALIASES}
    owners: dict[str, str] = {}
    for package, aliases in APP_ALIASES.items():
        for alias in aliases:
            assert owners.setdefault(compact(alias), package) == package, alias
            assert find_app(alias, labels) == package


@settings(deadline=None, max_examples=60)
@given(
    name=st.sampled_from([n for n in NAMES_PEOPLE_USE if n != SETTINGS]),
    upper=st.lists(st.booleans(), min_size=40, max_size=40),
    spaced=st.sampled_from(["", " ", "  "]),
)
def test_case_and_spacing_do_not_matter(name: str, upper: list[bool], spaced: str) -> None:
    mixed = "".join(c.upper() if up else c.lower() for c, up in zip(name, upper * 2, strict=False))
    assert phone().open_app(spaced + mixed + spaced) == NAMES_PEOPLE_USE[name]


def drawer_search(query: str) -> list[str]:
    """The app icons the launcher's drawer lists for `query` typed into its search."""
    sim = phone()
    sim.swipe(540, 1800, 540, 600)
    sim.tap_on("Search your phone and more")
    sim.type_text(query)
    screen = Screen.parse(sim.dump_xml())
    return [e.label for e in screen.elements if e.clickable and e.role != "input"]


def test_the_launcher_search_finds_apps_by_other_names() -> None:
    assert drawer_search("sms") == ["Messages"]
    assert drawer_search("expense tracker") == ["Pro Expense"]
    assert drawer_search("Simple Calendar") == ["Calendar"]
    assert drawer_search("to-do") == ["Tasks"]
    assert drawer_search("Recipes") == ["Broccoli"]
    # a search lists every app a partial name fits, in the drawer's order
    assert drawer_search("pro") == ["Calendar", "Pro Expense"]
    assert drawer_search("cal") == ["Calendar"]


def test_a_launcher_search_tapped_opens_the_app() -> None:
    sim = phone()
    sim.swipe(540, 1800, 540, 600)
    sim.tap_on("Search your phone and more")
    sim.type_text("alarm")
    sim.tap_on("Clock")
    assert sim.foreground_app() == CLOCK
