"""Goals in other people's words: a test set of how people outside this project ask a phone
for things, written from scratch for every task of the simulator suite.

Nothing here comes from the tasks' phrasings (`Task.templates`) or from the lexicon that
rewords them for training (`evals.goal_rewording`): the sentences were written fresh, in
voices the suite's own goals do not use: terse lower-case commands with no full stop, other
word orders, apps called by other names ("google calendar", "the file manager", "tasks.org"),
values given as `key: value` rows or comma-separated rows, times as "6:29am" or "18:10",
dates said relative to the simulator's today (Tuesday, October 15 2024: "tomorrow", "Friday",
"last Thursday", "Wednesday next week"), and questions.

These goals are for the test split only (`evals.splits`): they are never trained on, and
never used to choose between training runs. `evals.demos` refuses to export a demonstration
whose goal says one of them.

Each phrasing is a format string over the task's parameters. A field may name a view after a
colon (`{time:compact}`, `{date:relative}`): another way of writing the same value, from
`evals.goals.views`. A few tasks add parameters of their own words (`EXTRA_PARAMETERS`). The
i-th phrasing of a task is rendered with the i-th test seed (cycling), so each task's goals
cover both seeds. `python -m evals.goals.others_words` writes `others_words.jsonl`, the file
`phone-agent eval --goals` runs; a test checks that the file is what this module renders. The
validation split has a set of its own, written apart from this one
(`evals.goals.others_words_validation`).
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.goal_files import GoalLine
from evals.goals import views
from evals.goals.views import ExtraParameters
from evals.splits import OTHERS_WORDS_FILE, TEST_SEEDS

PHRASINGS: dict[str, tuple[str, ...]] = {
    # Settings: switches, each asked the way people say it
    "SystemWifiTurnOn": (
        "wifi's off, put it back on",
        "Could you get me connected to wifi again? Only the switch in settings, nothing else.",
    ),
    "SystemWifiTurnOff": (
        "kill the wifi",
        "I'm going to use mobile data for a while, so shut wifi down in the settings app.",
    ),
    "SystemBluetoothTurnOn": (
        "need bluetooth for my earbuds, flip it so it's running",
        "can u get bluetooth going so my headphones connect",
    ),
    "SystemBluetoothTurnOff": (
        "no more bluetooth. shut it down to save battery",
        "Settings app: I don't want Bluetooth running anymore, please disable it.",
    ),
    "SystemAirplaneModeTurnOn": (
        "plane's about to take off — put the phone in plane mode",
        "boarding now, airplane mode please",
    ),
    "SystemAirplaneModeTurnOff": (
        "we landed, get me out of airplane mode",
        "Phone still in plane mode? Take it out of that, I need signal.",
    ),
    "SystemDarkThemeTurnOn": (
        "can you put my phone in dark mode?",
        "white backgrounds are killing my eyes at night. give the display the dark theme",
    ),
    "SystemDarkThemeTurnOff": (
        "go back to the light theme",
        "I can't read anything outdoors with dark mode. Back to the normal light colours.",
    ),
    "SystemBatterySaverTurnOn": (
        "battery's dying, put it in saver mode",
        "Could you make my battery last till tonight? The battery saver thing, please.",
    ),
    "SystemDoNotDisturbTurnOn": (
        "going into a meeting, silence everything with do not disturb",
        "sleeping now, mute all notifications with dnd",
    ),
    "SystemBatteryPercentageTurnOn": (
        "show the % number next to the battery icon",
        "I want to see exactly how much battery I have, as a number up in the status bar.",
    ),
    "SystemAutoRotateTurnOff": (
        "stop the screen from rotating when i lie down",
        "Lock the screen orientation; the display keeps flipping sideways.",
    ),
    # Settings: the switch is already where the goal wants it
    "SystemWifiTurnOnVerify": (
        "wifi should be on — check, and only touch it if it's off",
        "Am I on wifi? Don't change anything if it's already enabled; otherwise enable it.",
    ),
    "SystemWifiTurnOffVerify": (
        "confirm wifi's off, leave it alone if so",
        "Is the wifi switched off? It needs to be.",
    ),
    "SystemBluetoothTurnOnVerify": (
        "bluetooth needs to be on for the watch, double check it",
        "Can you see if Bluetooth's on? If it isn't, switch it.",
    ),
    "SystemBluetoothTurnOffVerify": (
        "check bluetooth is off and leave it that way",
        "Quick question: is Bluetooth disabled? Make it so if it's not.",
    ),
    "SystemDarkThemeTurnOnVerify": (
        "phone should already be in dark mode, just confirm (switch it if not)",
        "Is the dark theme active? I want it that way.",
    ),
    "SystemAirplaneModeTurnOffVerify": (
        "make sure i'm not in airplane mode",
        "Flight mode has to be off so calls get through. Check it for me.",
    ),
    # Settings: pages further down
    "SystemDeveloperOptionsUnlock": (
        "unlock dev mode on this phone",
        "I need developer mode. Can you do the build-number trick?",
    ),
    "SystemUsbDebuggingTurnOn": (
        "my laptop can't see the phone over the cable. allow usb debugging",
        "dev options → usb debugging, switch it to on (adb)",
    ),
    "SystemStayAwakeTurnOn": (
        "don't let the screen sleep while it's charging",
        "Developer options has a 'stay awake' switch. Flip it so it's on.",
    ),
    "TurnOffWifiAndTurnOnBluetooth": (
        "drop the wifi connection and power up bluetooth",
        "Two settings: Bluetooth should be enabled, Wi-Fi disabled.",
    ),
    "SystemAndroidVersion": (
        "which android am i running? just the number",
        "Android version on this phone? Reply with only the version number.",
    ),
    "SystemBatteryLevel": (
        "what % is my battery on",
        "how much charge have i got left",
    ),
    "SystemDeviceModel": (
        "which pixel do i have? just the model name",
        "What phone is this exactly? Give me only its model name.",
    ),
    "TurnOnWifiAndOpenApp": (
        "connect to wifi and once that's done open {app:lower}",
        "I want to use the {app:lower} app but I'm offline. Connect the wifi first, then leave "
        "me in {app}.",
    ),
    "SystemPhoneNumber": (
        "what's my number",
        "I always forget my own phone number. Could you look it up on the phone?",
    ),
    "SystemBuildNumber": (
        "what android build is installed? i need the exact build string",
        "For the bug report: which build is this phone on? Copy it from about phone.",
    ),
    "OpenAppTaskEval": (
        "bring up {app:lower}",
        "Can you bring up {app} for me? It's somewhere in the list of every app.",
    ),
    # Clock: alarms
    "ClockAlarmAdd": (
        "alarm {time:compact}",
        "wake me at {hhmm} tomorrow",
        "I need to be up at {time:lower}. Can you set something to ring?",
    ),
    "ClockAlarmAddWithLabel": (
        "new alarm\ntime: {hhmm}\nlabel: {label}",
        "alarm at {time:lower} called {label}",
        "Could you add a {time:compact} alarm? Put '{label}' as its name.",
    ),
    "ClockAlarmTurnOff": (
        "{time:compact} alarm: switch off, don't delete it",
        "No need for the {hhmm} alarm tomorrow. Silence it but keep it saved.",
    ),
    "ClockAlarmTurnOn": (
        "switch the {time:lower} alarm back to active",
        "Can you re-enable the alarm for {hhmm}? It's switched off right now.",
    ),
    "ClockAlarmDelete": (
        "delete the {time:compact} alarm, leave the rest",
        "I don't need an alarm at {hhmm} anymore. Remove just that one.",
    ),
    "ClockAlarmTurnOffVerify": (
        "the {time:lower} alarm is off right? make sure",
        "Check the alarm at {hhmm}: it must stay disabled. Only switch it if it's on.",
    ),
    "ClockAlarmTime": (
        "when's the {label} alarm",
        "What time is the alarm named '{label}' set for?",
    ),
    "ClockAlarmChangeTime": (
        "move {time:compact} alarm → {new_time:compact}",
        "The alarm that goes off at {hhmm} should go off at {new_hhmm} from now on.",
    ),
    "ClockAlarmAddLabel": (
        "{time:lower} alarm needs a name → {label}",
        "Could you call the alarm at {hhmm} '{label}'?",
    ),
    "ClockAlarmLabel": (
        "what's the {time:compact} alarm for? (its label)",
        "Which name did I give the alarm at {hhmm}? Just the label.",
    ),
    "ClockAlarmCountEnabled": (
        "how many alarms are active",
        "Count up the alarms that will actually go off (the switched-on ones). Number only.",
    ),
    "ClockAlarmTurnOffAll": (
        "silence all alarms, don't delete them",
        "I'm on vacation. Every alarm off please, but keep them all in the list.",
    ),
    # Contacts
    "ContactsAddContact": (
        "new contact\nname: {name}\nphone: {phone}",
        "save {phone:dashed} as {name}",
        "{name}, {phone} ← add to google contacts",
    ),
    "ContactsEditPhone": (
        "{name} got a new number: {new_phone:dashed}. update it",
        "Please replace the phone number on {name}'s contact card with {new_phone}.",
    ),
    "ContactsPhoneNumber": (
        "got {name}'s digits saved? read them to me",
        "Calling {name} in a sec. What's the number I've got saved?",
    ),
    "ContactsOpenContact": (
        "pull up {name} in my address book",
        "Show {name}'s card in Google Contacts.",
    ),
    "ContactsEditLastName": (
        "{name} is now {first} {new_last} (new surname), fix the contact",
        "Update the contact: last name of {name} → {new_last}",
    ),
    "ContactsNumberOwner": (
        "who's {phone:dashed}? name only",
        "Someone called from {phone}. Which of my contacts is that? Just tell me the name.",
    ),
    # Messages
    "SimpleSmsSendToContact": (
        "msg {name} “{text}”",
        "Send this to {name} by SMS, word for word:\n{text}",
    ),
    "SimpleSmsReply": (
        "bob chen texted, answer him with: {text}",
        "Write back to Bob: “{text}”",
    ),
    "SimpleSmsSend": (
        "sms to {number:bare}\n{text}",
        "Please send “{text}” as a text message to {number:dashed} (not in my contacts).",
    ),
    "SimpleSmsReadMessage": (
        "what did alice say? give me her text exactly",
        "Read Alice Martin's latest message out to me, word for word, nothing else.",
    ),
    "SimpleSmsReplyMostRecent": (
        "reply to whoever messaged me last: {text}",
        "Someone just texted me. Answer that conversation with “{text}”.",
    ),
    "SimpleSmsResend": (
        "my last msg to {name} didn't go through, send it again",
        "Could you repeat to {name} exactly what I texted them most recently?",
    ),
    "SimpleSmsSendReceivedAddress": (
        "forward {sender}'s address to {recipient}",
        "{recipient} needs the address {sender} sent me. Text it over.",
    ),
    # Calendar
    "SimpleCalendarAddOneEvent": (
        "add “{title}” to today's calendar at {hhmm}",
        "event: {title}\nwhen: today, {time:lower}",
    ),
    "SimpleCalendarDeleteOneEvent": (
        "cancel “{title}” in the calendar app",
        "The “{title}” event isn't happening anymore. Please remove it from Google Calendar.",
    ),
    "SimpleCalendarEventTime": (
        "thursday's {title}: what time does it start",
        "When does “{title}” start the day after tomorrow?",
    ),
    "SimpleCalendarEventCount": (
        "how many things are on my calendar today",
        "Am I busy today? Give me the number of calendar events for today.",
    ),
    "SimpleCalendarEventsOnDate": (
        "what's on my calendar {date:relative}? titles only",
        "List the events I've got on {date:short}. Just their names, comma-separated.",
    ),
    "SimpleCalendarNextEvent": (
        "what's next on my calendar today? title only",
        "Which meeting do I have coming up next? Give me just its name.",
    ),
    "SimpleCalendarAnyEventsOnDate": (
        "anything on my calendar {date:relative}? yes/no",
        "Do I have plans on {date:ordinal}? Reply yes if there's at least one event, no if the "
        "day is empty.",
    ),
    "SimpleCalendarDeleteEventsOnDate": (
        "wipe my calendar for {date:relative}: every event that day goes, other days stay",
        "Remove all calendar entries on {date:day_month} (only that day).",
    ),
    # Across apps
    "ContactsAddContactAndSms": (
        "save {name} {phone} to contacts and text them: {text}",
        "contact to add\nname: {name}\nnumber: {phone}\nthen message them: {text}",
    ),
    "ClockAlarmFromSms": (
        "alice texted me what time to wake up, set an alarm for then",
        "Check Alice Martin's message for the wake-up time and create that alarm in the clock app.",
    ),
    "SimpleSmsSendContactNumber": (
        "bob chen asked for {name}'s digits. message them over",
        "Look up {name} in contacts and SMS the number to Bob Chen.",
    ),
    "TurnOnDarkThemeAndSetAlarm": (
        "dark mode + alarm at {time:compact}",
        "Two things: switch the phone's theme to dark, and have an alarm ring at {hhmm}.",
    ),
    "SimpleCalendarAddEventWithContactNumber": (
        "make a calendar event today at {time:compact} named Call plus Carmen López's phone number",
        "Today {hhmm}: a calendar entry whose title is the word Call and then Carmen López's "
        "number. Get the number from her contact.",
    ),
    "ContactsAddContactFromSms": (
        "{name}: number is in my chat with bob chen. add them to my contacts",
        "Copy the phone number Bob Chen messaged me into a new contact for {name}.",
    ),
    "SimpleSmsSendEventTime": (
        "let alice know by text what time {title} starts today",
        "Alice Martin wants to know when “{title}” is today. Look it up and message her the time.",
    ),
    # Markor
    "MarkorCreateNote": (
        "new markor note {file_name}:\n{text}",
        "file: {file_name}\ncontent: {text}\n(make it in markor)",
    ),
    "MarkorCreateFolder": (
        "markor → new folder {folder_name}",
        "I need a folder named {folder_name} in my notes app (Markor).",
    ),
    "MarkorEditNote": (
        "{file_name} in markor: {edit}",
        "Open my note {file_name} and {edit}, nothing else.",
    ),
    "MarkorDeleteNote": (
        "trash {file_name} in markor",
        "I don't need the note called {file_name} anymore; delete it, keep the others.",
    ),
    "MarkorDeleteAllNotes": (
        "wipe every note in markor",
        "Empty my Markor notebook: all notes should go.",
    ),
    "MarkorMoveNote": (
        "{file_name}: {source_folder} → {destination_folder} (markor)",
        "In my notes app, the note {file_name} is filed under {source_folder}. It belongs in "
        "the {destination_folder} folder.",
    ),
    "MarkorChangeNoteContent": (
        "markor: {file_name} → rename {new_name}, text becomes “{updated}”",
        "Rewrite {file_name} so it only says “{updated}”, then rename it to {new_name}.",
    ),
    "MarkorAddNoteHeader": (
        "top of {file_name}: add “{updated}” then an empty line; rename file to {new_name}",
        "In Markor, give {file_name} a first line “{updated}” followed by a blank line (keep the "
        "rest as is), and call the file {new_name} afterwards.",
    ),
    "MarkorReadNote": (
        "what's in {file_name}? exact text pls",
        "Read my Markor note {file_name} to me. Only the note's text in your answer.",
    ),
    # Files
    "FilesDeleteFile": (
        "delete {subfolder}/{file_name}",
        "There's a file {file_name} in the {subfolder} folder on internal storage. Take it off "
        "the phone.",
    ),
    "FilesMoveFile": (
        "mv {subfolder}/{file_name} {destination_folder}/",
        "Could you relocate {file_name}? It's in {subfolder} and should be in "
        "{destination_folder}. Use the file manager.",
    ),
    "FilesRenameFile": (
        "rename {file_name} ({subfolder} folder) → {new_name}",
        "In the files app, {subfolder} has {file_name}; its name should be {new_name}.",
    ),
    "FilesCreateFolder": (
        "new folder '{folder_name}' inside {subfolder}",
        "Make me a folder in {subfolder} called {folder_name}, with the file manager.",
    ),
    "FilesCountFilesInFolder": (
        "how many files in {subfolder}?",
        "Number of files sitting in the {subfolder} folder? Just the count.",
    ),
    # Pro Expense
    "ExpenseAddSingle": (
        "add expense\nname: {name}\namount: {amount_text}\ncategory: {category}\n"
        "date: {date:relative}\nnote: {note}",
        "I spent ${amount_text} on {name} {date:relative}. File it in pro expense under "
        "{category} with the note “{note}”.",
        "{name},{amount_text},{category},{date},{note}\n↑ log this in pro expense "
        "(name,amount,category,date,note)",
    ),
    "ExpenseAddMultiple": (
        "log these in pro expense (today's date):\n{rows:expense_blocks}",
        "name,amount,category,note\n{rows:expense_csv}\n(put each row in my expense tracker)",
    ),
    "ExpenseAddMultipleFromMarkor": (
        "look in markor's my_expenses.txt and add the reimbursable ones to pro expense",
        "Some lines in my_expenses.txt (Markor) are marked reimbursable. Those need to be entered "
        "as expenses.",
    ),
    "ExpenseDeleteSingle": (
        "{names} shouldn't be in my expenses, delete that entry",
        "pro expense: drop the entry {names}",
    ),
    "ExpenseDeleteMultiple": (
        "delete these from pro expense:\n{names:bullets}",
        "Remove {names:and} from my expense tracker; keep everything else.",
    ),
    "ExpenseDeleteDuplicates": (
        "one of my expenses got entered twice, delete the copy",
        "Clean up Pro Expense: there's a duplicated entry, and only one of it should stay.",
    ),
    "ExpenseFindAmount": (
        "{name}: what did that cost?",
        "What did the {name} expense cost me? Just the amount.",
    ),
    # Tasks
    "TasksAddTask": (
        "new to-do: {title}\ndue: {due_iso:relative}\npriority: {priority}",
        "add “{title}” to tasks.org, due {due_iso:day_month}, {priority} priority",
        "Can you put {title} on my to-do list? It's due {due_iso:after_next}, {priority} priority.",
    ),
    "TasksCompleteTask": (
        "done with {title}, tick it off",
        "Mark “{title}” as done in my to-do list.",
    ),
    "TasksDeleteTask": (
        "delete the to-do {title}",
        "“{title}” isn't happening, take it off my task list.",
    ),
    "TasksDueOnDate": (
        "what's due {due_iso:relative}? just titles, comma separated",
        "Which to-dos have a due date of {due_iso:day_month}? Titles only, separated by commas.",
    ),
    "TasksHighPriorityTasks": (
        "list my high-prio todos (titles only, commas between)",
        "Which of my tasks are marked high priority? Give me just their titles separated by "
        "commas.",
    ),
    "TasksHighPriorityTasksDueOnDate": (
        "high priority stuff due {due_iso:relative}? titles, comma separated",
        "Of the tasks due on {due_iso:ordinal}, which are high priority? Reply with the titles "
        "only, comma-separated.",
    ),
    "TasksCompletedTasksForDate": (
        "what did i already finish that was due {due_iso:relative}? titles only, commas",
        "Completed to-dos with due date {due_iso:day_month}: list their titles, separated by "
        "commas.",
    ),
    "TasksIncompleteTasksOnDate": (
        "what's still open and due by {due_iso:relative}? titles only, comma separated",
        "Which unfinished tasks are due on or before {due_iso:day_month}? Titles only, separated "
        "by commas.",
    ),
    "TasksDueNextWeek": (
        "how many todos are due next week (mon–sun)? number only",
        "Count the tasks due between Monday the 21st and Sunday the 27th. Give a single number.",
    ),
    # Broccoli
    "RecipeAddSingleRecipe": (
        "new recipe for broccoli\nname: {title}\nblurb: {description}\nserves: {servings}\n"
        "prep: {prep_time}\nwhat you need: {ingredients}\nsteps: {directions}",
        "Save my recipe {title} in the recipe app. Description “{description}”, {servings}, "
        "takes {prep_time}. Ingredients are {ingredients}. How to make it: {directions}",
    ),
    "RecipeAddMultipleRecipes": (
        "three recipes for broccoli:\n{rows:recipe_blocks}",
        "Put these in my recipe app (title — servings — description):\n{rows:recipe_lines}",
    ),
    "RecipeAddMultipleRecipesFromMarkor": (
        "copy the recipes in markor's recipes.txt into broccoli",
        "recipes.txt (in my notes app) has a few recipes. Add every one of them to the Broccoli "
        "recipe app.",
    ),
    "RecipeDeleteSingleRecipe": (
        "delete {titles} from my recipes",
        "I never cook “{titles}”. Take it out of Broccoli.",
    ),
    "RecipeDeleteMultipleRecipes": (
        "delete these recipes:\n{titles:bullets}",
        "Throw {titles:and} out of the recipe app; the others stay.",
    ),
    "RecipeDeleteDuplicateRecipes": (
        "one recipe shows up two times in broccoli. remove one copy",
        "Tidy up my recipe app so no recipe is listed more than once.",
    ),
    "RecipeServingsQuestion": (
        "how many people does {title} feed? number only",
        "“{title}” in broccoli makes how many servings?",
    ),
    # Clock: stopwatch and timer
    "ClockStopWatchRunning": (
        "stopwatch go",
        "I'm about to run a lap. Can you get the stopwatch counting?",
    ),
    "ClockStopWatchPausedVerify": (
        "stopwatch should be stopped, check it",
        "Is the stopwatch running? If so, pause it; if it's already paused leave it.",
    ),
    "ClockStopWatchPause": (
        "pause the stopwatch (it's at ~{shown})",
        "Hit pause on the stopwatch that's been going.",
    ),
    "ClockStopWatchReset": (
        "reset stopwatch to 0",
        "Zero out the stopwatch, it's stopped at {shown}.",
    ),
    "ClockStopWatchTime": (
        "what does the stopwatch say",
        "How much time is on the paused stopwatch? Answer as h:mm:ss or m:ss.",
    ),
    "ClockTimerEntry": (
        "set timer {digits:clock} but don't start it",
        "Put {hours}h {minutes}m {seconds}s on the timer. Don't press start.",
    ),
    "ClockTimerStart": (
        "start a countdown of {minutes} min {seconds} sec",
        "I'm baking. Start a {minutes} minute {seconds} second timer please.",
    ),
}


# ---------------------------------------------------------------------------------------------


# The edit a Markor note is given, in this file's words.
_NOTE_EDITS = {
    "header": "put “{line}” on a new line at the very top",
    "footer": "append “{line}” on its own line at the end",
    "replace": "swap its whole content for “{line}”",
}
EXTRA_PARAMETERS: ExtraParameters = {
    "MarkorEditNote": lambda p: {"edit": _NOTE_EDITS[p["edit_type"]].format(line=p["line"])},
}


def goal_lines(seeds: Sequence[int]) -> list[GoalLine]:
    """Every phrasing of every task, the i-th rendered with `seeds[i % len(seeds)]`."""
    return views.goal_lines(PHRASINGS, seeds, EXTRA_PARAMETERS)


def main() -> None:
    views.write_goals(goal_lines(TEST_SEEDS), OTHERS_WORDS_FILE)


if __name__ == "__main__":
    main()
