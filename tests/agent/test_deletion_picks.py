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

    def act(self, action: Action) -> GuardDecision:
        target = self.screen.element(action.index) if hasattr(action, "index") else None
        decision = self.guards.review(action, target, self.screen)
        if decision.verdict == "allow":
            before = self.screen
            execute(action, before, self.device, sleep=lambda seconds: None)
            self.screen = Screen.parse(self.device.dump_xml())
            self.guards.observe(action, before, self.screen)
        return decision


def test_deleting_a_selected_expense_the_goal_does_not_name_is_blocked() -> None:
    title = TASKS_BY_NAME["ExpenseDeleteSingle"].params(0)["names"]
    phone = Phone("ExpenseDeleteSingle", "Pro Expense", f"{title} has to go, delete it")
    phone.act(Tap(index=phone.index("More")))  # every expense, each selectable
    neighbour = next(
        e.label
        for e in phone.screen.elements
        if e.label.startswith(("Video", "Wedding", "Movie")) and e.clickable
    )
    assert phone.act(LongPress(index=phone.index(neighbour))).verdict == "allow"
    decision = phone.act(Tap(index=phone.index("Delete")))
    assert decision.verdict == "block"
    assert [note.kind for note in decision.notes] == ["off_goal"]
    assert (
        f'would delete "{neighbour}", which the goal does not ask to delete; it asks to '
        f'delete "{title}"'
    ) in decision.feedback[0]
    # the named one selected instead: the deletion runs
    phone.act(LongPress(index=phone.index(neighbour)))  # deselect
    phone.act(LongPress(index=phone.index(title)))
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"


def test_deleting_an_opened_recipe_the_goal_does_not_name_is_blocked() -> None:
    phone = Phone(
        "RecipeDeleteSingleRecipe", "Broccoli", "Remove Tabbouleh with cucumber from Broccoli."
    )
    phone.act(Tap(index=phone.index("Tabbouleh with chicken")))  # the row beside it
    phone.act(Tap(index=phone.index("More options")))
    decision = phone.act(Tap(index=phone.index("Delete")))
    assert decision.verdict == "block"
    assert '"Recipe photo, Tabbouleh with chicken, Rich lunch for cold n…"' in decision.feedback[0]


def test_a_deletion_is_not_judged_before_a_screen_listed_what_the_goal_deletes() -> None:
    # the goal's items are named by what they are, not by title: nothing to compare against
    phone = Phone("RecipeDeleteSingleRecipe", "Broccoli", "Delete my oldest recipe.")
    phone.act(Tap(index=phone.index("Tabbouleh with chicken")))
    phone.act(Tap(index=phone.index("More options")))
    assert phone.act(Tap(index=phone.index("Delete"))).verdict == "allow"
