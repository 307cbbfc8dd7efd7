"""Pro Expense, Tasks and Broccoli: records entered, changed and removed as a user would."""

from __future__ import annotations

import pytest

from agent.screen import Screen
from simulator import Simulator
from simulator.state import BROCCOLI, EXPENSE, FILES, MARKOR, TASKS_APP

GROCERIES = {"name": "Groceries", "amount": 35.5, "category": "Food", "date": "2024-10-14"}
TAXI = {"name": "Taxi Fare", "amount": 12, "category": "Transportation", "date": "2024-10-15"}


def labels(sim: Simulator) -> list[str]:
    return [e.label for e in Screen.parse(sim.dump_xml()).elements]


def element(sim: Simulator, label: str) -> tuple[str, bool | None]:
    found = next(e for e in Screen.parse(sim.dump_xml()).elements if e.label == label)
    return found.role, found.checked


def long_press_on(sim: Simulator, label: str) -> None:
    sim.long_press(*sim.find_views(label)[-1].bounds.center)


@pytest.mark.parametrize(
    ("name", "package"),
    [
        ("Markor", MARKOR),
        ("Files", FILES),
        ("Pro Expense", EXPENSE),
        ("tasks", TASKS_APP),
        ("Broccoli", BROCCOLI),
    ],
)
def test_the_new_apps_open_by_their_names(name: str, package: str) -> None:
    sim = Simulator()
    assert sim.open_app(name) == package
    assert Screen.parse(sim.dump_xml()).app == package


def test_an_expense_needs_an_amount_and_then_shows_with_its_details() -> None:
    sim = Simulator()
    sim.open_app("Pro Expense")
    sim.tap_on("Add expense")
    sim.type_text("Museum Tickets")
    sim.tap_on("Entertainment")
    sim.tap_on("Save")
    assert "Amount is required" in labels(sim)
    assert sim.state["expenses"] == []
    sim.tap_on("Amount")
    sim.type_text("18.50")
    sim.tap_on("10/15/2024")
    sim.tap_on("Switch to text input mode")
    sim.clear_text()
    sim.type_text("10/03/2024")
    sim.tap_on("OK")
    sim.tap_on("Save")
    assert sim.state["expenses"] == [
        {
            "name": "Museum Tickets",
            "amount": 18.5,
            "category": "Entertainment",
            "date": "2024-10-03",
            "note": "",
        }
    ]
    assert "Museum Tickets, Entertainment · Oct 3, 2024, 18.50, $" in labels(sim)


def test_expenses_selected_with_a_long_press_are_deleted_after_confirming() -> None:
    sim = Simulator({"expenses": [GROCERIES, TAXI]})
    sim.open_app("Pro Expense")
    sim.tap_on("More")
    long_press_on(sim, "Groceries")
    assert "1 selected" in labels(sim)
    sim.tap_on("Delete")
    assert "1 item will be deleted!" in labels(sim)
    sim.tap_on("Cancel")
    assert len(sim.state["expenses"]) == 2
    sim.tap_on("Delete")
    sim.tap_on("Confirm")
    assert [e["name"] for e in sim.state["expenses"]] == ["Taxi Fare"]


def test_a_tapped_expense_opens_its_sheet_and_edit_changes_it() -> None:
    sim = Simulator({"expenses": [TAXI]})
    sim.open_app("Pro Expense")
    sim.tap_on("Taxi Fare")
    assert {"Expense Detail", "$ 12.00", "Transportation", "Oct 15, 2024"} <= set(labels(sim))
    sim.tap_on("Edit")
    sim.tap_on("12.00")
    sim.clear_text()
    sim.type_text("14")
    sim.tap_on("Save")
    assert sim.state["expenses"][0]["amount"] == 14.0


def test_a_completed_task_leaves_the_list_until_completed_tasks_are_shown() -> None:
    sim = Simulator(
        {
            "todo_tasks": [
                {"title": "Review code changes", "due": "2024-10-16"},
                {"title": "Plan team outing", "due": "2024-10-15"},
            ]
        }
    )
    sim.open_app("Tasks")
    assert labels(sim)[4:10] == [
        "Plan team outing",
        "complete box",
        "Today",
        "Review code changes",
        "complete box",
        "Tomorrow",
    ]
    boxes = [v for v in sim.find_views("") if v.rid == "org.tasks:id/completeBox"]
    sim.tap(*boxes[0].bounds.center)
    assert "Plan team outing" not in labels(sim)
    sim.tap_on("More options")
    sim.tap_on("Show completed")
    assert labels(sim)[-5:-1] == ["Completed", "Plan team outing", "complete box", "Today"]
    assert [t["completed"] for t in sim.state["todo_tasks"]] == [False, True]


def test_the_task_editor_saves_on_back_and_shows_the_priority_chosen() -> None:
    sim = Simulator({"todo_tasks": []})
    sim.open_app("Tasks")
    sim.tap_on("New task")
    sim.type_text("Book flights for conference")
    sim.tap_on("No due date")
    sim.tap_on("Change to next month")
    sim.tap_on("Monday, November 4, 2024")
    sim.tap_on("OK")
    sim.tap_on("High")
    assert element(sim, "High") == ("radio", True)
    assert "Mon, Nov 4" in labels(sim)
    sim.press_key("back")  # hides nothing (no keyboard after the picker): saves and leaves
    assert sim.state["todo_tasks"] == [
        {
            "title": "Book flights for conference",
            "due": "2024-11-04",
            "priority": "high",
            "completed": False,
            "notes": "",
        }
    ]
    assert "Nov 4" in labels(sim)


def test_a_task_is_deleted_from_the_editor_menu_after_asking() -> None:
    sim = Simulator({"todo_tasks": [{"title": "Draft marketing email"}]})
    sim.open_app("Tasks")
    sim.tap_on("Draft marketing email")
    sim.tap_on("More options")
    sim.tap_on("Delete task")
    assert "Delete this task?" in labels(sim)
    sim.tap_on("Delete")
    assert sim.state["todo_tasks"] == []
    assert "No tasks" in labels(sim)


def test_a_recipe_needs_a_title_and_leaving_with_changes_asks_first() -> None:
    sim = Simulator()
    sim.open_app("Broccoli")
    sim.tap_on("New Recipe")
    sim.tap_on("Servings")
    sim.type_text("2 servings")
    sim.tap_on("Save")
    assert "Please add a title." in labels(sim)
    sim.press_key("back")  # the keyboard
    sim.press_key("back")
    assert "Discard changes?" in labels(sim)
    sim.tap_on("Discard")
    assert "No recipes found." in labels(sim)
    assert sim.state["recipes"] == []


def test_a_saved_recipe_shows_its_ingredients_and_directions() -> None:
    sim = Simulator()
    sim.open_app("Broccoli")
    sim.tap_on("New Recipe")
    sim.tap_on("Title")
    sim.type_text("Greek Salad")
    sim.press_key("back")
    sim.tap_on("Ingredients")
    sim.type_text("cucumber\nfeta")
    sim.press_key("back")
    sim.tap_on("Directions")
    sim.type_text("Chop.\nMix.")
    sim.tap_on("Save")
    assert {"Greek Salad", "• cucumber", "• feta", "1. Chop.", "2. Mix."} <= set(labels(sim))
    sim.tap_on("More options")
    sim.tap_on("Duplicate")
    assert [r["title"] for r in sim.state["recipes"]] == ["Greek Salad", "Greek Salad"]
