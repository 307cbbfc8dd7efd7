"""A deletion is run only on the items the goal deletes, once a screen has listed them: small
models select or open the row beside the named one, and a deleted item cannot be brought back."""

from __future__ import annotations

from agent.actions import LongPress, Tap
from agent.screen import Screen
from simulator.tasks import TASKS_BY_NAME
from tests.support.guarded_phone import Phone

TITLE = TASKS_BY_NAME["ExpenseDeleteSingle"].params(0)["names"]  # "Dinner Party Fnac"
NEIGHBOUR = "Video Games Amazon, Entertainment · Oct 10, 2024, 316.62, $"


def expense_list() -> Phone:
    phone = Phone("ExpenseDeleteSingle", "Pro Expense", f"{TITLE} has to go, delete it")
    phone.act(Tap(index=phone.index("More")))  # every expense, each selectable
    return phone


def test_picking_another_item_where_the_one_to_delete_is_listed_is_blocked() -> None:
    phone = expense_list()
    assert (
        f'picks an item the goal does not ask to delete. The goal deletes "{TITLE}" '
        f"[{phone.index(TITLE)}], listed on this screen: pick that instead."
    ) in phone.blocked_off_goal(LongPress(index=phone.index(NEIGHBOUR)))
    assert phone.act(LongPress(index=phone.index(TITLE))).verdict == "allow"
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"


def test_deleting_an_item_picked_where_the_named_one_was_not_shown_is_blocked() -> None:
    phone = expense_list()
    # the list scrolled so that the named expense is off screen: picking another is allowed
    scrolled = Screen(
        phone.screen.app,
        phone.screen.keyboard,
        phone.screen.width,
        phone.screen.height,
        phone.screen.rotation,
        [e for e in phone.screen.elements if TITLE not in e.label],
    )
    assert phone.act(LongPress(index=phone.index(NEIGHBOUR)), scrolled).verdict == "allow"
    decision = phone.act(Tap(index=phone.index("Delete")))
    assert decision.verdict == "block"
    assert (
        f'would delete "{NEIGHBOUR}", which the goal does not ask to delete; it asks to delete '
        f'"{TITLE}"'
    ) in decision.feedback[0]
    # the way out: deselect it (no pick, though the named one is listed), select the named one
    assert phone.act(LongPress(index=phone.index(NEIGHBOUR))).verdict == "allow"
    assert phone.act(LongPress(index=phone.index(TITLE))).verdict == "allow"
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"


def test_deleting_an_opened_recipe_the_goal_does_not_name_is_blocked() -> None:
    phone = Phone(
        "RecipeDeleteSingleRecipe", "Broccoli", "Remove Tabbouleh with cucumber from Broccoli."
    )
    decision = phone.act(Tap(index=phone.index("Tabbouleh with chicken")))  # the row beside it
    assert decision.verdict == "block"
    assert '"Tabbouleh with cucumber" [7]' in decision.feedback[0]
    assert phone.act(Tap(index=phone.index("Tabbouleh with cucumber"))).verdict == "allow"
    phone.act(Tap(index=phone.index("More options")))
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"


def test_a_deletion_is_not_judged_before_a_screen_listed_what_the_goal_deletes() -> None:
    # the goal's items are named by what they are, not by title: nothing to compare against
    phone = Phone("RecipeDeleteSingleRecipe", "Broccoli", "Delete my oldest recipe.")
    assert phone.act(Tap(index=phone.index("Tabbouleh with chicken"))).verdict == "allow"
    phone.act(Tap(index=phone.index("More options")))
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"
