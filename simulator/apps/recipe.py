"""Broccoli: recipe cards, a recipe's details, and the form that creates or edits one.

A card opens the recipe; its menu edits, duplicates or deletes it (after asking). The form
scrolls through title, description, servings, time, ingredients and directions; Save keeps the
recipe and shows it, and leaving with changes asks whether to discard them.
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.apps.dialogs import ConfirmDialog, PopupMenu, ask_to_delete
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import BROCCOLI, Recipe
from simulator.view import (
    CARD,
    FRAME,
    IMAGE,
    LINEAR,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import (
    Field,
    button,
    edit_text,
    fab,
    icon_button,
    menu_item,
    overflow_button,
    recycler,
    scroll_view,
    text,
)

_BAR = 147
_CARD = 330
_FIELDS = (
    ("title", "Title", "new_title"),
    ("categories", "Categories", "new_categories"),
    ("description", "Description", "new_description"),
    ("source", "Source", "new_source"),
    ("servings", "Servings", "new_servings"),
    ("prep_time", "Time", "new_preparation_time"),
    ("ingredients", "Ingredients", "new_ingredients"),
    ("directions", "Directions", "new_directions"),
    ("nutrition", "Nutrition", "new_nutritional_values"),
    ("notes", "Notes", "new_notes"),
)
_KEPT = ("title", "description", "servings", "prep_time", "ingredients", "directions")


def _text_row(value: str, x: int, top: int, size: int, rid_: str = "") -> Callable[[Rect], View]:
    """A list row holding one line of text."""
    return lambda box: text(value, x, box.y1 + top, size, 1017, rid=rid_)


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


class RecipesPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, BROCCOLI)
        self.scroll = ScrollState()

    def _card(self, recipe: Recipe) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            card = box.inset(31, 16)
            children = [
                View(
                    IMAGE,
                    Rect(card.x1, card.y1, card.x1 + 300, card.y2),
                    rid=rid(BROCCOLI, "card_image"),
                    desc="Recipe photo",
                ),
                text(
                    recipe.title,
                    card.x1 + 340,
                    card.y1 + 40,
                    46,
                    card.x2 - 30,
                    rid=rid(BROCCOLI, "card_text_view_title"),
                ),
            ]
            if recipe.description:
                children.append(
                    text(
                        recipe.description,
                        card.x1 + 340,
                        card.y1 + 120,
                        37,
                        card.x2 - 30,
                        rid=rid(BROCCOLI, "card_text_view_description"),
                    )
                )
            return View(
                FRAME,
                box,
                children=[
                    View(
                        CARD,
                        card,
                        clickable=True,
                        focusable=True,
                        on_tap=lambda: self.phone.push(RecipeDetailsPage(self.phone, recipe)),
                        children=[View(VIEW_GROUP, card, children=children)],
                    )
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        recipes = sorted(self.state.recipes, key=lambda r: r.title.casefold())
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        listing: View
        if recipes:
            listing = recycler(
                body,
                [(_CARD, self._card(r)) for r in recipes],
                self.scroll,
                rid(BROCCOLI, "recycler_view"),
            )
            listing.desc = "Recipes"
        else:
            listing = View(
                LINEAR,
                body,
                rid=rid(BROCCOLI, "recipes_empty"),
                children=[
                    text("No recipes found.", 300, body.y1 + 500, 48, 1000),
                    text("create a new recipe", 330, body.y1 + 600, 40, 1000),
                ],
            )
        toolbar = View(
            VIEW_GROUP,
            bar,
            rid=rid(BROCCOLI, "toolbar_recipes"),
            children=[
                icon_button("Open navigation drawer", Rect(0, bar.y1, _BAR, bar.y2), lambda: None),
                View(
                    "android.widget.Spinner",
                    Rect(189, bar.y1 + 20, 700, bar.y2 - 20),
                    rid=rid(BROCCOLI, "spinner"),
                    desc="Categories",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: None,
                    children=[
                        text("All recipes", 210, bar.y1 + 45, 52, 680, rid="android:id/text1")
                    ],
                ),
                menu_item(
                    "Search",
                    Rect(933, bar.y1, 1080, bar.y2),
                    lambda: None,
                    rid(BROCCOLI, "action_search"),
                ),
            ],
        )
        new_recipe = fab(
            BROCCOLI,
            "New Recipe",
            lambda: self.phone.push(RecipeEditPage(self.phone, None)),
            frame.y2,
            "fab_recipes",
        )
        return View(
            FRAME,
            frame,
            rid=rid(BROCCOLI, "drawer_layout"),
            children=[toolbar, listing, new_recipe],
        )


class RecipeDetailsPage(Page):
    def __init__(self, phone: Phone, recipe: Recipe) -> None:
        super().__init__(phone, BROCCOLI)
        self.recipe = recipe
        self.scroll = ScrollState()

    def on_resume(self) -> None:
        if not any(r is self.recipe for r in self.state.recipes):
            self.phone.pop(self)

    def _delete(self) -> None:
        recipe = self.recipe

        def remove() -> None:
            self.state.recipes = [r for r in self.state.recipes if r is not recipe]

        ask_to_delete(self, "", "Delete this recipe?", remove)

    def _duplicate(self) -> None:
        copy = self.recipe.model_copy()
        self.state.recipes = [*self.state.recipes, copy]
        self.phone.pop(self)
        self.phone.push(RecipeDetailsPage(self.phone, self.state.recipes[-1]))

    def _more(self) -> None:
        items = [
            ("Share", lambda: None),
            ("Share as file", lambda: None),
            ("Duplicate", self._duplicate),
            ("Delete", self._delete),
        ]
        self.phone.open_dialog(PopupMenu(self.phone, BROCCOLI, items))

    def content(self, frame: Rect) -> View:
        r = self.recipe
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        rows: list[tuple[int, Callable[[Rect], View]]] = [
            (150, _text_row(r.title, 63, 40, 60, rid(BROCCOLI, "details_title")))
        ]
        facts = [
            (value, name)
            for value, name in (
                (r.servings, "details_servings"),
                (r.prep_time, "details_preparation_time"),
            )
            if value
        ]
        if facts:

            def facts_row(box: Rect) -> View:
                children = []
                for position, (value, name) in enumerate(facts):
                    x = 63 + position * 480
                    children.append(
                        text(value, x + 90, box.y1 + 30, 40, x + 460, rid=rid(BROCCOLI, name))
                    )
                return View(LINEAR, box, children=children)

            rows.append((110, facts_row))
        if r.description:
            rows.append(
                (130, _text_row(r.description, 63, 30, 40, rid(BROCCOLI, "details_description")))
            )
        for heading, entries, numbered in (
            ("Ingredients", _lines(r.ingredients), False),
            ("Directions", _lines(r.directions), True),
        ):
            if not entries:
                continue
            rows.append((120, _text_row(heading, 63, 40, 46)))
            for number, entry in enumerate(entries, start=1):
                shown = f"{number}. {entry}" if numbered else f"• {entry}"
                rows.append((100, _text_row(shown, 84, 20, 40)))
        toolbar = View(
            VIEW_GROUP,
            bar,
            rid=rid(BROCCOLI, "toolbar"),
            children=[
                icon_button(
                    "Navigate up", Rect(0, bar.y1, _BAR, bar.y2), lambda: self.phone.pop(self)
                ),
                menu_item(
                    "Mark as favorite",
                    Rect(681, bar.y1, 807, bar.y2),
                    lambda: None,
                    rid(BROCCOLI, "action_details_like"),
                ),
                menu_item(
                    "Edit",
                    Rect(807, bar.y1, 954, bar.y2),
                    lambda: self.phone.push(RecipeEditPage(self.phone, r)),
                    rid(BROCCOLI, "action_details_edit"),
                ),
                overflow_button(Rect(954, bar.y1, 1080, bar.y2), self._more),
            ],
        )
        content = scroll_view(body, rows, self.scroll, rid(BROCCOLI, "scroll_view"))
        cook = fab(BROCCOLI, "Cook", lambda: None, frame.y2, "fab_cooking_assistant")
        return View(
            FRAME, frame, rid=rid(BROCCOLI, "recipe_details"), children=[toolbar, content, cook]
        )


class RecipeEditPage(Page):
    """New recipe, or an existing one being edited; Save keeps it only with a title."""

    def __init__(self, phone: Phone, recipe: Recipe | None) -> None:
        super().__init__(phone, BROCCOLI)
        self.recipe = recipe
        values = recipe.model_dump() if recipe else {}
        self.fields = {
            key: Field(text=str(values.get(key, "")), hint=hint) for key, hint, _ in _FIELDS
        }
        self.original = {key: f.text for key, f in self.fields.items()}
        self.error = ""
        self.scroll = ScrollState()

    def _changed(self) -> bool:
        return any(f.text != self.original[key] for key, f in self.fields.items())

    def _leave(self) -> None:
        if self._changed():
            self.phone.open_dialog(
                ConfirmDialog(
                    self.phone,
                    BROCCOLI,
                    "",
                    "Discard changes?",
                    "Discard",
                    lambda: self.phone.pop(self),
                )
            )
        else:
            self.phone.pop(self)

    def on_back(self) -> bool:
        self._leave()
        return True

    def _save(self) -> None:
        values = {key: self.fields[key].text.strip() for key in _KEPT}
        if not values["title"]:
            self.error = "Please add a title."
            self.phone.changes += 1
            return
        if self.recipe is None:
            self.state.recipes = [*self.state.recipes, Recipe(**values)]
            self.phone.pop(self)
            self.phone.push(RecipeDetailsPage(self.phone, self.state.recipes[-1]))
        else:
            for key, value in values.items():
                setattr(self.recipe, key, value)
            self.phone.pop(self)

    def _field_row(self, key: str, name: str) -> Callable[[Rect], View]:
        field = self.fields[key]

        def build(box: Rect) -> View:
            return View(
                LINEAR,
                box,
                rid=rid(BROCCOLI, "text_input_layout"),
                children=[
                    edit_text(
                        field,
                        Rect(42, box.y1 + 15, 1038, box.y2 - 15),
                        self.phone.focus is field,
                        self.phone.focuser(field, self),
                        rid(BROCCOLI, name),
                    )
                ],
            )

        return build

    def _photo(self, box: Rect) -> View:
        return View(
            VIEW_GROUP,
            box,
            children=[
                View(
                    IMAGE,
                    Rect(0, box.y1, WIDTH, box.y2 - 20),
                    rid=rid(BROCCOLI, "new_image"),
                    desc="Recipe photo",
                ),
                View(
                    IMAGE,
                    Rect(880, box.y2 - 150, 1010, box.y2 - 40),
                    desc="Change photo",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: None,
                ),
            ],
        )

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        title = "New Recipe" if self.recipe is None else "Edit"
        toolbar = View(
            VIEW_GROUP,
            bar,
            rid=rid(BROCCOLI, "toolbar"),
            children=[
                icon_button("Navigate up", Rect(0, bar.y1, _BAR, bar.y2), self._leave),
                text(title, 189, bar.y1 + 40, 52, 700),
                button(
                    "Save",
                    Rect(820, bar.y1 + 20, 1038, bar.y2 - 20),
                    self._save,
                    rid(BROCCOLI, "button_save_recipe"),
                ),
            ],
        )
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        rows: list[tuple[int, Callable[[Rect], View]]] = [(420, self._photo)]
        if self.error:
            rows.append((80, _text_row(self.error, 63, 15, 37)))
        rows += [(180, self._field_row(key, name)) for key, _, name in _FIELDS]
        form = scroll_view(body, rows, self.scroll, cls="androidx.core.widget.NestedScrollView")
        return View(FRAME, frame, rid=rid(BROCCOLI, "new_recipe_root"), children=[toolbar, form])


def recipe_root(phone: Phone) -> Page:
    return RecipesPage(phone)
