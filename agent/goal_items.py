"""Items a goal names, found on a screen: what a claim of success can be checked against beyond
switches.

A list row (an expense, a to-do, a recipe, a file, an alarm) counts as named by the goal when its
title appears in the goal as a whole phrase, in any case. Two kinds of mention are not the item
the goal is about and are left out:

- a place: a title after "from", "in", "into", "inside", "within", "at" or "out of" (two words may
  come between: "in the Documents folder", "from the note x.md"), or before "app", "folder",
  "directory" or "list";
- what the goal keeps: a title after "except", "but", "other than", "apart from", "keep" or
  "leave" in the same clause ("delete everything except X").

Only titles that look like the name of an item are read: two words or more, or one with a
digit, a dot or an underscore ("Subscriptions 929", "lease_6901.pdf", "7:33 AM"). A one-word
title ("Tasks", "Delete") is as likely a word of the sentence as the name of a row.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from agent.screen import Element, Screen
from agent.screen_text import ELLIPSIS, MAX_LABEL_CHARS

# How the screen model joins the pieces of a row's label: title, summary, values.
PIECE_SEPARATOR = ", "
_REMOVAL = re.compile(
    r"\b(?:delet|remov|eras|trash|discard)(?:e|es|ed|ing)?\b|\b(?:get\s+rid\s+of|throw\s+away)\b"
    # "get me out of airplane mode" takes no item out of a list
    r"|\b(?:take|get)\b(?!\s+(?:the\s+|that\s+|their\s+|his\s+|her\s+)?"
    r"(?:address|number|phone|time|date|code|info|information|details|text)\b)"
    r"[^.;:!?\n]*\bout\s+of\b(?!\s+(?:the\s+)?[\w-]+\s+mode\b)"
    r"|\bscratch\b[^.;:!?\n]*\boff\b"
    r"|\btake\s+(?:it|them|that|this|those|these)\s+(?:off|out)\b"
    # all of something: "clear out" or "wipe" alone may be a note's text
    r"|\b(?:clear|wipe)\s+(?:out\s+|away\s+)?(?:all|every\w*|(?:my|the)\s+(?:whole|entire))\b"
    r"|\bbin\s+(?=(?:the|my|it|them|that|this|those|these|all)\b)"
    # the state a deletion leaves: "X should be gone", "no longer in Pro Expense", "X
    # shouldn't be in my Tasks app anymore", "no notes left"
    # ("the old one is gone" says what a new value replaces)
    r"|(?<!\bold\sone\s)(?<!\bold\snumber\s)\b(?:be|is|are)\s+gone\b|\bgone\s+from\b"
    r"|\bno\s+longer\s+(?:be\s+)?(?:in|on|listed)\b"
    r"|\b(?:should|must)(?:n['’]?t|\s+not)\s+be\s+(?:in|on)\b[^.;:!?\n]*\b(?:any\s?more)\b"
    r"|\bnothing\s+left\b|\bno\s+(?:[^\W\d_]+\s+){1,2}left\b"
    # "these expenses need to go", "X has to go"; not going somewhere ("need to go to work")
    r"|\b(?:(?:needs?|has|have)\s+to|must|can|should)\s+go\b"
    r"(?!\s+(?:to|on|in|into|under|back|out|up|down|over|through|with|ahead)\b)",
    re.IGNORECASE,
)
# "Don't delete it", "switch it off without removing it": no deletion asked.
_NEGATED = re.compile(
    r"(?:\b(?:do\s+not|never|not|without|no\s+need\s+to)|n['’]t)\s+(?:\w+\s+){0,2}$"
    # "switch only, no deleting"
    r"|\bno\s+$",
    re.I,
)
# Negations typed without their apostrophe ("isnt", "dont"), which read as no negation.
_BARE_NEGATION = re.compile(
    r"\b(is|are|was|were|do|does|did|has|have|should|would|could|must|ca|wo)nt\b", re.IGNORECASE
)
# "send" and "resend" anywhere; "text" and "message" as the verb a sentence starts with ("Text
# Bob ...", "and message them"), not the nouns ("the text of the note", "my last text", "new
# name, text becomes ...").
_ANSWER_FORM = (
    r"(?:with\s+)?(?:just\b|only\b|yes\b|no\b|in\s|like\b|as\b|using\b|[\d:]"
    # what someone's record says: "reply with her message word for word", "with their name"
    r"|(?:their|his|her|its)\b"
    r"|(?:a|an|the|one)\s+(?:single\s+)?(?:number|integer|answer|name|title|word|time|amount|count"
    r"|date)s?\b)"
)
_VERB_OPENING = r"(?:^|[.;!?]\s+|\b(?:and|then|please|pls|plz|you|u|to|just|also)\s+)"
_SENDING = re.compile(
    r"\b(?:re-?)?send(?:ing)?\b|\b(?:be|been|get|gets|got)\s+sent\b|\bsent\s+again\b"
    r"|\b(?:text|message|sms)\s+sent\s+to\b"
    rf"|{_VERB_OPENING}(?:text|message|sms|msg)\s+"
    r"(?!(?:of|in|on|to|from|field|box|says?|reads?|that|is|was|becomes?|should|must|will"
    r"|would|messages?)\b)"
    # "text that time to Alice": the verb with what is sent and to whom
    rf"|{_VERB_OPENING}(?:text|message|sms|msg)\s+(?:that|this|it)\b[^.;:!?\n]{{0,40}}?\bto\s+\w"
    # a reply is sent too: "reply to Bob", "write back ...", "answer Bob's text"; not "reply
    # with just the number", which says how to answer a question
    rf"|{_VERB_OPENING}(?:reply|respond|write\s+back|answer)\b(?!\s+{_ANSWER_FORM})"
    r"|\b(?:shoot|drop|fire\s+off)\b[^.;:!?\n]{0,40}?\b(?:text|message|sms|line)\b|\bforward\b"
    r"|\b(?:let\b[^.;:!?\n]{0,40}?\bknow|tell|inform|pass\b[^.;:!?\n]{0,20}?\bon|share|give)\b"
    r"[^.;:!?\n]{0,60}?\b(?:by|via|over|in\s+an?)\s+(?:text|sms|message)",
    re.IGNORECASE,
)
# Goals that mark items of a list done ("tick off X", "mark X as completed", "complete the
# to-do X"), which then leave the list of open items.
_MARKS_DONE = re.compile(
    r"\bmark(?:s|ed|ing)?\b[^.;:!?\n]*?\b(?:as\s+)?(?:complete|completed|done|finished)\b"
    # "check it off", not "check that Wi-Fi is off"
    r"|\b(?:tick|check)(?:s|ed|ing)?\s+(?:(?!that|whether|if|is)\w+\s+){0,8}?off\b"
    r"|\bcheck(?:s|ed|ing)?\s+(?:the\s+)?box\b"
    r"|\b(?:show|shown|showing|appear)\s+as\s+(?:complete|completed|done|finished)\b"
    r"|\bcomplete\s+the\s+(?:task|to-?do)\b"
    r"|\bset\b[^.;:!?\n]*?\bto\s+(?:complete|completed|done|finished)\b",
    re.IGNORECASE,
)
# The header of a list's section of done items: the rows below it are done.
_DONE_SECTION = {"completed", "done"}
# Goals that delete all but one of something leave that one on screen.
_KEEPS_ONE = re.compile(
    r"\b(?:duplicat\w*|dupes?|all\s+but|but\s+one|only\s+once|one\s+copy"
    r"|one\s+of\s+(?:each|every))\b",
    re.IGNORECASE,
)
# Goals that delete the copies of an item: one of each is kept, none is left twice.
_COPIES = re.compile(
    r"\b(?:duplicat\w*|dupes?|twice|copies|(?:the|a|an|each|every)\s+copy|double[sd]?)\b",
    re.IGNORECASE,
)
# A goal that deletes every note ("delete all my notes", "Clear out Markor: delete each of my
# notes", "I don't need any of my Markor notes anymore, delete the lot"), which no note row
# may outlive; one that picks some of them ("all notes about Paris") is not read.
_EVERY_NOTE = re.compile(
    r"\bno\s+notes\s+left\b"
    r"|\b(?:all|every|each|any)(?:\s+of)?(?:\s+(?:my|the|your|those|these))?(?:\s+markor)?\s+notes?\b"
    r"|\b(?:notes?|markor)\b.*\b(?:the\s+lot|everything|all\s+of\s+them|them\s+all)\b",
    re.IGNORECASE | re.DOTALL,
)
_SOME_NOTES = re.compile(
    r"\b(?:except|but|other\s+than|apart\s+from|besides|keep|older|newer|before|after|since"
    r"|larger|smaller|bigger|about|mentioning|containing|named|called|whose|starting|ending)\b",
    re.IGNORECASE,
)
_PLACE_BEFORE = re.compile(
    r"\b(?:from|in|into|inside|within|at|out\s+of)\s+(?:[^\s,;:]+\s+){0,2}$", re.IGNORECASE
)
_PLACE_AFTER = re.compile(r"^['’]?s?\s*(?:app|application|folder|directory|list)\b", re.IGNORECASE)
_KEPT_BEFORE = re.compile(
    r"\b(?:except|but|other\s+than|apart\s+from|besides|keep|leave)\b"
    # the name something gets, or that should exist: "rename it X", "there should be a note X"
    r"|\b(?:rename|call|name)\s+(?:it|that|this|the\s+\w+)\s+(?:to\s+|as\s+)?$"
    r"|\brename\b[^.;:!?\n]*\b(?:to|as)\s+$"
    r"|\bthere\s+(?:should|must|has\s+to)\s+be\s+(?:a|an|one)\s+(?:new\s+)?\w+\s+"
    r"(?:(?:called|named)\s+)?$",
    re.IGNORECASE,
)
# Where the words that say an item is kept stop applying: "keep X. Delete Y" keeps only X.
_CLAUSE_END = re.compile(r"[.;:!?\n]")
_ITEM_LIKE = re.compile(r"\S\s+\S|[\d._]")
# Texts given word for word: “...”, "...", «...», „...“.
_QUOTED = re.compile(r'“([^”]+)”|"([^"]+)"|«\s*([^»]+?)\s*»|„([^“”]+)[“”]')
_WORDY = re.compile(r"[^\W\d_]{3,}")
# A name written as one word of Latin letters and digits ("TravelReports2028", "backup_2"):
# no word of a sentence is, and a number with its unit ("100mins") is no name.
_CODE_NAME = re.compile(
    r"(?<![\w@./+:-])(?=\w*[A-Za-z])(?=\w*\d)(?![0-9]+[A-Za-z]*(?![\w-]))[A-Za-z0-9_]{6,}"
    r"(?![\w@/:-]|\.\w)"
)
# a name called a folder ("a folder TravelReports2028") is listed as a folder's row
_FOLDER_WORD = re.compile(r"\b(?:folders?|director(?:y|ies))\b", re.IGNORECASE)
# a file's name, alone or at the end of its path ("Movies/clip.mp4"), by the extensions of
# documents and media: "tasks.org" is a website, "6.5" a number
_FILE_NAME = re.compile(
    r"(?<![\w.-])[\w-]+\.(?:txt|md|pdf|docx?|xlsx?|pptx?|odt|csv|json|xml|html?|log|jpe?g|png"
    r"|gif|webp|heic|bmp|svg|mp3|m4a|wav|ogg|opus|flac|aac|mp4|mkv|webm|avi|mov|3gp|zip|apk)\b",
    re.IGNORECASE,
)
# An amount of money, written with its currency ("$258.51", "339.79 dollars", "€12,50"): the
# number is what an app's amount field shows once it is typed. Only with cents, since a whole
# number ("$30") is on too many screens as something else to tell.
_AMOUNT = re.compile(
    r"(?:[$€£¥₹]|\b(?:usd|eur|gbp))\s?(\d[\d,]*[.,]\d{2})\b"
    r"|\b(\d[\d,]*[.,]\d{2})\s?(?:[$€£¥₹]|(?:dollars?|euros?|pounds?|bucks|usd|eur|gbp)\b)",
    re.IGNORECASE,
)
# A phone number in international form, as people and apps write it: "+39-306-808-6879".
_PHONE_NUMBER = re.compile(r"\+\d[\d\s().-]{5,}\d")
# Goals that set a timer, whose duration a screen shows on the way: the entry ("00h 20m 27s")
# or the running count ("20:27").
_TIMER_GOAL = re.compile(r"\b(?:timers?|count\s?downs?)\b", re.IGNORECASE)
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}
_UNIT = r"(?:h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)"
# "20 hours, 27 minutes, and 4 seconds", "20h 27m 4s", "a 20-hour, 27-minute timer"
_UNIT_RUN = re.compile(
    rf"\b\d+[\s-]*{_UNIT}\b(?:(?:\s*,\s*|\s+)(?:(?:and|n|plus|&)\s+)?\d+[\s-]*{_UNIT}\b)*",
    re.IGNORECASE,
)
_UNIT_PART = re.compile(rf"(\d+)[\s-]*({_UNIT})\b", re.IGNORECASE)
# "3:03:48", "65:49"; a time of day ("7:30 am") is no duration
_COLON_READING = re.compile(
    r"(?<![\d:])(\d{1,3}):(\d{2})(?::(\d{2}))?(?![\d:])(?!\s*[ap]\.?\s?m\b)", re.IGNORECASE
)
# Goals about an alarm, whose times of day a screen shows on the way: in the list ("7:09 PM") or
# in the time picker.
_ALARM_GOAL = re.compile(r"\balarms?\b(?!\s+clock)|\bwake\s+me\b", re.IGNORECASE)
# a value given as an example of the answer's form ("Answer like 2:05") is no value asked for
_EXAMPLE_VALUE = re.compile(r"\b(?:like|e\.g\.|such\s+as|for\s+example)\s+\S+", re.IGNORECASE)
# "7:09 PM", "7:09pm", "8:25 a.m.", "19:09", "7 pm"; a bare number is no time of day
_TIME_OF_DAY = re.compile(
    r"(?<![\d:.])(\d{1,2})(?:(?::|\.(?=\d{2}\s*[ap]\.?\s?m\b))(\d{2}))?\s*"
    r"(?:([ap])(?:\.\s?m\.|\.?\s?m\b))?(?![\d:])",
    re.IGNORECASE,
)
# How long the text before the ellipsis of a label cut short (`truncate`) can be.
_CUT_LENGTHS = (MAX_LABEL_CHARS - 6, MAX_LABEL_CHARS - 1)
# A request for a value: "tell me which ...", "answer with the amount", "find the number ...".
_VALUE_REQUEST = re.compile(
    r"\b(?:tell\s+me|let\s+me\s+know)\s+(?:what|which|how|who|where|whether|if|the)\b"
    r"|\b(?:answer\s+(?:with|yes|only|in)|reply\s+with\s+the|find\s+out)\b"
    r"|\b(?:tell|say|give|read)\s+(?:it\s+)?(?:to\s+)?me\b"
    r"(?!\s+(?:when|once|after|if)\s+(?:(?:you|it)(?:['’]re|['’]s|\s+are|\s+is)\s+)?"
    r"(?:done|finished|ready|complete)\b)"
    r"|\bread\s+(?:out|aloud)\b"
    # not a reason for the work: "I want to know at a glance what it's for, so label it ..."
    r"|\bi(?:\s+(?:need|want|would\s+like)|['’]d\s+like)\s+to\s+know\b(?![^.!?\n]*,\s*so\b)"
    r"|\bcount\s+how\s+many\b|^\s*(?:please\s+)?(?:list|count)\s+(?:the|all|my|every|how)\b"
    # the form an answer takes: "yes or no", "just the number", "titles only"
    r"|\byes\s+or\s+no\b"
    r"|\b(?:just|only)\s+the\s+(?:number|titles?|names?|time|amount|count)(?:\s+with\s+commas)?"
    r"\s*(?:[.!,;]|$)|\b(?:number|titles?|names?)\s+only\b"
    r"|\btitles?\s+only\b|\bcomma[\s-]separated\b|\bseparated\s+by\s+commas\b"
    r"|^\s*(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:find|look\s+up|check|get)\s+"
    r"(?:the|my|this\s+phone['’]s)\s+(?:\w+\s+){0,2}"
    r"(?:number|amount|total|price|cost|date|time|address|email)\b",
    re.IGNORECASE,
)
# The text a message gets, after the colon that introduces it: "text them: see you at 6?".
_MESSAGE_TEXT = re.compile(
    r"(\b(?:reply|respond|text|send|message|sms|msg|saying|says)\b(?![^.!?\n:]*\bfrom\b)"
    r"[^.!?\n:]*:)[^\n]*",
    re.IGNORECASE,
)
# A question: a sentence that asks with a question word ("How much ...?"), a goal that opens
# with one (no question mark needed: "whats bob's number"), or a yes-or-no question that ends
# the goal. Followed by more ("Is Wi-Fi off? It needs to be.", "Is Bluetooth on? If not, turn
# it on.") a yes-or-no question sets a condition on the work instead.
_IN_SENTENCE = r"(?:[^.!?]|(?<=\d)\.(?=\d))*"  # a decimal point ends no sentence
_QUESTION = re.compile(
    r"(?:^|[.!?:;,\u2013\u2014]\s+|\n)(?:(?:at|on|in|for|from|by|to)\s+)?"
    rf"(?:what|what['’]s|which|how|when|who|whom|whose|where)\b{_IN_SENTENCE}\?"
    r"|^\s*(?:what|what['’]?s|whats|which|ho?w\s+much|ho?w\s+many|who|whose|where)\b"
    r"|(?:^|[.!?:;]\s+|\n)(?:is|are|am|was|were|do|does|did|have|has|can\s+i)\b"
    rf"{_IN_SENTENCE}\?\s*$"
    # one sentence that ends in a question mark ("build number?"), or opens like a question
    # and has none ("do i have any events on friday")
    r"|^(?![^?]*\b(?:can|could|would|will|mind|may|shall|should|possible|please)\b)"
    r"[^.!?\n]+\?\s*$"
    r"|^\s*(?:do|does|did|am|is|are|was|were|have|has)\s+(?:i|we|there|my)\b[^?]*$",
    re.IGNORECASE,
)
# A question answered by counting or adding up ("how many", "the number of", "in total").
_COUNT_QUESTION = re.compile(
    r"\bho?w\s+(?:many|much|often|long|old)\b|\b(?:number|count|total|sum|tally)\s+of\b"
    r"|\bcount\b|\bin\s+total\b|\ball\s+together\b|\bamount\b",
    re.IGNORECASE,
)
# A request put as a question: "Can you ...?", "How about texting ...?", "When you get a
# chance, could you ...?".
_POLITE_REQUEST = re.compile(
    r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bcan\s+i\s+get\s+you\b|\bhow\s+about\b"
    r"|\bwhy\s+not\b|\bwhen\s+you\b",
    re.IGNORECASE,
)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _titles(label: str) -> list[str]:
    """Every run of the label's pieces: the title may come after an image's description
    ("Recipe photo, Quick Falafel Wrap, A warming side dish") and may hold ", " itself."""
    pieces = label.split(PIECE_SEPARATOR)
    return [
        PIECE_SEPARATOR.join(pieces[start:end])
        for start in range(len(pieces))
        for end in range(start + 1, len(pieces) + 1)
    ]


def _mentions(goal: str, title: str) -> list[int]:
    """Where `title` starts in `goal` as a whole phrase naming an item, not a place nor what the
    goal keeps."""
    text, wanted = _folded(goal), _folded(title)
    starts = []
    for found in re.finditer(rf"(?<!\w){re.escape(wanted)}(?!\w)", text):
        before, after = text[: found.start()], text[found.end() :]
        if _PLACE_BEFORE.search(before) or _PLACE_AFTER.match(after):
            continue
        starts.append(found.start())
    return starts


def _is_row(element: Element) -> bool:
    return (
        (element.clickable or element.long_clickable)
        and element.checked is None
        and element.role != "input"
    )


@dataclass(frozen=True)
class NamedRow:
    """A row of the screen the goal names as an item."""

    element: Element
    title: str  # as the row says it
    mentions: list[int]  # where the goal names it (`_mentions`)


def named_rows(goal: str, screen: Screen) -> list[NamedRow]:
    """The rows of `screen` the goal names as items."""
    found = []
    for element in screen.elements:
        if not _is_row(element) or not element.label:
            continue
        for title in _titles(element.label):
            mentions = _mentions(goal, title) if _ITEM_LIKE.search(title.strip()) else []
            if mentions:
                found.append(NamedRow(element, title, mentions))
                break
    return found


def deletes_items(goal: str) -> bool:
    """Whether the goal asks to delete items without keeping one copy of them: the goals whose
    claims `removal_shown` reads."""
    goal = with_apostrophes(goal)
    asked = [verb for verb in _REMOVAL.finditer(goal) if not _NEGATED.search(goal[: verb.start()])]
    return bool(asked) and not _KEEPS_ONE.search(goal)


def removal_shown(goal: str, screen: Screen) -> list[str]:
    """The items a goal that deletes asks to delete and `screen` still lists, by their titles
    there: a claim of success on this screen is contradicted by each. The item may come before
    the verb ("X isn't happening anymore, delete it"); one the goal keeps is left out. A goal
    that deletes every note asks for each file the screen lists."""
    if not deletes_items(goal):
        return []
    if _EVERY_NOTE.search(goal) and not _SOME_NOTES.search(goal):
        return [
            title
            for element in screen.elements
            if _is_row(element)
            and _FILE_NAME.fullmatch(title := element.label.split(PIECE_SEPARATOR)[0])
        ]
    folded = _folded(goal)
    shown = []
    for row in named_rows(goal, screen):
        clauses = (_CLAUSE_END.split(folded[:start])[-1] for start in row.mentions)
        if any(not _KEPT_BEFORE.search(clause) for clause in clauses):
            shown.append(row.title)
    return shown


def item_titles(label: str, titles: Iterable[str]) -> list[str]:
    """Which of `titles` a row's label names as its item: every run of its pieces is compared,
    in any case."""
    wanted = {_folded(title): title for title in titles}
    return [wanted[key] for piece in _titles(label) if (key := _folded(piece)) in wanted]


def is_item_row(element: Element) -> bool:
    """Whether `element` is a list's row for an item (a title with what the app says about it:
    "lease_6901.pdf, 9:41 AM, 1.4 MB"), not a control ("Delete", "Navigate up")."""
    return _is_row(element) and element.role == "button" and PIECE_SEPARATOR in element.label


def named_files(goal: str) -> frozenset[str]:
    """The file names the goal gives ("meal_plan_work.md"), folded for comparing."""
    return frozenset(_folded(name) for name in _FILE_NAME.findall(goal))


def _file_row_name(element: Element) -> str | None:
    """The file an item row stands for, by the name its label starts with
    ("lease_6901.pdf, 9:41 AM, 1.4 MB"); None for a folder or any other row."""
    if not is_item_row(element):
        return None
    title = element.label.split(PIECE_SEPARATOR)[0].strip()
    return title if _FILE_NAME.fullmatch(title) else None


def named_files_beside(
    files: frozenset[str], target: Element, screen: Screen
) -> list[tuple[str, int]]:
    """When `target` is the row of a file not among `files` (`named_files`) and `screen` lists
    some of them: those, by name and index. Empty otherwise, as for a folder's row."""
    name = _file_row_name(target)
    if name is None or _folded(name) in files:
        return []
    return [
        (listed, element.index)
        for element in screen.elements
        if (listed := _file_row_name(element)) is not None and _folded(listed) in files
    ]


def _mentioned_title(goal: str, element: Element) -> str | None:
    """The run of the row's label pieces that the goal mentions anywhere outside the texts it
    quotes (a message's words name no one to open), if one is."""
    text = _folded(_QUOTED.sub(" ", goal))
    for title in _titles(element.label):
        wanted = title.strip()
        if _ITEM_LIKE.search(wanted) and re.search(
            rf"(?<!\w){re.escape(_folded(wanted))}(?!\w)", text
        ):
            return wanted
    return None


def named_rows_beside(goal: str, target: Element, screen: Screen) -> list[tuple[str, int]]:
    """When `target` is a list row the goal does not mention ("Bob Chen, The parcel arrived,
    Now" for "text Alice Martin ...") and `screen` lists rows it does: those, by title and
    index. Empty otherwise. Mentions count wherever they are, as the place something is read
    from ("the address in Bob's text") as much as the one it goes to."""
    if not is_item_row(target) or _mentioned_title(goal, target) is not None:
        return []
    return [
        (title, element.index)
        for element in screen.elements
        if is_item_row(element) and (title := _mentioned_title(goal, element)) is not None
    ]


def deletes_copies(goal: str) -> bool:
    """Whether the goal asks to delete the copies of items ("delete the duplicate recipes"):
    the goals whose claims `copies_listed` reads."""
    return bool(_COPIES.search(goal) and _REMOVAL.search(goal)) and not asks_for_answer(goal)


def copies_listed(goal: str, screen: Screen) -> list[str]:
    """The rows `screen` lists more than once, word for word, when the goal deletes copies: a
    claim of success on this screen is contradicted by each. Only rows of items count, whose
    labels hold more than the title ("Recipe photo, Spicy Tacos, Soup that night owls love.",
    "Dinner Party 704, Social · Oct 11, 2024, 376.18, $"): a control repeated on every row
    ("complete box") is no copy."""
    if not deletes_copies(goal):
        return []
    rows = Counter(
        element.label
        for element in screen.elements
        if _is_row(element) and PIECE_SEPARATOR in element.label
    )
    return [label for label, count in rows.items() if count > 1]


def marks_done(goal: str) -> bool:
    """Whether the goal asks to mark items of a list done: the goals whose claims `still_open`
    reads."""
    return _MARKS_DONE.search(goal) is not None and not asks_for_answer(goal)


def still_open(goal: str, screen: Screen) -> list[str]:
    """The items a goal marks done that `screen` still lists among the open ones (above a
    "Completed" section, if it shows one), by their titles there: a claim of success on this
    screen is contradicted by each. Small models tick the row beside the named one."""
    if not marks_done(goal):
        return []
    done_from = next(
        (
            element.index
            for element in screen.elements
            if not element.clickable and _folded(element.label) in _DONE_SECTION
        ),
        None,
    )
    return [
        row.title
        for row in named_rows(goal, screen)
        if done_from is None or row.element.index < done_from
    ]


def with_apostrophes(text: str) -> str:
    """`text` with the apostrophe back in its negations: "isnt on" as "isn't on"."""
    return _BARE_NEGATION.sub(lambda word: f"{word[1]}n't", text)


def asks_for_answer(goal: str) -> bool:
    """Whether the goal asks a question or for a value, so that a claim should carry an
    answer. Requests put as questions ("Can you turn on Wi-Fi?") are not questions here."""
    text = goal.strip()
    if _VALUE_REQUEST.search(text):
        return True
    # a message's text is what is sent, not asked: "needs a reply: ¿Llegas a las 3?"
    text = _MESSAGE_TEXT.sub(r"\1", text).strip()
    asked = _QUESTION.search(text) is not None and _POLITE_REQUEST.search(text) is None
    # the answer goes in a message: "what time is “Lunch”? text it to Alice"
    return asked and not _SENDING.search(text[text.rfind("?") + 1 :].strip())


def asks_for_count(goal: str) -> bool:
    """Whether the goal asks for a number worked out rather than read: a count or a sum ("how
    many alarms are on", "the number of files in Movies", "what did I spend in total")."""
    return _COUNT_QUESTION.search(goal) is not None


# A question after someone's phone number: "what number do I have saved for Ana?", "Ana's
# number?", "phone # for Bob"; not a build, version or model number, nor a count.
_PHONE_NUMBER_QUESTION = re.compile(
    r"\b(?:phone|mobile|cell|contact|telephone)\s*(?:number|no\b\.?|#)"
    r"|['’]s?\s+(?:number|no\b\.?|#)(?!\s+of\b)"
    r"|\bnumber\b[^.?!]{0,30}?\b(?:saved|stored|listed|have)\s+(?:for|under)\b"
    r"|\b(?:number|digits)\s+(?:to\s+(?:call|reach|text)|for\s+(?!the\b|my\b|a\b)\w)",
    re.IGNORECASE,
)
# At least five digits, however grouped, and not inside a word: what any phone number holds,
# and a build number ("UQ1A.240205.004") does not.
_PHONE_DIGITS = re.compile(r"(?<![\w.])\+?\(?\d(?:[\s().-]*\d){4,}(?!\w)")


def asks_for_phone_number(goal: str) -> bool:
    """Whether the goal asks what someone's phone number is; not whose a number it gives is
    ("Whose phone number is +420 627 796 484?")."""
    return (
        asks_for_answer(goal)
        and not asks_for_count(goal)
        and not holds_phone_number(goal)
        and re.search(r"\bwhose\b", goal, re.IGNORECASE) is None
        and _PHONE_NUMBER_QUESTION.search(goal) is not None
    )


def holds_phone_number(answer: str) -> bool:
    return _PHONE_DIGITS.search(answer) is not None


def asks_to_send(goal: str) -> bool:
    """Whether the goal asks for a message to be sent ("send Ana “on my way”", "send it
    again", "Text Bob: ..."), which is done only once a send button is pressed."""
    goal = with_apostrophes(goal)
    asked = [verb for verb in _SENDING.finditer(goal) if not _NEGATED.search(goal[: verb.start()])]
    return bool(asked) and not asks_for_answer(goal)


def unshown_quotes(goal: str, labels: Iterable[str]) -> list[str]:
    """The texts the goal gives word for word (in quotation marks, with a word of three
    letters or more, and file names: "notes.md", "Movies/clip.mp4"), and the amounts of money
    a request gives ("$258.51"), that none of `labels` holds, punctuation and case aside; and
    the phone numbers a request gives, in any grouping ("+39-306-808-6879" is shown as
    "+39 306 808 6879").
    Whatever the goal quotes, names or prices is typed, or looked for, on the way to it: a
    claim before any screen showed it is contradicted. A question's amounts are left out:
    "did I spend over $50.00?" asks about an amount no screen need show."""
    labels = list(labels)
    quotes = [_first_group(found) for found in _QUOTED.finditer(goal)]
    given = [
        *(quote for quote in [*quotes, *_FILE_NAME.findall(goal)] if _WORDY.search(quote)),
        *(
            []
            if asks_for_answer(goal)
            else [_first_group(found) for found in _AMOUNT.finditer(goal)]
        ),
    ]
    unshown = [text for text in given if not any(_may_show(label, text) for label in labels)]
    if not asks_for_answer(goal):
        digits = [re.sub(r"\D", "", label) for label in labels]
        unshown += [
            number
            for number in _PHONE_NUMBER.findall(goal)
            if not any(re.sub(r"\D", "", number) in shown for shown in digits)
        ]
    return list(dict.fromkeys(unshown))


def unlisted_names(goal: str, listed: Iterable[str]) -> list[str]:
    """The names of files and folders the goal gives ("notes.md", "TravelReports2028") that none
    of `listed`, the labels screens showed outside text fields, holds. A name the goal gives is
    the name of something that exists, or exists once the goal is done, and the phone lists
    it: one typed into a rename box and never saved is no file of that name. A name the goal
    calls a folder counts only as a row's whole title: a note "TravelReports2028.md" is not
    the folder TravelReports2028."""
    listed = list(listed)
    unlisted = [
        name
        for name in _FILE_NAME.findall(goal)
        if not any(_may_show(label, name) for label in listed)
    ]
    for found in _CODE_NAME.finditer(goal):
        name = found[0]
        if _FOLDER_WORD.search(goal, max(0, found.start() - 40), found.end() + 20):
            # a folder is listed under its name alone: "TravelReports2028.md" is a note
            shown = any(
                _folded(label.split(PIECE_SEPARATOR)[0]) == _folded(name) for label in listed
            )
        else:
            shown = any(_may_show(label, name) for label in listed)
        if not shown:
            unlisted.append(name)
    return list(dict.fromkeys(unlisted))


def _first_group(found: re.Match[str]) -> str:
    return next(group for group in found.groups() if group is not None)


def made_up_values(typed: str, goal: str, labels: Iterable[str]) -> list[str]:
    """The file names and phone numbers in `typed` that neither the goal nor any of `labels`
    holds: values a small model makes up (a number "from Bob's last text" it never opened, a
    new name for a note the goal does not rename). A file name counts as given when its name
    without the extension is ("a note called groceries" is typed "groceries.md"); a phone
    number when its digits are, however they are grouped."""
    texts = [goal, *labels]
    folded = [_folded(text) for text in texts]
    digits = [re.sub(r"\D", "", text) for text in texts]
    made_up = [
        name
        for name in _FILE_NAME.findall(typed)
        if not any(_folded(name.rsplit(".", 1)[0]) in text for text in folded)
    ]
    made_up += [
        number
        for number in _PHONE_NUMBER.findall(typed)
        if not any(re.sub(r"\D", "", number) in text for text in digits)
    ]
    return made_up


# A word or a few said three times running ("tomato, basil, butter, butter, butter"), and the
# prompt's own screen listing ("\n\nScreen:\napp: ...", '[2] input "Name"'): what a small
# model types when its decoding runs away, never a value anyone gave.
_REPEATED_RUN = re.compile(r"(?<!\w)(\w[\w'’]*(?:\s+\w[\w'’]*){0,3})(?:[\s,;.]+\1(?!\w)){2,}")
_SCREEN_ECHO = re.compile(r"(?m)^\s*(?:Screen:|app:\s+[\w.]+,|\[\d+\]\s+[a-z]+\s+\")")


def runaway_text(typed: str, goal: str, labels: Iterable[str]) -> str | None:
    """The piece of `typed` that shows a runaway decoding, where the goal and `labels` hold no
    such text: a word or phrase repeated three times in a row, or a line of the prompt's
    screen listing. None for any other text."""
    found = _SCREEN_ECHO.search(typed) or _REPEATED_RUN.search(typed)
    if found is None or any(_folded(found[0]) in _folded(text) for text in (goal, *labels)):
        return None
    # a repeated run is named by the piece repeated, an echo by its line's start
    return found[1] if found.re is _REPEATED_RUN else found[0].strip()


def unshown_durations(goal: str, labels: Iterable[str]) -> list[str]:
    """The durations a timer goal gives ("20 h 27 min 4 s", "3:03:48") that none of `labels`
    shows, however the screen writes them ("00h 20m 27s", "20:27"): a timer is set by entering
    its duration, so a claim before any screen showed it is contradicted. Empty for goals that
    set no timer."""
    if not _TIMER_GOAL.search(goal):
        return []
    # beside an alarm, "7:30" is the alarm's time
    colons = not _ALARM_GOAL.search(goal)
    return _unshown(_durations(_EXAMPLE_VALUE.sub(" ", goal), colons=colons), labels, _durations)


def _unshown(
    asked: list[tuple[str, frozenset[int]]],
    labels: Iterable[str],
    read: Callable[[str], list[tuple[str, frozenset[int]]]],
) -> list[str]:
    """Each of the goal's values `asked` (as written, with what it may mean) that no value
    `read` finds in `labels` may mean too."""
    shown = {meaning for label in labels for _, meanings in read(label) for meaning in meanings}
    return list(dict.fromkeys(written for written, meanings in asked if not meanings & shown))


def _durations(text: str, *, colons: bool = True) -> list[tuple[str, frozenset[int]]]:
    """Each duration in `text` as written, with the lengths in seconds it may mean: "65:49" is
    65 minutes 49 seconds on a timer's count, or 65 hours 49 minutes on its entry."""
    found = []
    for run in _UNIT_RUN.finditer(text):
        seconds = sum(
            int(number) * _UNIT_SECONDS[unit[0].casefold()]
            for number, unit in _UNIT_PART.findall(run.group())
        )
        found.append((run.group(), frozenset({seconds})))
    for reading in _COLON_READING.finditer(text) if colons else ():
        first, second, third = reading.groups()
        if third is not None:
            readings = {int(first) * 3600 + int(second) * 60 + int(third)}
        else:
            readings = {int(first) * 60 + int(second), int(first) * 3600 + int(second) * 60}
        found.append((reading.group(), frozenset(readings)))
    return found


def unshown_times(goal: str, labels: Iterable[str]) -> list[str]:
    """The times of day an alarm goal gives ("7:09 p.m.", "13:31", "1:44am") that none of
    `labels` shows, however the screen writes them ("7:09 PM", "1:31 PM"): an alarm is set,
    found or changed by its time, so a claim before any screen showed it is contradicted.
    Empty for goals about no alarm."""
    if not _ALARM_GOAL.search(goal):
        return []
    return _unshown(times_of_day(_EXAMPLE_VALUE.sub(" ", goal)), labels, times_of_day)


def times_of_day(text: str) -> list[tuple[str, frozenset[int]]]:
    """Each time of day in `text` as written, with the minutes after midnight it may mean:
    "7:09" without AM or PM may be morning or evening."""
    found = []
    for time in _TIME_OF_DAY.finditer(text):
        hours, minutes, half = int(time[1]), int(time[2] or 0), (time[3] or "").casefold()
        if (time[2] is None and not half) or minutes > 59:
            continue
        if half:
            if not 1 <= hours <= 12:
                continue
            readings = {((hours % 12) + (12 if half == "p" else 0)) * 60 + minutes}
        elif hours > 23:
            continue
        elif 1 <= hours <= 12:
            readings = {hours * 60 + minutes, ((hours + 12) % 24) * 60 + minutes}
        else:
            readings = {hours * 60 + minutes}
        found.append((time.group().strip(), frozenset(readings)))
    return found


def _may_show(label: str, quote: str) -> bool:
    """Whether `label` shows `quote`, or may: a label cut short at its end (`truncate`) may
    hold the quote past the cut, where the quote's first words are what the label ends on (the
    last of them cut short) or where the cut fell between two words."""
    if padded_words(quote) in padded_words(label):
        return True
    visible = label.removesuffix(ELLIPSIS)
    # a cut leaves the label at the cap, less the spaces and stops stripped before the
    # ellipsis; a short label ending in one ("Share…") was written so
    if visible == label or not _CUT_LENGTHS[0] <= len(visible) <= _CUT_LENGTHS[1]:
        return False
    if len(visible) < _CUT_LENGTHS[1] or not visible[-1].isalnum():
        return True  # cut between words: anything may follow
    shown, wanted = re.findall(r"\w+", _folded(visible)), re.findall(r"\w+", _folded(quote))
    return any(
        shown[len(shown) - overlap : -1] == wanted[: overlap - 1]
        and wanted[overlap - 1].startswith(shown[-1])
        for overlap in range(1, min(len(shown), len(wanted)) + 1)
    )


def padded_words(text: str) -> str:
    """`text` as its words, lower-cased, one space apart and one at each end: a phrase is in a
    text, word for word, when its padded words are in the text's."""
    return " " + " ".join(re.findall(r"\w+", _folded(text))) + " "


def _same_kind(row: Element, other: Element) -> bool:
    """Rows of one list: the same widget class and view id."""
    return (row.class_name, row.resource_id) == (other.class_name, other.resource_id)


def answer_row_mismatch(goal: str, answer: str, screen: Screen) -> tuple[str, str] | None:
    """(the row `answer` was read from, the row the goal asks about) when the answer shows on
    `screen` only inside other rows of the list the goal's named row is in, and not in that
    row: a value read off the neighbouring row. An element that is the answer and nothing else
    (the time of an alarm beside its label) is a part of a row, not another row."""
    said = padded_words(answer)
    if not said.strip():
        return None
    named = named_rows(goal, screen)
    if not named or any(said in padded_words(row.element.label) for row in named):
        return None
    named_elements = {row.element.index for row in named}
    others = [
        element
        for element in screen.elements
        if _is_row(element)
        and element.index not in named_elements
        and any(_same_kind(row.element, element) for row in named)
        and said in padded_words(element.label)
        and said != padded_words(element.label)
    ]
    if not others:
        return None
    return others[0].label, named[0].title
