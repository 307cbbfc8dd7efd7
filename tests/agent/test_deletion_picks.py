"""A deletion is run only on the items the goal deletes, once a screen has listed them: small
models select or open the row beside the named one, and a deleted item cannot be brought back."""

from __future__ import annotations

from agent.actions import Action, LongPress, Tap
from agent.execute import execute
from agent.guards import GuardDecision, Guards
from agent.screen import Screen
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME


class Phone:
    """A simulated phone driven through the guards, as the loop drives it."""

    def __init__(self, task: str, app: str, goal: str) -> None:
        self.device = Simulator(state=TASKS_BY_NAME[task].initial_state(0))
        self.device.open_app(app)
        self.screen = Screen.parse(self.device.dump_xml())
        self.guards = Guards(goal, confirm=lambda described: True)

    def index(self, text: str) -> int:
        return next(e.index for e in self.screen.elements if text in e.label)

    def act(self, action: Action, shown: Screen | None = None) -> GuardDecision:
        """Review `action` on `shown` (the screen, unless given), and run it if allowed."""
        shown = shown or self.screen
        target = shown.element(action.index) if hasattr(action, "index") else None
        decision = self.guards.review(action, target, shown)
        if decision.verdict == "allow":
            before = self.screen
            execute(action, before, self.device, sleep=lambda seconds: None)
            self.screen = Screen.parse(self.device.dump_xml())
            self.guards.observe(action, before, self.screen)
        return decision


TITLE = TASKS_BY_NAME["ExpenseDeleteSingle"].params(0)["names"]  # "Dinner Party Fnac"
NEIGHBOUR = "Video Games Amazon, Entertainment · Oct 10, 2024, 316.62, $"


def expense_list() -> Phone:
    phone = Phone("ExpenseDeleteSingle", "Pro Expense", f"{TITLE} has to go, delete it")
    phone.act(Tap(index=phone.index("More")))  # every expense, each selectable
    return phone


def test_picking_another_item_where_the_one_to_delete_is_listed_is_blocked() -> None:
    phone = expense_list()
    decision = phone.act(LongPress(index=phone.index(NEIGHBOUR)))
    assert decision.verdict == "block"
    assert [note.kind for note in decision.notes] == ["off_goal"]
    assert (
        f'picks an item the goal does not ask to delete. The goal deletes "{TITLE}" '
        f"[{phone.index(TITLE)}], listed on this screen: pick that instead."
    ) in decision.feedback[0]
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
