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
        templates=(
            "Add the following recipe into the Broccoli app: {title}; description: "
            "{description}; servings: {servings}; time: {prep_time}; ingredients: {ingredients}; "
            "directions: {directions}",
            "In Broccoli, create the recipe {title} ({description}) for {servings}, taking "
            "{prep_time}, with the ingredients {ingredients} and the directions: {directions}",
            "Could you enter a recipe in Broccoli? Title {title}, description {description}, "
            "{servings}, prep time {prep_time}, ingredients {ingredients}, directions: "
            "{directions}",
            "I'd like {title} stored in Broccoli with the description {description}, servings "
            "{servings}, time {prep_time}, ingredients {ingredients}, and these directions: "
            "{directions}",
            "Broccoli needs one more recipe, {title}: {description} It makes {servings} and "
            "takes {prep_time}. You need {ingredients}. Method: {directions}",
            "I cooked {title} and want to keep it in Broccoli; description {description}, "
            "{servings}, ready in {prep_time}, ingredients {ingredients}, directions {directions}",
            "Hey, could you pop {title} into Broccoli for me? Its description reads {description} "
            "It makes {servings}, takes {prep_time}, uses {ingredients}, and the steps are: "
            "{directions}",
            "So I don't lose it, please record {title} in Broccoli with this description: "
            "{description} Portions: {servings}; prep {prep_time}; what goes in: {ingredients}; "
            "how to cook it: {directions}",
            "Would you mind entering a Broccoli recipe named {title}, described as {description} "
            "It yields {servings} in {prep_time}, using {ingredients}, with these steps: "
            "{directions}",
            "Broccoli should end up with a recipe titled {title} whose description is "
            "{description} Set the servings to {servings} and the time to {prep_time}, list "
            "{ingredients} as ingredients, and use these directions: {directions}",
            "Let's put {title} into Broccoli and fill in the rest: {servings}, a prep time of "
            "{prep_time}, the ingredients {ingredients}, the directions {directions} And for the "
            "description: {description}",
            "Recipe for Broccoli, {title}, serving {servings}, {prep_time} total; you'll need "
            "{ingredients}; method {directions} Short description {description}",
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
        changes=lambda p: {"recipes": named("title", p["title"])},
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
            "Could you put these three recipes into Broccoli? Each line gives title | "
            "description | servings:\n{listing}",
            "I need the recipes below entered in Broccoli with their descriptions and "
            "servings:\n{listing}",
            "Broccoli: new recipes, one a line (title | description | servings):\n{listing}",
            "Please type each of the following into Broccoli as its own recipe, using the title, "
            "description and servings given:\n{listing}",
            "Hey, can you add these to Broccoli real quick? Each line is title | description | "
            "servings:\n{listing}",
            "To fill up my Broccoli app, make one recipe per line below, entering its title, "
            "description and servings:\n{listing}",
            "Would you mind creating a Broccoli recipe for each of these lines (title | "
            "description | servings)?\n{listing}",
            "By the end, Broccoli should contain the three recipes listed here, with their titles, "
            "descriptions and servings:\n{listing}",
            "Let's enter three new recipes in Broccoli; the columns are title, description and "
            "servings:\n{listing}",
            "Recipes to add to Broccoli (fields: title | description | servings)\n{listing}",
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
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["rows"]))},
        max_steps=24,
    ),
    Task(
        name="RecipeAddMultipleRecipesFromMarkor",
        app=BROCCOLI,
        family="multi_app",
        templates=(
            "Add the recipes from recipes.txt in Markor to the Broccoli recipe app.",
            "The Markor note recipes.txt holds some recipes; save each of them in Broccoli.",
            "Open recipes.txt in Markor and create a Broccoli recipe for each one it contains.",
            "Would it be possible to copy the recipes in the Markor file recipes.txt over to "
            "Broccoli?",
            "I'd like the recipes written in my Markor note recipes.txt added to Broccoli too.",
            "Using Markor and Broccoli: read recipes.txt and enter each recipe from it in "
            "Broccoli.",
            "Hey, can you take the recipes out of recipes.txt in Markor and add them to Broccoli?",
            "Since my recipes are only in the Markor file recipes.txt, please enter each one in "
            "Broccoli as well.",
            "Would you mind transferring each recipe from the Markor note recipes.txt into the "
            "Broccoli app?",
            "Every recipe from recipes.txt (a Markor file) should end up saved in Broccoli.",
            "Let's copy the recipes over: read the Markor document recipes.txt, then create them "
            "one by one in Broccoli.",
            "Markor recipes.txt to Broccoli: add all the recipes.",
            "Put every recipe listed in Markor's recipes.txt into Broccoli.",
        ),
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
        templates=(
            "Delete the following recipe from Broccoli app: {titles}.",
            "Remove the recipe {titles} from Broccoli.",
            "When you get a chance, could you erase the {titles} recipe from Broccoli?",
            "I don't want the recipe {titles} in Broccoli anymore, please delete it.",
            "Broccoli: remove recipe {titles}.",
            "Get rid of the Broccoli recipe called {titles}.",
            "Hey, can you delete the {titles} recipe from Broccoli real quick?",
            "Since I never cook it anymore, remove {titles} from my Broccoli recipes.",
            "Would you mind if the recipe named {titles} were erased from Broccoli?",
            "The recipe {titles} should no longer exist in Broccoli; please remove it.",
            "Let's take {titles} out of Broccoli: delete that recipe.",
            "To remove from Broccoli: the recipe {titles}.",
            "In Broccoli, delete {titles}.",
        ),
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
        templates=(
            "Delete the following recipes from Broccoli app: {titles}.",
            "Remove these recipes from Broccoli: {titles}.",
            "Can I get you to erase the recipes {titles} from Broccoli?",
            "I no longer need {titles} in Broccoli; please delete those recipes.",
            "Broccoli cleanup: remove {titles}.",
            "Get rid of these Broccoli recipes: {titles}.",
            "Hey, could you delete {titles} from Broccoli real quick?",
            "Since I've stopped making them, please remove {titles} from Broccoli.",
            "Would you mind having these three Broccoli recipes erased: {titles}?",
            "Broccoli should end up without the recipes {titles}; please delete them.",
            "Let's trim my recipe list in Broccoli: remove {titles}.",
            "Recipes to erase in Broccoli: {titles}.",
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
        changes=lambda p: {"recipes": named("title", *(row["title"] for row in p["targets"]))},
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
            "One recipe in Broccoli is stored twice; please delete one of the two identical "
            "copies.",
            "There's a duplicated recipe in Broccoli; could you erase the extra entry and leave "
            "a single copy?",
            "Broccoli: delete exact duplicate recipes, keeping one of each.",
            "I accidentally saved a recipe twice in Broccoli. Delete the repeated one but keep "
            "the original.",
            "Hey, there's a recipe listed twice in Broccoli; can you delete one copy real quick?",
            "Because I saved the same recipe twice, Broccoli now has an identical pair; erase one "
            "of them and leave the other.",
            "Would you mind if the extra copy of whichever recipe is doubled in Broccoli got "
            "deleted?",
            "Broccoli should end up with just one copy of each recipe, so delete the identical "
            "duplicate.",
            "Let's find the recipe that shows up two times in Broccoli, then remove one of the "
            "two.",
            "Double entry in Broccoli: erase one of the two matching recipes.",
            "Remove the duplicate recipe in Broccoli so every recipe appears once.",
        ),
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
        templates=(
            "How many servings does the {title} recipe in Broccoli make? Answer with a number.",
            "In the Broccoli app, for how many people is the {title} recipe?",
            "Could you look at the {title} recipe in Broccoli and say how many servings it "
            "makes? Answer with a number.",
            "I need the number of servings for {title} from Broccoli. Answer with a number.",
            "Broccoli, {title} recipe: number of servings? Answer with a number.",
            "I'm cooking {title} from Broccoli tonight; how many people does it serve? Answer "
            "with a number.",
            "Hey, quick one: how many servings does {title} make according to Broccoli? Answer "
            "with a number.",
            "Before I buy groceries, tell me how many people the {title} recipe in Broccoli feeds. "
            "Answer with a number.",
            "Would you mind opening {title} in Broccoli and telling me its servings? Answer with a "
            "number.",
            "What serving count does Broccoli list for {title}? Answer with a number.",
            "Let's see the {title} recipe in Broccoli: what number of servings does it give? "
            "Answer with a number.",
            "Servings for {title} in Broccoli? Answer with a number.",
            "Check Broccoli: how many servings is {title}?",
        ),
        sample=_single,
        setup=lambda p: {"recipes": [*p["others"], {f: p[f] for f in FIELDS}]},
        plan=lambda p: [open_app("Broccoli"), tap(p["title"]), done(answer=p["servings"])],
        check=lambda s, p, a: same_digits(a, p["servings"]),
        max_steps=8,
    ),
]
