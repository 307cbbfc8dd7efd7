"""Which of the phone's switches a goal is about, and the state it asks each one to be in.

A goal names a switch by any of the names phones give it (SWITCH_ALIASES) and asks for a state
in a sentence one of GOAL_RULES reads whole ("turn off WLAN", "Bluetooth should be on"), in
parts joined by "and", "then" and commas (`goal_parts`), or in free words read clause by clause
("get the phone back onto wifi": `wished_states`), where an alarm is named by its time ("the
5:01 AM alarm must not ring") and a few switches by what they do ("stop the screen from sleeping
while it charges" is Stay awake on). A goal may also ask every switch of a kind in one state
("turn off all my alarms": `every_switch`). The guards hold an episode to the states read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.goal_items import (
    PIECE_SEPARATOR,
    asks_for_answer,
    deletes_items,
    times_of_day,
    with_apostrophes,
)
from agent.screen import Element, Screen

_ON_WORDS = {"on", "enable", "enabled", "activate", "activated"}
_STATE = r"(?P<state>on|off|enabled?|disabled?|activated?|deactivated?)"
# a name, which may hold a time of day ("the 7:33 AM alarm")
_SUBJECT = r"(?:the\s+|my\s+)?(?P<subject>\w(?:[\w\s&'’/-]|(?<=\d):(?=\d))*?)"
# the asked state, said as a state or as what was done to it ("off", "switched off")
_SET_STATE = rf"(?:turned\s+|switched\s+)?{_STATE}"
# words a switch label may add to the thing it controls ("Use Wi-Fi", "Allow notifications")
_LABEL_FILLERS = {"use", "allow", "enable", "show", "turn", "on"}
# Words a goal puts around what it names that a label leaves out: "the alarm set for 7:33 AM"
# names the switch labelled "7:33 AM alarm".
_SUBJECT_FILLERS = {"the", "my", "a", "an", "set", "for", "at"}
_LOCATION_SUFFIX = re.compile(
    r"\s+(?:in|on|from)\s+(?:the\s+|my\s+|this\s+)?(?:settings|phone|device|quick settings"
    r"|developer options)"
    r"(?:\s+(?:app|page|screen))?$",
    re.IGNORECASE,
)
_LOCATION_PREFIX = re.compile(
    r"^\s*(?:in|from|using|via)\s+(?:the\s+)?(?:settings|quick settings|developer options)"
    r"(?:\s+app)?\s*,?\s*",
    re.IGNORECASE,
)


# How phones label the switches people ask for, the label Android's own Settings uses first.
# A goal may name a switch by any of these; a switch is matched by any of them too.
SWITCH_ALIASES: tuple[tuple[str, ...], ...] = (
    ("Wi-Fi", "WLAN", "Wi-Fi network", "Wireless"),
    # its own switch, so that "wireless debugging" is not read as Wi-Fi
    ("Wireless debugging",),
    ("Bluetooth", "Bluetooth radio", "BT"),
    ("Airplane mode", "Aeroplane mode", "Flight mode", "Plane mode", "Airplane"),
    ("Dark theme", "Dark mode", "Night mode"),
    ("Do Not Disturb", "Do Not Disturb mode", "DND"),
    (
        "Battery Saver",
        "Battery Saver mode",
        "Power saving",
        "Power saving mode",
        "Power saver",
        "Low power mode",
    ),
    (
        "Battery percentage",
        "Battery percentage in the status bar",
        "Battery percentage in status bar",
    ),
    (
        "Auto-rotate",
        "Auto-rotate screen",
        "Auto rotation",
        "Automatic screen rotation",
        "Screen rotation",
        "Rotate screen",
    ),
    ("Location", "Location services", "GPS"),
    ("NFC",),
    ("Mobile data", "Cellular data"),
    ("Hotspot", "Wi-Fi hotspot", "Mobile hotspot", "Portable hotspot"),
    ("Data Saver",),
    ("Flashlight", "Torch"),
    ("Adaptive brightness", "Auto brightness", "Automatic brightness"),
    ("Stay awake", "Stay awake while charging"),
    ("USB debugging", "USB debug", "ADB debugging", "Android debugging", "debugging over USB"),
)


def normalize_name(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _name_key(text: str) -> str:
    """A name with case, spacing, punctuation and the words a switch label may add to what it
    controls left out: "Use Wi-Fi", "wi fi" and "WiFi" all give "wifi"."""
    words = [word for word in text.casefold().split() if word not in _LABEL_FILLERS]
    return normalize_name(" ".join(words))


def _content_words(text: str) -> frozenset[str]:
    """The words of a name in any order, without the words around it ("alarm set for")."""
    words = re.findall(r"\w+", text.casefold())
    return frozenset(words) - _SUBJECT_FILLERS - _LABEL_FILLERS


_ALIAS_GROUPS: dict[str, tuple[str, ...]] = {
    _name_key(name): names for names in SWITCH_ALIASES for name in names
}
# Each name as whole words, its words joined by a space, a hyphen or nothing ("wifi", "Wi Fi").
_ALIAS_MENTIONS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (
        re.compile(
            r"\b" + r"[\s-]?".join(map(re.escape, re.split(r"[\s-]+", name))) + r"\b",
            re.IGNORECASE,
        ),
        names,
    )
    for names in SWITCH_ALIASES
    for name in names
)


def named_switches(text: str) -> frozenset[str]:
    """The switches every phone has that `text` names anywhere, by any of their names, each by
    its usual label: whatever the sentence around them says."""
    return frozenset(names[0] for pattern, names in _ALIAS_MENTIONS if pattern.search(text))


def known_switch(title: str) -> str | None:
    """The usual label of the switch every phone has that `title` names, if it names one."""
    names = _ALIAS_GROUPS.get(_name_key(title))
    return names[0] if names else None


@dataclass(frozen=True)
class GoalTarget:
    """A switch-like element the goal names, and the checked state it asks for."""

    subject: str
    desired: bool

    @property
    def known(self) -> bool:
        """Whether the subject is a switch every phone has (SWITCH_ALIASES): one the episode
        has to show to complete the goal, even when no screen of it did so far."""
        return _name_key(self.subject) in _ALIAS_GROUPS

    @property
    def name(self) -> str:
        """The switch as messages name it: its usual label, or the goal's words."""
        return _ALIAS_GROUPS.get(_name_key(self.subject), (self.subject,))[0]

    @property
    def asked(self) -> str:
        """The part of the goal in a few words: "Wi-Fi on"."""
        return f"{self.name} {self.state_words(self.desired)}"

    def matches(self, element: Element) -> bool:
        """Whether `element` is a checkable whose title names the subject."""
        if element.checked is None or not element.label:
            return False
        key = _name_key(self.subject)
        names = {_name_key(name) for name in _ALIAS_GROUPS.get(key, ())} | {key}
        words = _content_words(self.subject)
        return any(
            _name_key(title) in names
            or (len(words) > 1 and _content_words(title) == words)
            or _same_time_and_kind(title, self.subject)
            for title in label_titles(element.label)
        )

    def find(self, screen: Screen) -> Element | None:
        """The matching element on screen; None when absent or ambiguous."""
        found = [element for element in screen.elements if self.matches(element)]
        if not found or len({element.checked for element in found}) > 1:
            return None
        return found[0]

    def satisfied(self, screen: Screen) -> bool | None:
        """Whether the screen shows the asked state; None when it does not show the element."""
        element = self.find(screen)
        return None if element is None else element.checked == self.desired

    def state_words(self, checked: bool | None) -> str:
        return "on" if checked else "off"


def _same_time_and_kind(title: str, subject: str) -> bool:
    """Whether a title and a subject name a time of day that may be the same and otherwise the
    same words: "1:00 PM alarm" is the "13:00 alarm" and may be the "1:00 alarm"."""
    subject_times = times_of_day(subject)
    if len(subject_times) != 1:  # most subjects name no time: the title is not read then
        return False
    title_times = times_of_day(title)
    if len(title_times) != 1:
        return False
    (subject_time, subject_minutes), (title_time, title_minutes) = subject_times[0], title_times[0]
    return bool(subject_minutes & title_minutes) and _content_words(
        title.replace(title_time, " ")
    ) == _content_words(subject.replace(subject_time, " "))


@dataclass(frozen=True)
class GoalRule:
    """A goal phrasing; `subject` names the element, `state` (or the verb) the asked state."""

    pattern: re.Pattern[str]

    def match(self, goal: str) -> GoalTarget | None:
        found = self.pattern.fullmatch(goal)
        if found is None:
            return None
        subject = _SUBJECT_TAIL.sub("", found["subject"].strip())
        state = found["state"].casefold()
        # "make sure flight mode isn't on"
        negated = found.groupdict().get("negated") is not None
        # compound goals ("turn on Wi-Fi and open ...") are beyond a one-switch rule
        target = GoalTarget(subject=subject, desired=(state in _ON_WORDS) != negated)
        if (
            re.search(r"\b(?:and|then)\b|,|;", subject)
            or subject.casefold() in _PRONOUNS
            or re.match(r"(?:it|them)\b", subject, re.IGNORECASE)  # "it if needed"
        ):
            return None
        return target if len(_content_words(subject)) <= 4 or target.known else None


def _rule(pattern: str) -> GoalRule:
    return GoalRule(re.compile(pattern, re.IGNORECASE))


# words after a name that say when or how, not what: "enable Wi-Fi first"
_SUBJECT_TAIL = re.compile(r"(?:\s+(?:back|first|please|now|again|too|as\s+well))+$", re.IGNORECASE)
# "switch it on": what "it" is, the rest of the sentence says
_PRONOUNS = {"it", "them", "this", "that", "these", "those", "everything", "all"}

GOAL_RULES: tuple[GoalRule, ...] = (
    _rule(rf"(?:turn|switch|toggle)\s+{_STATE}\s+{_SUBJECT}"),
    _rule(rf"(?:turn|switch|toggle)\s+{_SUBJECT}\s+{_STATE}"),
    _rule(rf"{_STATE.replace('on|off|', '')}\s+{_SUBJECT}"),
    _rule(
        rf"(?:make\s+(?:sure|certain)|ensure|double[\s-]?check|check|verify|confirm)\s+(?:that\s+)?"
        rf"{_SUBJECT}\s+(?:is|are)(?P<negated>n['’]t|\s+not)?\s+(?:(?:turned|switched|set)\s+)?"
        rf"{_STATE}"
    ),
    _rule(rf"set\s+{_SUBJECT}\s+to\s+{_STATE}"),
    _rule(rf"{_SUBJECT}:\s*{_STATE}"),
    # a wish or an obligation: "I want WLAN off", "keep Bluetooth on", "Wi-Fi should be off"
    _rule(
        rf"(?:i(?:\s+(?:want|need|would\s+like)|['’]d\s+like)|keep|leave)\s+{_SUBJECT}\s+"
        rf"(?:to\s+)?(?:be\s+)?{_SET_STATE}"
    ),
    _rule(rf"{_SUBJECT}\s+(?:should|must|needs\s+to|has\s+to)\s+be\s+" + _SET_STATE),
)
# Within a compound goal, a part may leave out the verb ("Wi-Fi off and Bluetooth on") or even
# the state ("turn off Wi-Fi and Bluetooth"); only a switch every phone has is read that way.
_ELLIPTICAL_RULE = _rule(rf"{_SUBJECT}\s+{_STATE}")
_BARE_SUBJECT = re.compile(_SUBJECT, re.IGNORECASE)
# Where one part of a compound goal ends and the next begins.
_PART_SEPARATOR = re.compile(
    r"\s*(?:[,;]\s*)?\b(?:and\s+then|and\s+also|and|then|also|after\s+that)\b\s*"
    r"|\s*[,;]\s*|\.\s+",
    re.IGNORECASE,
)
_PART_OPENING = re.compile(
    r"^(?:(?:please|first|also|finally|next|and|then|so|hey|hi|ok|okay)\b[\s,!]*)+", re.I
)


def goal_target(goal: str) -> GoalTarget | None:
    """The switch and state a goal asks for, when one of the rules recognises it."""
    text = _clean_goal(goal)
    for rule in GOAL_RULES:
        target = rule.match(text)
        if target is not None:
            return target
    return None


@dataclass(frozen=True)
class GoalParts:
    """The switch states a goal asks for, one per part ("Turn off Wi-Fi, then enable
    Bluetooth" has two); `complete` when every part of the goal was read as one of them."""

    parts: tuple[GoalTarget, ...] = ()
    complete: bool = False


def goal_parts(goal: str) -> GoalParts:
    """The goal read as switch states: one when a rule reads the whole goal, else one per part
    of a compound goal (parts joined by "and", "then", commas, semicolons or full stops) that
    reads as one. Parts that name the same switch: the last one counts. A goal that neither
    way reads is read from its free words (`wished_states`), never as complete."""
    whole = goal_target(goal)
    if whole is not None:
        return GoalParts((whole,), complete=True)
    pieces = [piece for piece in _PART_SEPARATOR.split(_clean_goal(goal)) if piece.strip()]
    if len(pieces) < 2:
        return GoalParts(wished_states(goal))
    found: dict[str, GoalTarget] = {}
    previous: GoalTarget | None = None
    complete = True
    for piece in pieces:
        text = _PART_OPENING.sub("", piece)
        target = goal_target(text) or _elliptical(text, previous)
        if target is None:
            complete = False
            continue
        found.pop(_name_key(target.name), None)
        found[_name_key(target.name)] = target
        previous = target
    if not found:
        return GoalParts(wished_states(goal))
    return GoalParts(tuple(found.values()), complete=complete)


# --- goals in free words ----------------------------------------------------------------------
# People ask for a switch in sentences no rule reads whole: "get the phone back onto wifi",
# "shut bluetooth down, nothing is paired with it anyway", "DND please". There the state is
# read clause by clause from words that say on or off, and only where every clause that names
# the switch (or "it" after it) agrees. Questions about the state ("Is Bluetooth on?"), and
# conditions ("if it isn't", "whether", "before ..."), say what is, not what is wanted, and are
# not read; a clause with a negation the cues below do not account for is not read either. A
# state read this way only holds a claim of success to it (it never ends an episode by
# itself), so an unread goal costs a check and a misread one costs a true success: when in
# doubt, no reading.

# where a clause named the switch: a word, so that "on _switch_" is no "on" at the end
_SWITCH = "_switch_"
_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;\n]*")
# an alarm named by its time: "the 5:01 AM alarm", "my 13:00 alarm"
_ALARM_TIME = r"(?<![\d:])(?P<time>\d{1,2}(?::\d{2}\s*(?:[ap]\.?\s?m\b\.?)?|\s*[ap]\.?\s?m\b\.?))"
_ALARM_MENTION = re.compile(rf"{_ALARM_TIME}\s+alarm\b", re.IGNORECASE)
# "the alarm at 12:07 PM", "my alarm for 1:41 AM", "the alarm set for 7:33"; not "an alarm for
# 7:09", which is one to make
_ALARM_BEFORE_TIME = re.compile(
    r"\b(?:the|my|that|this)\s+alarm\s+(?:(?:set|that\s+rings|ringing)\s+)?(?:for|at|of)\s+"
    rf"{_ALARM_TIME}(?![\d:])",
    re.IGNORECASE,
)
_STATE_QUESTION = re.compile(r"^\W*(?:is|are|am|was|were|do|does|did|has|have)\b.*\?", re.I)
_CLAUSE_BREAK = re.compile(
    r"[,()\u2014\u2013\u2192]|(?<!\d):|:(?!\d)|\s-+\s|\b(?:and|then|but|otherwise|or|after\s+that)\b",
    re.I,
)
_CONDITION = re.compile(
    r"\b(?:if|unless|whether|when|whenever|while|before|until|because|since|in\s+case)\b.*", re.I
)
_PRONOUN = re.compile(r"\b(?:it|it['’]s|its)\b", re.I)
_POLITE = re.compile(
    r"\b(?:please|pls|plz|now|quickly|asap|thanks|thank\s+you|again|just|the|my|right\s+away)\b",
    re.I,
)
# what turns a bare name into a request ("DND please"), where a bare name may also be a field's
# name or value ("location: Office", "title: Flashlight")
_REQUEST = re.compile(r"\b(?:please|pls|plz|now|asap|right\s+away)\b", re.I)
_OFF_CUES = re.compile(
    "|".join(
        (
            r"\boff\b",
            r"\b(?:disabl|deactivat|disconnect)\w*",
            r"\b(?:cut|shut|kill|stop|halt)\b",
            r"\bout\s+of\b",
            rf"\bleave\s+(?:the\s+)?{_SWITCH}(?!\s+(?:alone|be|as)\b)",
            rf"\bnot\s+(?:be\s+)?(?:in|on)\s+(?:the\s+)?{_SWITCH}",
            r"\bno\s+more\b",
            r"\bdone\s+with\b",
            r"\b(?:don['’]?t|do\s+not)\s+need\b",
            r"\bget\s+rid\s+of\b",
            # an alarm kept from ringing: "must not ring", "mustn't wake me"
            r"\b(?:must|should|shall|may|will|can|does|do)(?:\s+not|n['’]?t)\s+"
            r"(?:ring|go\s+off|sound|wake)\b",
            r"\bnever\s+(?:ring|go\s+off|sound|wake)",
        )
    ),
    re.I,
)
# What the switch is now, not what is wanted: "the wifi is off", "wifi's off, put it back on".
# After "so" it is the wanted result ("flip it so it's on"), and that is read.
_DESCRIBED = re.compile(
    r"(?:\b(?:is|are|was|were|has|have|had)|['’]s)\s+"
    r"(?:(?:still|currently|now|already|switched|turned|set|been)\s+)*"
    r"(?:on|off|enabled|disabled|active|connected|running)\b",
    re.IGNORECASE,
)
# an alarm that "goes off" rings: no state of a switch
_GOES_OFF = re.compile(r"\b(?:go|goes|going|went|gone)\s+off\b", re.IGNORECASE)
_WANTED_RESULT = re.compile(r"\bso(?:\s+that)?\s+\S+\s*$", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never|no|nor|without)\b|n['’]t\b", re.I)
# "on" as a state, not a place ("on the phone", "dies on me"): at the end, or before words that
# end a request ("on real quick", "on in Settings", "on once you're done")
_AFTER_ON = (
    "for|so|as|again|now|already|too|please|pls|right|real|quick|quickly|then|while|when|if"
    "|before|after|once|in|by|and|at|until|only|first|all|every|today|tonight|instead|completely"
    "|immediately|straight"
)
_ON_CUES = re.compile(
    "|".join(
        (
            rf"\bon\b(?=\W*$|\s+(?:{_AFTER_ON})\b)",
            # before the switch only after a verb: "put it on DND", not "I'll be on mobile data"
            r"\b(?:put|set|switch|turn|keep|get|flip)(?:s|ting|ing|ping)?\s+"
            r"(?:(?:it|the\s+phone|my\s+phone)\s+)?"
            rf"on\s+(?:(?:the|my)\s+)?{_SWITCH}",
            # verbs, not nouns: "drop the wifi connection" asks for it off
            r"\b(?:enabl(?:e|ed|es|ing)|activ(?:e|ate|ated|ates|ating)|(?:re)?connect(?:ed|s|ing)?)\b",
            r"\b(?:running|into|onto)\b|\bgoing\b(?!\s+to\b)",  # not "I'm going to use ..."
            rf"\bin\s+(?:the\s+)?{_SWITCH}",
        )
    ),
    re.I,
)


# A switch wished for by name, with no state said: "need dark mode pls", "I want bluetooth for
# the car". Only where nothing in the clause says off ("I want wifi off").
_WISHED = re.compile(
    rf"\b(?:need|needs|want|wants|wanna|(?:would|['’]d)\s+like|give\s+me)\s+"
    rf"(?:(?:the|my|some)\s+)?{_SWITCH}",
    re.I,
)


# Switches people describe by what they do rather than name, with the state the words ask for:
# "stop the screen from sleeping while it charges" is Stay awake on, "I want the battery % up
# top" Battery percentage on.
_SCREEN = r"(?:the\s+|my\s+)?(?:screen|display)"
_BATTERY_SHARE = (
    r"(?:battery(?:\s+level)?\s*(?:%|percent(?:age)?\b)|percent(?:age)?\s+of\s+(?:the\s+)?battery)"
)
_DESCRIBED_SWITCHES: tuple[tuple[re.Pattern[str], str, bool], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), switch, desired)
    for pattern, switch, desired in (
        (
            rf"\b(?:stop|keep|prevent)\w*\s+{_SCREEN}\s+(?:from\s+)?(?:sleeping|going\s+to\s+sleep"
            rf"|going\s+dark|dimming)\b(?=.*\bcharg)"
            rf"|\b{_SCREEN}\s+(?:should\s+|must\s+|to\s+)?(?:never|not)\s+(?:go\s+to\s+)?sleep\w*"
            rf"(?=.*\bcharg)"
            rf"|\bcharg\w*\b.*\b{_SCREEN}\s+(?:should\s+|must\s+|to\s+)?(?:never|not)\s+"
            rf"(?:go\s+to\s+)?sleep"
            rf"|\b(?:keep\s+{_SCREEN}|{_SCREEN}\s+(?:should\s+|must\s+)?(?:stays?|remains?))\s+"
            rf"(?:awake|on)\b(?=.*\bcharg)",
            "Stay awake",
            True,
        ),
        (
            r"\b(?:back\s+to|switch\s+to|change\s+to|go\s+to|return\s+to|bring\s+back|use|want)"
            r"\s+(?:the\s+|a\s+)?light\s+(?:theme|mode|look|appearance|colou?rs?)\b",
            "Dark theme",
            False,
        ),
        (
            rf"\b(?:show|want|see|display|put|add|bring\s+back)\b[^.?!]*\b{_BATTERY_SHARE}"
            rf"|\b{_BATTERY_SHARE}\s+(?:(?:should|must|needs\s+to|to)\s+)?(?:be\s+)?"
            r"(?:shown|showing|visible|displayed)\b",
            "Battery percentage",
            True,
        ),
        (
            rf"\b(?:hide|remove|get\s+rid\s+of|take\s+away|lose)\b[^.?!]*\b{_BATTERY_SHARE}",
            "Battery percentage",
            False,
        ),
        (
            rf"\b(?:stop|keep|prevent)\w*\s+{_SCREEN}\s+(?:from\s+)?(?:rotating|flipping|turning)\b"
            rf"|\b(?:lock|fix)\s+(?:the\s+)?(?:screen\s+)?(?:orientation|rotation)\b",
            "Auto-rotate",
            False,
        ),
    )
)


_IF = re.compile(r"^\W*(?:if|unless|whether)\b", re.IGNORECASE)
# The answer wished to a question about a switch's state: "Am I still in airplane mode? I
# shouldn't be.", "is bluetooth off? it should be": the asked state, or its opposite.
_WISHED_ANSWER = re.compile(
    r"^\W*(?:it|i|that|they|the\s+phone|my\s+phone)\s+(?:should|must|ought\s+to|needs?\s+to"
    r"|has\s+to|have\s+to)(?P<not>\s+not|n['’]?t)?\s+be\W*$",
    re.IGNORECASE,
)


def _described_states(sentence: str) -> list[tuple[str, bool]]:
    """The switches a sentence asks for by what they do, with no negation before the words."""
    return [
        (switch, desired)
        for pattern, switch, desired in _DESCRIBED_SWITCHES
        for found in pattern.finditer(sentence)
        if not _NEGATION.search(sentence[: found.start()])
    ]


def wished_states(goal: str) -> tuple[GoalTarget, ...]:
    """The phone's switches a goal in free words names, each with the state its words ask for,
    where every clause that says one agrees; the others are left out."""
    said: dict[str, set[bool]] = {}
    last_named: str | None = None
    # the switches the sentence before asked about, with the state it asked about
    asked: list[tuple[str, bool | None]] = []
    for sentence in _SENTENCE.findall(with_apostrophes(plain_times(goal))):
        wished = _WISHED_ANSWER.match(sentence)
        if wished and len(asked) == 1:
            switch, state = asked[0]
            if state is not None:
                said.setdefault(switch, set()).add(state if wished["not"] is None else not state)
        asked = []
        question = _STATE_QUESTION.match(sentence) is not None
        asks = sentence.rstrip().endswith("?")
        if not question and not _IF.match(sentence):
            for switch, desired in _described_states(sentence):
                said.setdefault(switch, set()).add(desired)
        clauses = _CLAUSE_BREAK.split(sentence)
        for index, clause in enumerate(clauses):
            switches, text = _take_out_switches(clause)
            if switches:
                last_named = switches[-1]
            if question:
                asked += [(switch, _clause_state(text, by_name_alone=False)) for switch in switches]
                continue
            text = _CONDITION.sub("", text)
            if not switches and last_named is not None and _PRONOUN.search(text):
                switches = [last_named]
                text = _PRONOUN.sub(_SWITCH, text, count=1)
            if len(set(switches)) != 1:
                continue
            requested = _REQUEST.search(" ".join(clauses[index : index + 2])) is not None
            state = _clause_state(text, by_name_alone=requested and not asks)
            if state is not None:
                said.setdefault(switches[0], set()).add(state)
    # an alarm "got rid of" is deleted, not switched off
    deleting = deletes_items(goal)
    return tuple(
        GoalTarget(switch, desired=states.pop())
        for switch, states in said.items()
        if len(states) == 1 and not (deleting and _ALARM_MENTION.fullmatch(switch))
    )


def _take_out_switches(clause: str) -> tuple[list[str], str]:
    """The switches `clause` names, in order, and the clause with each name replaced by
    `_SWITCH`; of names that overlap ("Wi-Fi hotspot", "Wi-Fi") the longest counts. An alarm
    is named by its time ("the 5:01 AM alarm")."""
    spans = sorted(
        [
            (found.start(), -found.end(), names[0])
            for pattern, names in _ALIAS_MENTIONS
            for found in pattern.finditer(clause)
        ]
        + [
            (found.start(), -found.end(), f"{found['time'].strip()} alarm")
            for pattern in (_ALARM_MENTION, _ALARM_BEFORE_TIME)
            for found in pattern.finditer(clause)
        ]
    )
    switches: list[str] = []
    pieces: list[str] = []
    position = 0
    for start, negative_end, switch in spans:
        if start < position:
            continue
        pieces += [clause[position:start], _SWITCH]
        switches.append(switch)
        position = -negative_end
    return switches, "".join([*pieces, clause[position:]])


def _clause_state(text: str, *, by_name_alone: bool) -> bool | None:
    """The state a clause naming one switch asks for: True on, False off, None when it says
    neither, both, or something with a negation the cues do not account for; what the clause
    says the switch is now ("the wifi is off") is no wish. With
    `by_name_alone` (a request, not a question), a clause that says nothing but the switch's
    name asks for it on."""
    text = _DESCRIBED.sub(
        lambda said: said[0] if _WANTED_RESULT.search(said.string[: said.start()]) else " ",
        _GOES_OFF.sub(" ", text),
    )
    off = _OFF_CUES.search(text) is not None
    if _NEGATION.search(_OFF_CUES.sub(" ", text)):
        return None
    on = _ON_CUES.search(text) is not None or (not off and _WISHED.search(text) is not None)
    if (
        by_name_alone
        and not on
        and not off
        and not re.sub(r"\W+", "", _POLITE.sub("", text).replace(_SWITCH, ""))
    ):
        on = True  # the switch by name and nothing else asked: "DND please", "dark mode, now"
    return on if on != off else None


# --- every switch of a kind --------------------------------------------------------------------
# "Turn off all my alarms", "disable each of my alarms": no one switch is named, but every switch
# whose label holds the word is asked in one state. Only the switches the run has shown can be
# held to it; a list may hold more below the fold.

_ALL = (
    r"(?:all|every|each)(?:\s+(?:of|my|the|single|one|your|other|these|those|remaining))*"
    r"\s+(?P<kind>[^\W\d_]{3,}?)(?:e?s)?\b"
)
# "on" before a day or a place is no state: "delete all events on Thursday", "on my calendar"
_WHEN = (
    r"(?:\d|(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"|today|tomorrow|yesterday|my|this|that|next|last|weekdays?|weekends?)"
)
# the state said right at the words: "turn off all my alarms", "disable each alarm", "every
# alarm off"; not "every time I lie down", nor "all of those events ... called off"
_EVERY = re.compile(
    r"\b(?:(?:turn|switch|flip|toggle|put|set)\s+(?P<verb_state>on|off)\s+"
    r"|(?P<verb>disabl\w*|deactivat\w*|silenc\w*|mut(?:e|ing)|enabl\w*|activat\w*)\s+"
    r"|(?:(?:turn|switch|flip|toggle|put|set)\s+)?)"
    rf"{_ALL}(?:(?:\s+(?:should|must|need\s+to|needs\s+to|to)\s+be(?:\s+(?:turned|switched|set))?"
    rf"|(?:\s+\w+)??:?)\s+(?P<after_state>on|off)\b(?!\s+(?:the\s+)?{_WHEN})"
    # "every event on it should go": a place, not a state
    r"(?!\s+(?:it|that|this|there|them|those|these|its|my)\b))?",
    re.IGNORECASE,
)
_NOT_A_KIND = {"time", "day", "week", "thing", "one", "way"}


@dataclass(frozen=True)
class EverySwitch:
    """Every switch of a kind, asked in one state: the kind is a word its labels hold, in the
    singular ("alarm" for "7:30 AM alarm")."""

    kind: str
    desired: bool

    @property
    def asked(self) -> str:
        return f"every {self.kind} {'on' if self.desired else 'off'}"

    def matches(self, element: Element) -> bool:
        if element.role != "switch" or element.checked is None:
            return False
        words = re.findall(r"\w+", label_title(element.label).casefold())
        return self.kind in words or f"{self.kind}s" in words


def every_switch(goal: str) -> EverySwitch | None:
    """The kind of switch a goal asks every one of on or off, when the state is said right at
    the words and the goal asks no question ("Are all my alarms off?" wants an answer, not a
    change)."""
    if asks_for_answer(goal):
        return None
    readings = set()
    for found in _EVERY.finditer(goal):
        kind = found["kind"].casefold()
        state = found["verb_state"] or found["after_state"]
        if kind in _NOT_A_KIND or not (state or found["verb"]):
            continue
        desired = (
            state.casefold() == "on"
            if state
            else not re.match(r"disabl|deactivat|silenc|mut", found["verb"], re.IGNORECASE)
        )
        readings.add(EverySwitch(kind, desired))
    return readings.pop() if len(readings) == 1 else None


def _elliptical(piece: str, previous: GoalTarget | None) -> GoalTarget | None:
    """A part of a compound goal without its verb ("Bluetooth on") or its state ("Bluetooth",
    after "turn off Wi-Fi"), naming a switch every phone has."""
    target = _ELLIPTICAL_RULE.match(piece)
    bare = _BARE_SUBJECT.fullmatch(piece)
    if target is None and previous is not None and bare is not None:
        target = GoalTarget(bare["subject"].strip(), previous.desired)
    return target if target is not None and target.known else None


def _clean_goal(goal: str) -> str:
    """The goal without a polite opening or closing ("Hey, could you please", "for me,
    thanks"), closing punctuation or where it happens ("in Settings")."""
    text = _POLITE_CLOSING.sub("", _POLITE_OPENING.sub("", with_apostrophes(plain_times(goal))))
    return _LOCATION_SUFFIX.sub("", _LOCATION_PREFIX.sub("", text))


# "7.42 p.m.": the dots of a time of day end no sentence and part no name
_DOTTED_TIME = re.compile(
    r"(?<![\d.])(\d{1,2})(?:[.:](\d{2}))?\s*([ap])\.\s?m\.?(?!\w)", re.IGNORECASE
)


def plain_times(text: str) -> str:
    """`text` with its times of day written without dots: "7.42 p.m." as "7:42 pm"."""
    return _DOTTED_TIME.sub(
        lambda time: f"{time[1]}{':' + time[2] if time[2] else ''} {time[3]}m", text
    )


_POLITE_OPENING = re.compile(
    r"^\s*(?:(?:hey|hi|hello|ok|okay)\b[\s,!]*|(?:can|could|would|will)\s+(?:you|u)\s+"
    r"|(?:please|pls|kindly)\s+|you\s+)*",
    re.IGNORECASE,
)
_POLITE_CLOSING = re.compile(
    r"(?:[\s,]+(?:please|pls|plz|for\s+me|now|thanks|thank\s+you|right\s+away))*[\s.!?]*$",
    re.IGNORECASE,
)


def label_titles(label: str) -> list[str]:
    """What the title of `label` may be, shortest first: every leading run of its ", "-joined
    pieces ("Dark theme, Will never turn on automatically" -> "Dark theme", then the whole)."""
    pieces = label.split(PIECE_SEPARATOR)
    return [PIECE_SEPARATOR.join(pieces[:count]) for count in range(1, len(pieces) + 1)]


def label_title(label: str) -> str:
    """The part of `label` that a change of its summary leaves alone: its first piece."""
    return label.split(PIECE_SEPARATOR, 1)[0]
