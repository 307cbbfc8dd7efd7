"""Seeded generators for the values goals ask for: people and their numbers, times, labels,
message texts, event titles, places.

Every value is composed from word lists and random numbers, so that the values of one seed
are rarely those of another: a policy can only get them right by copying them from the goal
or the screen, never by recalling them from training episodes. Names and texts come in many
scripts (Latin with diacritics, Chinese, Japanese, Korean, Arabic, Cyrillic, Greek,
Devanagari) and some carry emoji, to keep unicode handling under test.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass


def words(text: str) -> tuple[str, ...]:
    """A word list written as comma-separated text."""
    return tuple(word.strip() for word in text.split(",") if word.strip())


# ---------------------------------------------------------------------------------------------
# People: first and last names of one script, and a number in the format of a matching country


@dataclass(frozen=True)
class NameCulture:
    firsts: tuple[str, ...]
    lasts: tuple[str, ...]
    phone_formats: tuple[str, ...]  # "#" is a random digit
    weight: int


_LATIN_FIRSTS = words(
    "Zoë, Iñaki, Begoña, Andrés, Lucía, Sofía, Tomás, Álvaro, Inés, Joaquín, "
    "Rocío, Mónica, Léa, Chloé, Hélène, Noémie, Gaëlle, Jérôme, François, "
    "Benoît, Loïc, Anaïs, Jürgen, Björn, Sören, Käthe, Åsa, Øystein, Ingrid, "
    "Matthias, Ngozi, Chidi, Adaeze, Emeka, Funmilayo, Oluwaseun, Tunde, Ifeoma, "
    "Łukasz, Małgorzata, Paweł, Agnieszka, Jiří, Tomáš, Çağla, Gökhan, Şule, "
    "Öykü, İbrahim, Ümit, Thảo, Đức, Hương, Quỳnh, Giulia, Niccolò, Aurélie, "
    "João, Conceição, Siobhán, Seán, Aoife, Mia, Priya, Kwame, Ana"
)
_LATIN_LASTS = words(
    "Ñúñez, Muñoz, Peña, Ibáñez, Sánchez, Castaño, Díaz, Velázquez, Dubois, "
    "Lefèvre, Moreau, Girard, Bérenger, Lemaître, Fontaine, Müller, Schröder, "
    "Weiß, Bäcker, Åström, Sørensen, Lindqvist, Okonkwo, Adeyemi, Balogun, "
    "Nwosu, Adebayo, Wójcik, Kowalczyk, Zieliński, Dvořák, Yılmaz, Öztürk, "
    "Çelik, Şahin, Nguyễn, Trần, Phạm, Đặng, Esposito, Ricci, Gonçalves, Araújo, "
    "Ó Briain, Mac Giolla, Haddad, Mensah, Asante, Rossi, Janssen"
)
_LATIN_PHONES = (
    "+34 6## ### ###",
    "+33 6 ## ## ## ##",
    "+49 15# #### ####",
    "+46 7# ### ## ##",
    "+234 80# ### ####",
    "+48 5## ### ###",
    "+420 6## ### ###",
    "+90 5## ### ## ##",
    "+84 9# ### ## ##",
    "+39 3## ### ####",
    "+351 9## ### ###",
    "+353 8# ### ####",
    "+1 ###-555-01##",
    "+233 2# ### ####",
)

CULTURES = (
    NameCulture(_LATIN_FIRSTS, _LATIN_LASTS, _LATIN_PHONES, weight=10),
    NameCulture(
        words(
            "雷, 伟, 芳, 娜, 敏, 静, 磊, 洋, 艳, 勇, 杰, "
            "涛, 明, 秀英, 志强, 丽, 强, 平, 建华, 晓明, 海燕, 子涵"
        ),
        words(
            "李, 王, 张, 刘, 陈, 杨, 赵, 黄, 周, 吴, 徐, 孙, 马, 朱, 胡, 郭, 何, 高, 林, 罗, 郑, 梁"
        ),
        ("+86 13# #### ####", "+86 18# #### ####", "+886 9## ### ###"),
        weight=2,
    ),
    NameCulture(
        words(
            "さくら, ゆい, はると, 陽向, 美咲, 翔太, 蓮, 結衣, "
            "大翔, 葵, 健太, 花子, 拓海, 悠真, 直樹, 千尋"
        ),
        words(
            "佐藤, 鈴木, 高橋, 田中, 伊藤, 渡辺, 山本, 中村, "
            "小林, 加藤, 吉田, 山田, 松本, 井上, 木村, 斎藤"
        ),
        ("+81 90 #### ####", "+81 80 #### ####"),
        weight=1,
    ),
    NameCulture(
        words(
            "민준, 서연, 지호, 하은, 도윤, 수아, 예준, 지우, "
            "시우, 하린, 서준, 지민, 현우, 예린, 유나, 채원"
        ),
        words("김, 이, 박, 최, 정, 강, 조, 윤, 장, 임, 한, 오, 서, 신, 권, 황"),
        ("+82 10 #### ####",),
        weight=1,
    ),
    NameCulture(
        words(
            "سارة, محمد, فاطمة, علي, ليلى, يوسف, مريم, عمر, نور, "
            "خالد, هدى, زينب, حسين, رانيا, طارق, سلمى, كريم, "
            "ياسمين"
        ),
        words(
            "أحمد, حداد, منصور, خليل, سعيد, ناصر, الحسن, "
            "عباس, جابر, القاسم, الشمري, المصري, الخطيب, النجار, "
            "البنا, داود"
        ),
        ("+971 5# ### ####", "+966 5# ### ####", "+20 10 #### ####", "+212 6## ### ###"),
        weight=2,
    ),
    NameCulture(
        words(
            "Иван, Ольга, Дмитрий, Наталья, Сергей, Анна, Алексей, Юлия, Павел, Екатерина, Михаил, "
            "Татьяна, Андрей, Светлана, Николай, Ирина, Артём, Ксения"
        ),
        words(
            "Петров, Смирнов, Кузнецов, Попов, Соколов, "
            "Лебедев, Новиков, Морозов, Васильев, Павлов, "
            "Семёнов, Голубев, Виноградов, Богданов, Воробьёв, Фролов, Орлов, Медведев"
        ),
        ("+7 9## ### ## ##", "+380 6# ### ## ##"),
        weight=2,
    ),
    NameCulture(
        words(
            "Νίκος, Ελένη, Γιώργος, Μαρία, Δημήτρης, Σοφία, "
            "Κώστας, Αθηνά, Άννα, Γιάννης, Κατερίνα, "
            "Παναγιώτης, Δέσποινα, Σταύρος, Ειρήνη"
        ),
        words(
            "Παπαδόπουλος, Οικονόμου, Γεωργίου, Νικολάου, "
            "Αντωνίου, Ιωάννου, Μαυρίδης, Καραγιάννης, "
            "Πετρόπουλος, Αλεξίου, Χριστοδούλου, Σταματίου, Μιχαηλίδης"
        ),
        ("+30 69# ### ####",),
        weight=1,
    ),
    NameCulture(
        words(
            "आरव, प्रिया, अनन्या, विवान, दिया, रोहन, ईशा, "
            "कबीर, मीरा, अर्जुन, नेहा, साहिल, पूजा, आदित्य, कविता"
        ),
        words("शर्मा, वर्मा, गुप्ता, सिंह, पटेल, जोशी, मेहता, राव, अग्रवाल, चौधरी, नायर, मिश्रा, कपूर, देसाई"),
        ("+91 9#### #####", "+91 8#### #####"),
        weight=1,
    ),
)
# Names the apps start with, which a sampled person must not take.
RESERVED_NAMES = frozenset(
    {
        "Alice Martin", "Bob Chen", "Carmen López", "David Okafor", "Aaron Blake",
        "Beatriz Souza", "Chen Jing", "Dmitri Volkov", "Emma Schmidt", "Fatima Zahra",
        "George Miller", "Hana Kobayashi", "Ines García", "Jonas Berg", "Kofi Mensah",
        "Zack Young",
    }
)  # fmt: skip


def digits_for(pattern: str, rng: random.Random) -> str:
    return "".join(str(rng.randrange(10)) if char == "#" else char for char in pattern)


def culture(rng: random.Random) -> NameCulture:
    return rng.choices(CULTURES, weights=[c.weight for c in CULTURES])[0]


def phone_number(rng: random.Random) -> str:
    """A number in the format of some country, its subscriber digits random."""
    return digits_for(rng.choice(culture(rng).phone_formats), rng)


def person(rng: random.Random, taken: Collection[str] = ()) -> dict[str, str]:
    """A first and last name of one script and a number of a country that writes it; never
    one of the contacts the apps start with nor a name in `taken`."""
    while True:
        kind = culture(rng)
        first, last = rng.choice(kind.firsts), rng.choice(kind.lasts)
        name = f"{first} {last}"
        if name not in RESERVED_NAMES and name not in taken and first != last:
            phone = digits_for(rng.choice(kind.phone_formats), rng)
            return {"first": first, "last": last, "name": name, "phone": phone}


def other_last_name(rng: random.Random, first: str, last: str) -> str:
    """A new surname in the same script as the person's."""
    kind = next(c for c in CULTURES if first in c.firsts and last in c.lasts)
    return rng.choice([name for name in kind.lasts if name not in (first, last)])


def first_name(rng: random.Random) -> str:
    return rng.choice(culture(rng).firsts)


# ---------------------------------------------------------------------------------------------
# Times of day


def clock_time(rng: random.Random, avoid: Collection[str] = ()) -> str:
    """Any minute of the day as "HH:MM", other than those in `avoid`."""
    while True:
        minute = rng.randrange(24 * 60)
        hhmm = f"{minute // 60:02d}:{minute % 60:02d}"
        if hhmm not in avoid:
            return hhmm


def distinct_times(rng: random.Random, count: int, avoid: Collection[str] = ()) -> list[str]:
    times: list[str] = []
    while len(times) < count:
        times.append(clock_time(rng, [*avoid, *times]))
    return times


# ---------------------------------------------------------------------------------------------
# Short texts composed from parts

_ACTIVITIES = words(
    "Gym, Yoga, Medicine, Standup, Laundry, Piano practice, Feed the cat, Train, "
    "Bus, Water the plants, Vitamins, Siesta, Méditation, Café, Deutschkurs, "
    "Schwimmen, Run, Stretch, Bake bread, Take out the bins, School run, Nap, "
    "Pills, Study, Podcast, Dog walk, Meal prep, Tee, 早起き, 跑步, Тренировка, "
    "رياضة, Κολύμβηση, योग, 운동, Prière"
)
_EMOJI = words("☕, 💊, 🏃, 🎹, 🐱, 🌱, ⏰, 🙂, 🎉, 📚, 🚌, 🧘")


def _with_person(rng: random.Random, phrases: tuple[str, ...]) -> str:
    return rng.choice(phrases).format(first=first_name(rng))


def alarm_label(rng: random.Random) -> str:
    """ "Gym", "Piano practice 🎹", "Pick up Léa", "Call 美咲"."""
    shape = rng.randrange(4)
    if shape == 0:
        return f"{rng.choice(_ACTIVITIES)} with {first_name(rng)}"
    if shape == 1:
        return f"{rng.choice(_ACTIVITIES)} {rng.choice(_EMOJI)} {rng.randrange(1, 100)}"
    if shape == 2:
        verb = _with_person(rng, ("Pick up {first}", "Call {first}", "Wake {first}"))
        return f"{verb} {rng.choice(_EMOJI)}"
    return f"{rng.choice(_ACTIVITIES)} #{rng.randrange(1, 100)}"


def clashes(value: str, taken: Collection[str]) -> bool:
    """Whether `value` starts one of `taken` or starts with one, compared without case: plans
    find a row by the start of its label, so "Coffee 12" must not share a screen with
    "Coffee 123"."""
    folded = value.casefold()
    return any(folded.startswith(t.casefold()) or t.casefold().startswith(folded) for t in taken)


def unlike(rng: random.Random, make: Callable[[random.Random], str], taken: Collection[str]) -> str:
    """A value of `make` that does not clash with any of `taken`."""
    while True:
        value = make(rng)
        if not clashes(value, taken):
            return value


def distinct(rng: random.Random, make: Callable[[random.Random], str], count: int) -> list[str]:
    """`count` values of `make`, none the start of another."""
    values: list[str] = []
    while len(values) < count:
        values.append(unlike(rng, make, values))
    return values


_PLACES = words(
    "the station, the café, the park, the office, the gym, the library, home, "
    "the bakery, the bridge, the market, the cinema, the museum, the beach"
)
_THINGS = words(
    "charger, keys, umbrella, tickets, cake, laptop, passport, book, wine, "
    "snacks, camera, jacket, map, guitar, receipts"
)
_DAYS_FR = words("lundi, mardi, mercredi, jeudi, vendredi, samedi, demain")
_PLACES_ES = words("la estación, casa, el parque, la oficina, el mercado, la playa")
_PLACES_ZH = words("公园, 车站, 咖啡馆, 图书馆, 学校, 超市")
_PLACES_RU = ("парке", "кафе", "метро", "офисе", "библиотеке")
_PLACES_AR = ("المقهى", "المحطة", "الحديقة", "المكتب", "السوق")


def message_text(rng: random.Random) -> str:
    """A short text message in one of several languages, with numbers, places and emoji."""
    minutes, hour = rng.randrange(2, 60), rng.randrange(1, 13)
    first = first_name(rng)
    shapes = (
        lambda: f"Running {minutes} min late {rng.choice(_EMOJI)}",
        lambda: f"See you at {rng.choice(_PLACES)} at {hour}:{rng.randrange(0, 60, 5):02d}",
        lambda: f"Can you bring the {rng.choice(_THINGS)} at {hour}?",
        lambda: f"Don't forget the {rng.choice(_THINGS)} for {first}",
        lambda: f"Happy birthday {first}! {rng.choice(('🎉', '🎂', '🥳'))}",
        lambda: f"¿Llegas a {rng.choice(_PLACES_ES)} a las {hour}?",
        lambda: f"Ça marche, à {rng.choice(_DAYS_FR)} {hour}h{rng.randrange(0, 60, 5):02d} !",
        lambda: f"明天{hour}点{minutes}分在{rng.choice(_PLACES_ZH)}见",
        lambda: f"Буду в {rng.choice(_PLACES_RU)} через {minutes} минут",
        lambda: f"نلتقي في {rng.choice(_PLACES_AR)} الساعة {hour}:{minutes}",
        lambda: f"Table for {rng.randrange(2, 9)} booked at {hour}:{minutes} pm 🍽️",
        lambda: f"Bus {rng.randrange(1, 300)} is delayed, I'm {minutes} min away",
    )
    return rng.choice(shapes)()


_STREETS = (
    ("{n} Main St", "Girdwood, AK 99587"),
    ("{n} Elm St", "Birmingham, AL 35217"),
    ("Calle de Alcalá {n}", "28014 Madrid"),
    ("Rue de Rivoli {n}", "75001 Paris"),
    ("Via Roma {n}", "00184 Roma"),
    ("Hauptstraße {n}", "10827 Berlin"),
    ("Rua Augusta {n}", "1100-053 Lisboa"),
    ("{n} Queen St W", "Toronto, ON M5H 2M9"),
    ("Ulica Długa {n}", "80-831 Gdańsk"),
    ("{n} Harbour Rd", "Wan Chai, Hong Kong"),
    ("Storgatan {n}", "114 55 Stockholm"),
)


def street_address(rng: random.Random) -> str:
    street, city = rng.choice(_STREETS)
    return f"{street.format(n=rng.randrange(1, 400))}, {city}"


_EVENT_KINDS = words(
    "Dentist, Team sync, Yoga, Haircut, Piano lesson, Sprint review, Book club, "
    "Parent meeting, Vet appointment, Tennis, Budget review, Car service, "
    "Design critique, Physio, Interview, Cours de français, Clase de salsa, "
    "Zahnarzt, 茶会, Встреча, اجتماع, Rehearsal, Workshop, 1:1"
)
_EVENT_WITH = (
    "Lunch with {first}",
    "Call with {first}",
    "Coffee with {first}",
    "Dinner with {first}",
)


def event_title(rng: random.Random) -> str:
    """ "Dentist", "Lunch with Léa", "Sprint review 14", "Yoga 🧘"."""
    shape = rng.randrange(4)
    if shape == 0:
        return _with_person(rng, _EVENT_WITH)
    if shape == 1:
        return f"{rng.choice(_EVENT_KINDS)} {rng.randrange(2, 50)}"
    if shape == 2:
        return f"{rng.choice(_EVENT_KINDS)} {rng.choice(_EMOJI)}"
    return f"{rng.choice(_EVENT_KINDS)} with {first_name(rng)}"


def pick_word(rng: random.Random, text: str) -> str:
    """One word of a comma-separated word list."""
    return rng.choice(words(text))


MONTHS = (
    "January, February, March, April, May, June, July, August, September, October, November, "
    "December"
)


_WEEKDAYS = "Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday"


def sentence(rng: random.Random) -> str:
    """A one-line note: "Water the basil every 3 days.", "周三去公园散步。"."""
    number, first = rng.randrange(2, 60), first_name(rng)
    weekday = pick_word(rng, _WEEKDAYS)
    shapes = (
        lambda: (
            f"Pick up the {pick_word(rng, 'dry cleaning, parcel, prescription, keys, bike')}"
            f" before {rng.randrange(1, 12)} pm."
        ),
        lambda: (
            f"The {pick_word(rng, 'quarterly report, tax return, essay, invoice, slide deck')}"
            f" is due on {weekday}."
        ),
        lambda: (
            f"Water the {pick_word(rng, 'tomatoes, basil, ferns, orchids, lemon tree')}"
            f" every {rng.randrange(2, 8)} days."
        ),
        lambda: (
            f"Call {first} about the {pick_word(rng, 'kitchen sink, lease, party, car, trip')}."
        ),
        lambda: (
            f"Bring {pick_word(rng, 'sunscreen, a hat, snacks, the tent, towels')} to the "
            f"{pick_word(rng, 'beach, lake, picnic, match, hike')} on {weekday}."
        ),
        lambda: f"Ask {first} for the café's opening hours.",
        lambda: f"Книга {number} на полке у окна.",
        lambda: (
            f"周{pick_word(rng, '一, 二, 三, 四, 五, 六, 日')}"
            f"去{pick_word(rng, '公园, 海边, 山上')}散步。"
        ),
        lambda: f"Try the new bakery on {pick_word(rng, 'Elm, Oak, Pine, Maple, Cedar')} Street.",
        lambda: f"Back up the laptop on {weekday} evening.",
        lambda: (
            f"Room {number} is booked for the {pick_word(rng, 'workshop, review, retro, demo')}."
        ),
        lambda: f"Read {number} pages of {pick_word(rng, 'Dune, Emma, Beloved, Ulysses, Kokoro')}.",
    )
    return rng.choice(shapes)()


_NOTE_TOPICS = words(
    "grocery_list, meeting_notes, personal_goals, reading_list, vacation_plans, gift_ideas, "
    "todo_list, garden_layout, book_quotes, learning_goals, recettes_d_été, trip_reflections, "
    "workout_log, budget_notes, movie_watchlist, packing_list, journal, podcast_ideas, "
    "house_chores, party_planning, study_notes, project_ideas, dream_log, wine_notes, "
    "meal_plan, habit_tracker, car_maintenance, birthday_list, recipe_ideas, guitar_chords, "
    "job_applications, interview_prep, lecture_notes, travel_checklist, plant_care, "
    "moving_checklist, band_setlist, course_notes, cleaning_schedule, notas_de_viaje"
)
_NOTE_QUALIFIERS = words(
    "weekly, team, mom, dad, kids, draft, final, v2, spring, summer, autumn, winter, "
    "january, march, june, october, work, home, berlin, lisbon, kyoto, q1, q3, q4, "
    "anna, leo, sofia, paris, oslo, seoul, lima, old, new, misc, shared, private, backup, "
    "part2, week12, week40, sprint7, club, office"
)


def note_name(rng: random.Random) -> str:
    """ "reading_list_2024.md", "gift_ideas_mom.txt"."""
    qualifier = (
        str(rng.randrange(2015, 2031)) if rng.random() < 0.4 else rng.choice(_NOTE_QUALIFIERS)
    )
    extension = ".md" if rng.random() < 0.75 else ".txt"
    return f"{rng.choice(_NOTE_TOPICS)}_{qualifier}{extension}"


_FOLDER_SUBJECTS = words(
    "Book, Daily, Meeting, Recipe, Travel, Work, Garden, Project, Family, School, Music, "
    "Health, Finance, Film, Language, Research, Client, Team, Home, Photo"
)
_FOLDER_KINDS = words(
    "Notes, Minutes, Collections, Itineraries, Ideas, Archive, Drafts, Logs, Plans, Journal, "
    "Lists, Reviews, Sketches, Reports"
)


def notebook_folder(rng: random.Random) -> str:
    """ "BookNotes2019", "TravelItineraries2025"."""
    year = rng.randrange(2000, 2031)
    return f"{rng.choice(_FOLDER_SUBJECTS)}{rng.choice(_FOLDER_KINDS)}{year}"
