"""Broccoli: recipes added one or three at a time, deleted, deduplicated, and read."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from simulator.state import BROCCOLI
from simulator.tasks import pools
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    key,
    named,
    normalize_text,
    open_app,
    remember,
    same_digits,
    tap,
    type_in,
)

_DISHES = pools.words(
    "Avocado Toast, Pad Thai, Greek Salad, Banana Pancakes, Tomato Soup, Gazpacho andaluz, "
    "Chicken Curry, Overnight Oats, Lentil Stew, 麻婆豆腐, Risotto, Shakshuka, Ramen, Paella, "
    "Tacos, Falafel Wrap, Borscht, Quiche, Bibimbap, Moussaka, Pho, Crêpes, Frittata, Dal, "
    "Poke Bowl, Goulash, Tabbouleh, Pierogi, Couscous, Onigiri, Chili, Minestrone"
)
_INGREDIENTS = pools.words(
    "egg, avocado, rice noodles, tofu, peanuts, lime, cucumber, tomato, feta, olives, banana, "
    "flour, milk, onion, garlic, stock, chicken, coconut milk, rice, oats, yogurt, berries, "
    "lentils, carrots, celery, cumin, spinach, mushrooms, chickpeas, paprika, basil, lemon, "
    "ginger, miso, pepper, zucchini, potatoes, butter, parmesan, coriander"
)
_STYLES = pools.words(
    "Spicy, Quick, Vegan, Classic, Smoky, Creamy, Grandma's, Weeknight, Summer, Winter, Easy"
)
_DESCRIPTIONS = (
    "{adjective} {kind} for {occasion}.",
    "A {adjective} {kind}, ready in no time.",
    "{kind} that {who} love.",
)


def _title(rng: random.Random) -> str:
    """ "Spicy Ramen", "Paella with spinach", "Léa's Crêpes"."""
    dish = rng.choice(_DISHES)
    shape = rng.randrange(3)
    if shape == 0:
        return f"{rng.choice(_STYLES)} {dish}"
    if shape == 1:
        return f"{dish} with {rng.choice(_INGREDIENTS)}"
    return f"{pools.first_name(rng)}'s {dish}"


def _description(rng: random.Random) -> str:
    return (
        rng.choice(_DESCRIPTIONS)
        .format(
            adjective=pools.pick_word(rng, "simple, hearty, light, fresh, warming, zesty, rich"),
            kind=pools.pick_word(rng, "breakfast, lunch, dinner, snack, side dish, soup, bowl"),
            occasion=pools.pick_word(rng, "busy days, the weekend, cold nights, picnics, two"),
            who=pools.pick_word(rng, "kids, guests, students, runners, night owls"),
        )
        .capitalize()
    )


def _recipe(rng: random.Random) -> dict[str, str]:
    ingredients = rng.sample(_INGREDIENTS, rng.randrange(3, 6))
    servings = rng.randrange(1, 13)
    return {
        "title": _title(rng),
        "description": _description(rng),
        "servings": f"{servings} serving{'s' if servings > 1 else ''}",
        "prep_time": f"{rng.randrange(1, 37) * 5} mins",
        "ingredients": ", ".join(ingredients),
        "directions": (
            f"Prepare the {ingredients[0]}. Add the {ingredients[1]} and cook for "
            f"{rng.randrange(2, 40)} minutes. Serve with the {ingredients[-1]}."
        ),
    }


FIELDS = ("title", "description", "servings", "prep_time", "ingredients", "directions")


def _recipes(rng: random.Random, count: int) -> list[dict[str, str]]:
    """`count` recipes, no title the start of another."""
    recipes: list[dict[str, str]] = []
    while len(recipes) < count:
        recipe = _recipe(rng)
        if not pools.clashes(recipe["title"], [r["title"] for r in recipes]):
            recipes.append(recipe)
    return recipes


def _items(text: str) -> list[str]:
    """A list field, typed on one line or one item a line."""
    return [normalize_text(item) for item in re.split(r"[\n,;]", text) if item.strip()]


def _matches(record: dict[str, str], wanted: dict[str, str], fields: tuple[str, ...]) -> bool:
    return all(_items(record[name]) == _items(wanted[name]) for name in fields)


def _stored(state: State, wanted: dict[str, str], fields: tuple[str, ...] = FIELDS) -> bool:
    return any(_matches(record, wanted, fields) for record in state["recipes"])


def _single(rng: random.Random) -> Params:
    recipe, *others = _recipes(rng, 3)
    return {**recipe, "others": others}


_SHORT = ("title", "description", "servings")


def _multiple(rng: random.Random) -> Params:
    rows = _recipes(rng, 3)
    listing = "\n".join(f"{r['title']} | {r['description']} | {r['servings']}" for r in rows)
    return {"rows": rows, "listing": listing}


def _from_markor(rng: random.Random) -> Params:
    params = _multiple(rng)
    return {**params, "text": "title | description | servings\n" + params["listing"]}


def _short_entry(recipe: dict[str, str]) -> list[PlanStep]:
    return [
        tap("New Recipe"),
        type_in("Title", recipe["title"]),
        type_in("Description", recipe["description"]),
        type_in("Servings", recipe["servings"]),
        tap("Save"),
        key("back"),
    ]


def _delete(count: int, noise: int) -> Callable[[random.Random], Params]:
    def sample(rng: random.Random) -> Params:
        rows = _recipes(rng, count + noise)
        return {
            "rows": rows,
            "targets": rows[:count],
            "titles": ", ".join(r["title"] for r in rows[:count]),
        }

    return sample


def _delete_steps(title: str) -> list[PlanStep]:
    return [tap(title), tap("More options"), tap("Delete"), tap("Delete")]


def _deleted(state: State, p: Params) -> bool:
    kept = p["rows"][len(p["targets"]) :]
    return len(state["recipes"]) == len(kept) and all(_stored(state, r) for r in kept)


def _duplicates(rng: random.Random) -> Params:
    rows = _recipes(rng, 4)
    return {"rows": rows, "duplicate": rows[0]}


def _deduplicated(state: State, p: Params) -> bool:
    copies = sum(1 for record in state["recipes"] if _matches(record, p["duplicate"], FIELDS))
    others = all(_stored(state, r) for r in p["rows"][1:])
    return copies == 1 and others and len(state["recipes"]) == len(p["rows"])


TASKS: list[Task] = [
    Task(
        name="RecipeAddSingleRecipe",
        app=BROCCOLI,
        family="recipe",
        sample=_single,
        setup=lambda p: {"recipes": p["others"]},
        plan=lambda p: [
            open_app("Broccoli"),
            tap("New Recipe"),
            type_in("Title", p["title"]),
            type_in("Description", p["description"]),
            type_in("Servings", p["servings"]),
            type_in("Time", p["prep_time"]),
            key("back"),
            type_in("Ingredients", p["ingredients"]),
            key("back"),
            type_in("Directions", p["directions"]),
            tap("Save"),
            done(),
        ],
        check=lambda s, p, a: _stored(s, p) and len(s["recipes"]) == len(p["others"]) + 1,
        changes=lambda p: {"recipes": named("title", p["title"])},
        max_steps=16,
    ),
    Task(
        name="RecipeAddMultipleRecipes",
        app=BROCCOLI,
        family="recipe",
        sample=_multiple,
        plan=lambda p: [
            open_app("Broccoli"),
            *[step for row in p["rows"] for step in _short_entry(row)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_stored(s, row, _SHORT) for row in p["rows"]) and len(s["recipes"]) == 3
        ),
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["rows"]))},
        max_steps=24,
    ),
    Task(
        name="RecipeAddMultipleRecipesFromMarkor",
        app=BROCCOLI,
        family="multi_app",
        sample=_from_markor,
        setup=lambda p: {"files": {"Documents/Markor/recipes.txt": p["text"]}},
        plan=lambda p: [
            open_app("Markor"),
            tap("recipes.txt"),
            tap("View mode"),
            *[remember(line) for line in p["listing"].splitlines()],
            open_app("Broccoli"),
            *[step for row in p["rows"] for step in _short_entry(row)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_stored(s, row, _SHORT) for row in p["rows"]) and len(s["recipes"]) == 3
        ),
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["rows"]))},
        max_steps=26,
    ),
    Task(
        name="RecipeDeleteSingleRecipe",
        app=BROCCOLI,
        family="recipe",
        sample=_delete(1, 2),
        setup=lambda p: {"recipes": p["rows"]},
        plan=lambda p: [open_app("Broccoli"), *_delete_steps(p["targets"][0]["title"]), done()],
        check=lambda s, p, a: _deleted(s, p),
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["targets"]))},
        max_steps=10,
    ),
    Task(
        name="RecipeDeleteMultipleRecipes",
        app=BROCCOLI,
        family="recipe",
        sample=_delete(3, 2),
        setup=lambda p: {"recipes": p["rows"]},
        plan=lambda p: [
            open_app("Broccoli"),
            *[step for t in p["targets"] for step in _delete_steps(t["title"])],
            done(),
        ],
        check=lambda s, p, a: _deleted(s, p),
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["targets"]))},
        max_steps=18,
    ),
    Task(
        name="RecipeDeleteDuplicateRecipes",
        app=BROCCOLI,
        family="recipe",
        sample=_duplicates,
        setup=lambda p: {"recipes": [*p["rows"], p["duplicate"]]},
        plan=lambda p: [open_app("Broccoli"), *_delete_steps(p["duplicate"]["title"]), done()],
        check=lambda s, p, a: _deduplicated(s, p),
        changes=lambda p: {"recipes": named("title", p["duplicate"]["title"])},
        max_steps=10,
    ),
    Task(
        name="RecipeServingsQuestion",
        app=BROCCOLI,
        family="question",
        sample=_single,
        setup=lambda p: {"recipes": [*p["others"], {f: p[f] for f in FIELDS}]},
        plan=lambda p: [open_app("Broccoli"), tap(p["title"]), done(answer=p["servings"])],
        check=lambda s, p, a: same_digits(a, p["servings"]),
        max_steps=8,
    ),
]
