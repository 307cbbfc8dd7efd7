"""Broccoli: recipes added one or three at a time, deleted, deduplicated, and read."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from simulator.state import BROCCOLI
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    key,
    normalize_text,
    open_app,
    same_digits,
    tap,
    type_in,
)

RECIPES = (
    (
        "Avocado Toast with Egg",
        "Simple and nutritious breakfast.",
        "1 serving",
        "10 mins",
        "bread, avocado, egg, salt",
        "Toast the bread. Mash the avocado on top. Add a fried egg.",
    ),
    (
        "Pad Thai",
        "Sweet and tangy noodle dish.",
        "2 servings",
        "30 mins",
        "rice noodles, tofu, peanuts, lime",
        "Soak the noodles. Stir-fry the tofu. Toss everything with the sauce.",
    ),
    (
        "Greek Salad",
        "Fresh summer salad.",
        "4 servings",
        "15 mins",
        "cucumber, tomato, feta, olives",
        "Chop the vegetables. Add the feta and olives. Dress with olive oil.",
    ),
    (
        "Banana Pancakes",
        "Fluffy pancakes for the weekend.",
        "3 servings",
        "20 mins",
        "banana, flour, milk, egg",
        "Mash the banana. Whisk in the flour, milk and egg. Cook on a hot pan.",
    ),
    (
        "Tomato Soup",
        "Warm soup for cold days.",
        "4 servings",
        "40 mins",
        "tomatoes, onion, garlic, stock",
        "Cook the onion and garlic. Add tomatoes and stock. Blend until smooth.",
    ),
    (
        "Gazpacho andaluz",
        "Sopa fría de verano.",
        "4 servings",
        "15 mins",
        "tomates, pepino, pimiento, ajo",
        "Triturar todo. Enfriar una hora. Servir frío.",
    ),
    (
        "Chicken Curry",
        "Mild curry with rice.",
        "4 servings",
        "45 mins",
        "chicken, curry paste, coconut milk, rice",
        "Brown the chicken. Simmer with the paste and coconut milk. Serve over rice.",
    ),
    (
        "Overnight Oats",
        "No-cook breakfast.",
        "1 serving",
        "5 mins",
        "oats, yogurt, milk, berries",
        "Mix the oats, yogurt and milk. Chill overnight. Top with berries.",
    ),
    (
        "Lentil Stew",
        "Hearty vegetarian stew.",
        "6 servings",
        "50 mins",
        "lentils, carrots, celery, cumin",
        "Sauté the vegetables. Add lentils and water. Simmer until tender.",
    ),
    (
        "麻婆豆腐",
        "Spicy Sichuan tofu.",
        "3 servings",
        "25 mins",
        "tofu, minced pork, chili bean paste",
        "Fry the pork. Add the paste and tofu. Simmer briefly.",
    ),
)
FIELDS = ("title", "description", "servings", "prep_time", "ingredients", "directions")


def _recipes(rng: random.Random, count: int) -> list[dict[str, str]]:
    return [dict(zip(FIELDS, row, strict=True)) for row in rng.sample(RECIPES, count)]


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
        templates=(
            "Add the following recipe into the Broccoli app: {title}; description: "
            "{description}; servings: {servings}; time: {prep_time}; ingredients: {ingredients}; "
            "directions: {directions}",
            "In Broccoli, create the recipe {title} ({description}) for {servings}, taking "
            "{prep_time}, with the ingredients {ingredients} and the directions: {directions}",
            "Save a new Broccoli recipe called {title}. Description: {description} Servings: "
            "{servings}. Time: {prep_time}. Ingredients: {ingredients}. Directions: {directions}",
        ),
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
        max_steps=16,
    ),
    Task(
        name="RecipeAddMultipleRecipes",
        app=BROCCOLI,
        family="recipe",
        templates=(
            "Add the following recipes into the Broccoli app (title | description | servings):\n"
            "{listing}",
            "Create these three recipes in Broccoli, each with its description and servings:\n"
            "{listing}",
            "In Broccoli, save every recipe below (title | description | servings):\n{listing}",
        ),
        sample=_multiple,
        plan=lambda p: [
            open_app("Broccoli"),
            *[step for row in p["rows"] for step in _short_entry(row)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_stored(s, row, _SHORT) for row in p["rows"]) and len(s["recipes"]) == 3
        ),
        max_steps=24,
    ),
    Task(
        name="RecipeAddMultipleRecipesFromMarkor",
        app=BROCCOLI,
        family="multi_app",
        templates=(
            "Add the recipes from recipes.txt in Markor to the Broccoli recipe app.",
            "The Markor note recipes.txt holds some recipes; save each of them in Broccoli.",
            "Put every recipe listed in Markor's recipes.txt into Broccoli.",
        ),
        sample=_from_markor,
        setup=lambda p: {"files": {"Documents/Markor/recipes.txt": p["text"]}},
        plan=lambda p: [
            open_app("Markor"),
            tap("recipes.txt"),
            tap("View mode"),
            open_app("Broccoli"),
            *[step for row in p["rows"] for step in _short_entry(row)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_stored(s, row, _SHORT) for row in p["rows"]) and len(s["recipes"]) == 3
        ),
        max_steps=26,
    ),
    Task(
        name="RecipeDeleteSingleRecipe",
        app=BROCCOLI,
        family="recipe",
        templates=(
            "Delete the following recipe from Broccoli app: {titles}.",
            "Remove the recipe {titles} from Broccoli.",
            "In Broccoli, delete {titles}.",
        ),
        sample=_delete(1, 2),
        setup=lambda p: {"recipes": p["rows"]},
        plan=lambda p: [open_app("Broccoli"), *_delete_steps(p["targets"][0]["title"]), done()],
        check=lambda s, p, a: _deleted(s, p),
        max_steps=10,
    ),
    Task(
        name="RecipeDeleteMultipleRecipes",
        app=BROCCOLI,
        family="recipe",
        templates=(
            "Delete the following recipes from Broccoli app: {titles}.",
            "Remove these recipes from Broccoli: {titles}.",
            "In Broccoli, delete the recipes {titles} and keep the others.",
        ),
        sample=_delete(3, 2),
        setup=lambda p: {"recipes": p["rows"]},
        plan=lambda p: [
            open_app("Broccoli"),
            *[step for t in p["targets"] for step in _delete_steps(t["title"])],
            done(),
        ],
        check=lambda s, p, a: _deleted(s, p),
        max_steps=18,
    ),
    Task(
        name="RecipeDeleteDuplicateRecipes",
        app=BROCCOLI,
        family="recipe",
        templates=(
            "Delete all but one of any recipes in the Broccoli app that are exact duplicates, "
            "ensuring at least one instance of each unique recipe remains.",
            "Broccoli has a recipe saved twice: delete the extra copy and keep one.",
            "Remove the duplicate recipe in Broccoli so every recipe appears once.",
        ),
        sample=_duplicates,
        setup=lambda p: {"recipes": [*p["rows"], p["duplicate"]]},
        plan=lambda p: [open_app("Broccoli"), *_delete_steps(p["duplicate"]["title"]), done()],
        check=lambda s, p, a: _deduplicated(s, p),
        max_steps=10,
    ),
    Task(
        name="RecipeServingsQuestion",
        app=BROCCOLI,
        family="question",
        templates=(
            "How many servings does the {title} recipe in Broccoli make? Answer with a number.",
            "In the Broccoli app, for how many people is the {title} recipe?",
            "Check Broccoli: how many servings is {title}?",
        ),
        sample=_single,
        setup=lambda p: {"recipes": [*p["others"], {f: p[f] for f in FIELDS}]},
        plan=lambda p: [open_app("Broccoli"), tap(p["title"]), done(answer=p["servings"])],
        check=lambda s, p, a: same_digits(a, p["servings"]),
        max_steps=8,
    ),
]
