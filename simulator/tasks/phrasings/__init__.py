"""The goals' wording, kept as data beside the tasks' logic: one JSON file an app.

A file maps each task's name to its phrasings, format strings whose fields (`{time}`) are the
task's parameters: the `training` ones and the one `held_out` of training, which a policy
trained on the others is scored on. Adding a phrasing is adding a line to a file; the held-out
one stays put, since it is named apart.

Tasks generated from one pattern (Settings' toggles) share a family's phrasings instead, whose
fields are also the family's words (`{name}`, `{word}`); the file's `words` tables fill them in:
`family("toggle", "wifi", "on")` takes the words of the tables `wifi` and `on`.

Every file is read and checked once, on import: each task has at least two training phrasings,
no phrasing twice, and every phrasing names the same fields (one that left out the time would
ask for a different task).
"""

from __future__ import annotations

import string
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

FOLDER = Path(__file__).parent


def fields(template: str) -> set[str]:
    """The fields a phrasing names; ValueError for an unbalanced brace or a field that is more
    than a parameter's name (`{}`, `{0}`, `{time!r}`, `{level:d}`)."""
    named = set()
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"{template!r}: a field must be a parameter's name alone")
        named.add(name)
    return named


def _escaped(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def fill(template: str, words: dict[str, str]) -> str:
    """`template` with the fields named in `words` replaced by them; its other fields kept."""
    filled = []
    for literal, name, _, _ in string.Formatter().parse(template):
        filled.append(_escaped(literal))
        if name is not None:
            filled.append(_escaped(words[name]) if name in words else "{" + name + "}")
    return "".join(filled)


class Phrasings(BaseModel):
    """One task's (or one family's) ways to state its goal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    training: tuple[str, ...] = Field(min_length=2)
    held_out: str

    @model_validator(mode="after")
    def _well_formed(self) -> Phrasings:
        templates = self.templates
        repeated = sorted({t for t in templates if templates.count(t) > 1})
        if repeated:
            raise ValueError(f"a phrasing given twice: {repeated[0]!r}")
        for template in templates:
            fields(template)
        return self

    @property
    def templates(self) -> tuple[str, ...]:
        """As `Task.templates` holds them: the training phrasings, then the held-out one."""
        return (*self.training, self.held_out)


def same_fields(owner: str, templates: tuple[str, ...]) -> tuple[str, ...]:
    """`templates`, once checked to name the same fields, each of them."""
    named = [fields(template) for template in templates]
    for template, names in zip(templates, named, strict=True):
        if names != named[0]:
            raise ValueError(
                f"{owner}: {template!r} names {sorted(names)}, "
                f"but {templates[0]!r} names {sorted(named[0])}"
            )
    return templates


class AppWording(BaseModel):
    """One file: an app's tasks' phrasings, its families' and the words that fill those."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tasks: dict[str, Phrasings] = {}
    families: dict[str, Phrasings] = {}
    words: dict[str, dict[str, str]] = {}

    @model_validator(mode="after")
    def _tasks_name_their_fields_alike(self) -> AppWording:
        for name, phrasings in self.tasks.items():
            same_fields(name, phrasings.templates)
        return self


class Wording:
    """The phrasings of every file in a folder, looked up by task or by family."""

    def __init__(self, files: dict[str, AppWording]) -> None:
        self.files = files
        self._tasks: dict[str, Phrasings] = {}
        self._families: dict[str, tuple[AppWording, Phrasings]] = {}
        for file_name, wording in files.items():
            for name, phrasings in wording.tasks.items():
                if name in self._tasks:
                    raise ValueError(f"{file_name}: task {name} has phrasings in two files")
                self._tasks[name] = phrasings
            for family, phrasings in wording.families.items():
                if family in self._families:
                    raise ValueError(f"{file_name}: family {family} has phrasings in two files")
                self._families[family] = (wording, phrasings)

    @classmethod
    def load(cls, folder: Path = FOLDER) -> Wording:
        """Every `*.json` file in `folder`, each checked; ValueError naming a file that fails."""
        files = {}
        for path in sorted(folder.glob("*.json")):
            try:
                files[path.name] = AppWording.model_validate_json(path.read_bytes())
            except ValidationError as error:
                raise ValueError(f"{path.name}: {error}") from None
        return cls(files)

    def templates(self, task: str) -> tuple[str, ...]:
        """The task's phrasings, the held-out one last."""
        try:
            return self._tasks[task].templates
        except KeyError:
            raise KeyError(f"no phrasings for task {task}") from None

    def family(self, family: str, *tables: str) -> tuple[str, ...]:
        """The family's phrasings with the words of `tables` (names in its file's `words`)."""
        try:
            wording, phrasings = self._families[family]
        except KeyError:
            raise KeyError(f"no phrasings for family {family}") from None
        words: dict[str, str] = {}
        for table in tables:
            if table not in wording.words:
                raise KeyError(f"family {family}: no words named {table}")
            clash = sorted(words.keys() & wording.words[table].keys())
            if clash:
                raise ValueError(f"family {family}: two tables give the word {clash[0]}")
            words.update(wording.words[table])
        filled = tuple(fill(template, words) for template in phrasings.templates)
        return same_fields(f"{family} {' '.join(tables)}", filled)


WORDING = Wording.load()
