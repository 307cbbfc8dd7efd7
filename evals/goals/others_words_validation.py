"""Goals in other people's words for the validation split: how people outside this project ask
a phone for things, written from scratch for every task of the simulator suite.

The test split has a set of its own (`evals.goals.others_words`), reported once per shipped
model. This set was written apart from it, so that every choice between training runs sees how
a model does on other people's words while the test's stay unseen; no goal of one says a goal
of the other (a test checks both ways). Nothing here comes from the tasks' phrasings
(`Task.templates`) or from the lexicon that rewords them for training (`evals.goal_rewording`)
either. The voices: terse lower-case commands with no full stop, texting shorthand, requests
with the reason for them ("I'm about to board, so ..."), blunt and polite ones, other word
orders, apps called what people call them ("my to-do list", "the recipe app", "my notes app"),
values as `key: value` rows, numbered or bulleted lists, times as "6:29am", "18:10" or
"6:29 p.m.", dates relative to the simulator's today (Tuesday, October 15 2024: "tomorrow",
"Friday", "last Sunday", "Wednesday next week", "Thursday the 17th"), and questions.

These goals are for the validation split only (`evals.splits`): they are never trained on, and
`evals.demos` refuses to export a demonstration whose goal says one of them.

Each phrasing is a format string over the task's parameters, rendered as the test set's are
(`evals.goals.views`): a field may name a view after a colon (`{time:compact}`,
`{date:relative}`), and a task may add parameters in this set's own words
(`EXTRA_PARAMETERS`). The i-th phrasing of a task is rendered with the i-th validation seed
(cycling), so each task's goals cover both seeds. `python -m evals.goals.others_words_validation`
writes `others_words_validation.jsonl`; a test checks that the file is what this module renders.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.goal_files import GoalLine
from evals.goals import views
from evals.goals.views import ExtraParameters
from evals.splits import VALIDATION_OTHERS_WORDS_FILE, VALIDATION_SEEDS

PHRASINGS: dict[str, tuple[str, ...]] = {
    # --- Settings: switches -----------------------------------------------------------------------
    "SystemWifiTurnOn": (
        "I'm burning through my data plan here, get the phone back onto wifi",
        "could you reconnect the wi-fi? the switch is somewhere under network & internet",
    ),
    "SystemWifiTurnOff": (
        "the router here is flaky, take the phone off wifi completely",
        "No more Wi-Fi today. Shut it off in settings.",
    ),
    "SystemBluetoothTurnOn": (
        "my earbuds won't pair, bluetooth needs to be on",
        "can u get bluetooth running so the car finds my phone",
    ),
    "SystemBluetoothTurnOff": (
        "shut bluetooth down, nothing is paired with it anyway",
        "I don't need Bluetooth right now; have it switched off, please.",
    ),
    "SystemAirplaneModeTurnOn": (
        "I'm about to board, so put the phone into airplane mode",
        "we're taxiing — flight mode please, quickly",
    ),
    "SystemAirplaneModeTurnOff": (
        "landed! take the phone out of airplane mode",
        "I'm off the plane, so the phone can leave flight mode now.",
    ),
    "SystemDarkThemeTurnOn": (
        "screen's way too bright at night, can you put the phone in dark mode",
        "Dark theme, please — white backgrounds hurt my eyes.",
    ),
    "SystemDarkThemeTurnOff": (
        "go back to the light look, dark mode is hard to read outside",
        "I'm done with dark theme. Normal light colours again, please.",
    ),
    "SystemBatterySaverTurnOn": (
        "I'm far from a charger and this phone has to last till tonight, get battery saver going",
        "power saving mode, now please, before it dies on me",
    ),
    "SystemDoNotDisturbTurnOn": (
        "exam in ten minutes and my phone can't make a sound, put it on do not disturb",
        "DND please. I don't want a single ping for a while.",
    ),
    "SystemBatteryPercentageTurnOn": (
        "I want the exact battery % up top next to the icon",
        "The battery icon in the status bar should have its percentage beside it. Can you do that?",
    ),
    "SystemAutoRotateTurnOff": (
        "stop the screen from flipping sideways every time I lie down",
        "Lock the orientation: auto-rotate needs to be off.",
    ),
    # --- Settings: already as asked ---------------------------------------------------------------
    "SystemWifiTurnOnVerify": (
        "is wifi on? if not, put it on",
        "Before I head out, double-check the phone is on Wi-Fi, and connect it if it isn't.",
    ),
    "SystemWifiTurnOffVerify": (
        "wifi has to stay off on this phone, just check it is",
        "Can you confirm Wi-Fi is switched off? If it isn't, switch it off.",
    ),
    "SystemBluetoothTurnOnVerify": (
        "bluetooth needs to be on for my watch, have a look pls",
        "Is Bluetooth enabled? Enable it if it isn't; otherwise leave it alone.",
    ),
    "SystemBluetoothTurnOffVerify": (
        "bluetooth has to stay off in the hospital, confirm that it is",
        "Is Bluetooth on right now? If so, switch it off.",
    ),
    "SystemDarkThemeTurnOnVerify": (
        "dark mode should already be on — have a look and sort it if not",
        "Is the phone in dark theme? That's how I want it.",
    ),
    "SystemAirplaneModeTurnOffVerify": (
        "am I still in airplane mode from the flight? I shouldn't be",
        "Is flight mode off? It needs to be, I'm expecting a call.",
    ),
    # --- Settings: below the fold, two at once, questions -----------------------------------------
    "SystemDeveloperOptionsUnlock": (
        "unlock the hidden developer menu in settings (the build number tapping trick)",
        "I'm testing an app of mine and need Developer options to show up in Settings.",
    ),
    "SystemUsbDebuggingTurnOn": (
        "adb can't see the phone — usb debugging needs enabling in developer options",
        "Allow debugging over USB so I can plug in my laptop and run adb.",
    ),
    "SystemStayAwakeTurnOn": (
        "while it charges the screen should never go to sleep, there's a switch for that in "
        "developer options",
        "Developer options → Stay awake: switch it on.",
    ),
    "TurnOffWifiAndTurnOnBluetooth": (
        "cut the wifi and get bluetooth going",
        "Two things in settings: Wi-Fi should end up off, Bluetooth should end up on.",
    ),
    "SystemAndroidVersion": (
        "which android version am I running?",
        "Quick question — what version of Android does this phone have?",
    ),
    "SystemBatteryLevel": (
        "how much juice is left, in %?",
        "What's the battery at? Give me the percentage.",
    ),
    "SystemDeviceModel": (
        "what phone is this exactly? the model name pls",
        "I'm filling out a repair form and need this phone's model. What is it?",
    ),
    "TurnOnWifiAndOpenApp": (
        "get wifi back on, and after that pull up {app}",
        "Reconnect to Wi-Fi; once that's done I want {app} open on the screen.",
    ),
    "SystemPhoneNumber": (
        "what's my own number? I never remember it",
        "Which phone number does this SIM have? It's shown in the phone's settings.",
    ),
    "SystemBuildNumber": (
        "which build is this phone on? support wants the long code from about phone",
        "I have to give the helpdesk my software build. Can you read me the code?",
    ),
    # --- Launcher ---------------------------------------------------------------------------------
    "OpenAppTaskEval": (
        "swipe up to the list of apps and start {app} from there",
        "I can't find {app} on my home screen. Open it from the app drawer, please.",
    ),
    # --- Clock: alarms ----------------------------------------------------------------------------
    "ClockAlarmAdd": (
        "need an alarm at {time:compact}",
        "Alarm for {hhmm} please, I have to leave right after.",
        "wake me up at {time:dotted}, I'll be napping",
    ),
    "ClockAlarmAddWithLabel": (
        "new alarm {hhmm}, name it “{label}”",
        "I need an alarm with a label. time: {time:compact}, label: {label}",
    ),
    "ClockAlarmTurnOff": (
        "the {time:compact} alarm can stay quiet, I'm working from home — switch it off but "
        "keep it",
        "My {hhmm} alarm shouldn't ring anymore. Don't delete it, just disable it.",
    ),
    "ClockAlarmTurnOn": (
        "bring back my {time:compact} alarm, it's been switched off",
        "The {hhmm} alarm is disabled and I need it to ring again.",
    ),
    "ClockAlarmDelete": (
        "bin the {time:compact} alarm, keep the rest",
        "I don't use the {hhmm} alarm anymore. Delete just that one, please.",
    ),
    "ClockAlarmTurnOffVerify": (
        "the {time:compact} alarm mustn't wake me, check it's disabled",
        "Is my {hhmm} alarm still active? It needs to be off.",
    ),
    "ClockAlarmTime": (
        "what time is the “{label}” alarm for?",
        "When does my alarm labelled “{label}” ring?",
    ),
    "ClockAlarmChangeTime": (
        "move my {time:compact} alarm to {new_time:compact}",
        "The alarm at {hhmm} needs to ring at {new_hhmm} from now on.",
        "shift the {time:dotted} alarm so it goes off at {new_time:dotted} instead",
    ),
    "ClockAlarmAddLabel": (
        "put the label “{label}” on my {time:compact} alarm",
        "My {hhmm} alarm has no name. Call it “{label}”.",
    ),
    "ClockAlarmLabel": (
        "what's the {time:compact} alarm called?",
        "Which name did I give the alarm at {hhmm}?",
    ),
    "ClockAlarmCountEnabled": (
        "how many alarms have I got set to ring?",
        "Count the alarms that are actually active and tell me the number.",
    ),
    "ClockAlarmTurnOffAll": (
        "I'm on holiday, silence every alarm I have (don't delete them)",
        "Switch off every single alarm on the phone but keep them in the list.",
    ),
    # --- Contacts ---------------------------------------------------------------------------------
    "ContactsAddContact": (
        "new contact\nname: {name}\nnumber: {phone}",
        "save this number as {name}: {phone:dashed}",
    ),
    "ContactsEditPhone": (
        "{name} got a new number, it's {new_phone} now — update the contact",
        "Put {new_phone:dashed} on {name}'s contact card in place of the old number.",
    ),
    "ContactsPhoneNumber": (
        "gimme {name}'s number, I need to call",
        "I need to call {name}. Which number do I have saved for them?",
    ),
    "ContactsOpenContact": (
        "open up {name} in contacts, I want to see their card",
        "Pull up the contact page for {name} — they're somewhere down the list.",
    ),
    "ContactsEditLastName": (
        "{name} changed surnames, make it {new_last} in contacts",
        "contact {name} → last name should read {new_last}",
    ),
    "ContactsNumberOwner": (
        "who's {phone}? check my contacts",
        "A number keeps calling me: {phone:dashed}. Whose is it, going by my contacts?",
    ),
    # --- Messages ---------------------------------------------------------------------------------
    "SimpleSmsSendToContact": (
        "msg {name} “{text}”",
        "Send {name} this exact message: “{text}”",
    ),
    "SimpleSmsReply": (
        "answer Bob Chen's message with “{text}”",
        "Bob Chen wrote to me. Write back “{text}”, nothing else.",
    ),
    "SimpleSmsSend": (
        "send “{text}” to {number:bare}",
        "There's no contact for this one, only the number {number:dashed}. Text them “{text}”",
    ),
    "SimpleSmsReadMessage": (
        "what did alice say in her text?",
        "Read me Alice Martin's message, word for word.",
    ),
    "SimpleSmsReplyMostRecent": (
        "answer whoever messaged me most recently: “{text}”",
        "The newest text in my inbox — send its sender “{text}”.",
    ),
    "SimpleSmsResend": (
        "my last text to {name} didn't go through, send the same thing again",
        "The message I sent {name} earlier never arrived. Send it again exactly as it was.",
    ),
    "SimpleSmsSendReceivedAddress": (
        "{sender} sent me an address, pass it on to {recipient} by text",
        "{recipient} needs the address {sender} texted me. Send it over to them.",
    ),
    # --- Calendar ---------------------------------------------------------------------------------
    "SimpleCalendarAddOneEvent": (
        "new event\ntitle: {title}\nwhen: today {hhmm}",
        "Put “{title}” in my calendar for tonight at {time:compact}.",
    ),
    "SimpleCalendarDeleteOneEvent": (
        "{title} is cancelled, take it off my calendar",
        "The “{title}” event isn't happening. Remove it from the calendar app.",
    ),
    "SimpleCalendarEventTime": (
        "{title} on thursday — when does it start?",
        "When does “{title}” begin on the 17th?",
    ),
    "SimpleCalendarEventCount": (
        "busy day? tell me how many appointments I've got today",
        "Count today's events in the calendar and tell me the number.",
    ),
    "SimpleCalendarEventsOnDate": (
        "what's on my calendar {date:relative}? just the event names",
        "List the titles of my events on {date:day_month}.",
    ),
    "SimpleCalendarNextEvent": (
        "whats my next appointment today called",
        "Which event comes up next today? Only its title.",
    ),
    "SimpleCalendarAnyEventsOnDate": (
        "anything in my calendar {date:relative}? yes or no",
        "Am I booked at all on {date:weekday_ordinal}? Answer yes or no.",
    ),
    "SimpleCalendarDeleteEventsOnDate": (
        "clear my whole calendar for {date:relative}, leave other days alone",
        "Everything on {date:short} is called off — delete all of those events.",
    ),
    # --- Across apps ------------------------------------------------------------------------------
    "ContactsAddContactAndSms": (
        "save {name} ({phone:dashed}) as a contact and send them “{text}”",
        "New person to add: {name}, number {phone}. After saving, text them “{text}”.",
    ),
    "ClockAlarmFromSms": (
        "alice texted me a time to wake up — set an alarm for it",
        "Check Alice Martin's message for the time she wants and make an alarm at that time.",
    ),
    "SimpleSmsSendContactNumber": (
        "send Bob Chen {name}'s number from my contacts",
        "Bob Chen asked for {name}'s phone number — look it up and text it to him.",
    ),
    "TurnOnDarkThemeAndSetAlarm": (
        "two things: dark mode, and an alarm for {time:compact}",
        "I want the dark look on the phone and an alarm ringing at {hhmm}.",
    ),
    "SimpleCalendarAddEventWithContactNumber": (
        "today {time:compact}: new event titled Call followed by Carmen López's phone number "
        "(it's in contacts)",
        "I have to ring Carmen López at {hhmm} today. Add an event then whose title is “Call” "
        "and then her number from my contacts.",
    ),
    "ContactsAddContactFromSms": (
        "Bob Chen sent me {name}'s number, add them to contacts",
        "Make a new contact called {name}, using the number Bob Chen texted me.",
    ),
    "SimpleSmsSendEventTime": (
        "tell alice martin by text when {title} starts today",
        "Alice Martin wants to know when “{title}” starts today; text her the time.",
    ),
    # --- Markor -----------------------------------------------------------------------------------
    "MarkorCreateNote": (
        "new note in markor called {file_name}, it should say: {text}",
        "In my notes app, create {file_name} with this inside:\n{text}",
    ),
    "MarkorCreateFolder": (
        "markor: new folder {folder_name}",
        "I'd like a folder called {folder_name} among my Markor notes.",
    ),
    "MarkorEditNote": (
        "open {file_name} in markor and {edit}",
        "My note {file_name} (Markor) needs one change: {edit}.",
    ),
    "MarkorDeleteNote": (
        "trash {file_name} in markor, I'm done with it",
        "The Markor note {file_name} can go. Please delete it.",
    ),
    "MarkorDeleteAllNotes": (
        "my markor notebook is a mess, delete all of it, every single note",
        "I don't need any of my Markor notes anymore — delete the lot.",
    ),
    "MarkorMoveNote": (
        "markor: {file_name} belongs in {destination_folder}, not {source_folder} — move it",
        "note: {file_name}\nfrom: {source_folder}\nto: {destination_folder}\n(move it in Markor)",
    ),
    "MarkorChangeNoteContent": (
        "in markor, rename {file_name} to {new_name} and make its text “{updated}”",
        "Note {file_name}: replace what it says with “{updated}”, then rename it {new_name}.",
    ),
    "MarkorAddNoteHeader": (
        "markor note {file_name}: put “{updated}” at the top with an empty line under it, then "
        "rename the note to {new_name}",
        "Above the current text of {file_name} in Markor, add the heading “{updated}” and one "
        "blank line; the note's new name is {new_name}.",
    ),
    "MarkorReadNote": (
        "what's in my markor note {file_name}?",
        "Open {file_name} in Markor and tell me exactly what it says.",
    ),
    # --- Files ------------------------------------------------------------------------------------
    "FilesDeleteFile": (
        "in the file manager, go to {subfolder} and delete {file_name}",
        "{subfolder}/{file_name} — don't need it, remove it from the phone.",
    ),
    "FilesMoveFile": (
        "{file_name} is sitting in {subfolder} but belongs in {destination_folder}, move it pls",
        "file manager: take {subfolder}/{file_name} and put it into the {destination_folder} "
        "folder",
    ),
    "FilesRenameFile": (
        "rename {subfolder}/{file_name} → {new_name}",
        "In {subfolder} there's a file {file_name}; give it the new name {new_name}.",
    ),
    "FilesCreateFolder": (
        "new folder in {subfolder} called “{folder_name}”",
        "Make me a folder “{folder_name}” under {subfolder} on the phone's storage.",
    ),
    "FilesCountFilesInFolder": (
        "how many files are there in {subfolder}?",
        "Count the files in the {subfolder} folder for me — just the number.",
    ),
    # --- Pro Expense ------------------------------------------------------------------------------
    "ExpenseAddSingle": (
        "log an expense: {name}, ${amount_text}, {category}, {date:relative}, note “{note}”",
        "expense entry\nname: {name}\namount: ${amount_text}\ncategory: {category}\n"
        "date: {date:short}\nnote: {note}",
        "I spent ${amount_text} on {name} {date:relative} — put it in my expenses under "
        "{category}, with “{note}” as the note.",
    ),
    "ExpenseAddMultiple": (
        "add these to my expenses (all from today):\n{rows:expense_sentences}",
        "Three expenses for Pro Expense, please:\n{rows:expense_bullets}",
    ),
    "ExpenseAddMultipleFromMarkor": (
        "my_expenses.txt in markor lists some transactions — put the reimbursable ones into pro "
        "expense",
        "Only the reimbursable lines of my note my_expenses.txt need to go into my expense "
        "tracker. Add those.",
    ),
    "ExpenseDeleteSingle": (
        "{names} shouldn't be in my expenses, take it out",
        "Remove the expense entry “{names}” from Pro Expense and nothing else.",
    ),
    "ExpenseDeleteMultiple": (
        "delete these expenses:\n{names:bullets}",
        "Take {names:and} out of Pro Expense; every other expense stays.",
    ),
    "ExpenseDeleteDuplicates": (
        "one of my expenses got entered twice, delete the extra copy",
        "There's a duplicate in Pro Expense. Keep one of each and remove the repeat.",
    ),
    "ExpenseFindAmount": (
        "how much was {name}? check pro expense",
        "What did {name} cost me, according to my expenses app?",
    ),
    # --- Tasks ------------------------------------------------------------------------------------
    "TasksAddTask": (
        "new to-do: {title}, due {due_iso:day_month}, {priority} priority",
        "Add a task for {due_iso:relative}: “{title}”. Mark it {priority} priority.",
        "to-do list, new item\ntitle: {title}\ndue: {due_iso}\npriority: {priority}",
    ),
    "TasksCompleteTask": (
        "tick off {title} in my to-do list",
        "I finished “{title}”. Mark it done in Tasks.",
    ),
    "TasksDeleteTask": (
        "{title} isn't happening anymore, delete it from my to-dos",
        "Scratch “{title}” off my task list for good — delete it, don't just complete it.",
    ),
    "TasksDueOnDate": (
        "what's due {due_iso:after_next}? titles only, comma separated",
        "Which of my to-dos are due on {due_iso:relative}? List their titles.",
    ),
    "TasksHighPriorityTasks": (
        "which to-dos are marked high priority? titles please",
        "List every task with high priority in my to-do app, separated by commas.",
    ),
    "TasksHighPriorityTasksDueOnDate": (
        "high-priority tasks due {due_iso:relative}? just the titles",
        "Which tasks due on {due_iso:weekday_ordinal} are high priority? Titles, comma-separated.",
    ),
    "TasksCompletedTasksForDate": (
        "what did I finish that was due {due_iso:relative}? titles only",
        "Which tasks due {due_iso:ordinal} are already ticked off? Give me their titles.",
    ),
    "TasksIncompleteTasksOnDate": (
        "to-dos due by {due_iso:relative} that I haven't done yet — titles, comma separated",
        "Which of my tasks for {due_iso:weekday_ordinal} are still not done? Titles only.",
    ),
    "TasksDueNextWeek": (
        "how many to-dos are due next week (mon–sun)? a number please",
        "Count the tasks due between next Monday and next Sunday. Just the number.",
    ),
    # --- Broccoli ---------------------------------------------------------------------------------
    "RecipeAddSingleRecipe": (
        "new recipe in broccoli\ntitle: {title}\ndescription: {description}\n"
        "servings: {servings}\ntime: {prep_time}\ningredients: {ingredients}\n"
        "directions: {directions}",
        "Recipe app, please: {title} ({servings}, {prep_time}). Description: {description} "
        "Ingredients: {ingredients}. Steps: {directions}",
    ),
    "RecipeAddMultipleRecipes": (
        "put these three recipes into broccoli:\n{rows:recipe_numbered}",
        "Recipes to save in the recipe app:\n\n{rows:recipe_blocks}",
    ),
    "RecipeAddMultipleRecipesFromMarkor": (
        "copy every recipe in markor's recipes.txt over to broccoli",
        "There's a list of recipes in recipes.txt (Markor). Add all of them to my recipe app.",
    ),
    "RecipeDeleteSingleRecipe": (
        "{titles} — delete that recipe from broccoli",
        "I'm never cooking “{titles}” again, remove it from my recipes.",
    ),
    "RecipeDeleteMultipleRecipes": (
        "broccoli cleanup, these recipes go:\n{titles:bullets}",
        "Get {titles:and} out of my recipe app and keep the rest.",
    ),
    "RecipeDeleteDuplicateRecipes": (
        "one recipe shows up twice in broccoli, delete the copy",
        "Clean up my recipe app: a recipe was saved twice, and I only want it once.",
    ),
    "RecipeServingsQuestion": (
        "how many people does {title} feed? it's in broccoli",
        "Servings for “{title}” in my recipe app?",
    ),
    # --- Clock: stopwatch and timer ---------------------------------------------------------------
    "ClockStopWatchRunning": (
        "I'm timing my run, get the stopwatch counting",
        "Can you start timing with the stopwatch in the clock app?",
    ),
    "ClockStopWatchPausedVerify": (
        "the stopwatch shouldn't be counting, halt it if it is",
        "Is the stopwatch running? If so, pause it; if not, leave it be.",
    ),
    "ClockStopWatchPause": (
        "hold the stopwatch where it is, I'm taking a break",
        "The stopwatch is still going at {shown} or so. Pause it there.",
    ),
    "ClockStopWatchReset": (
        "zero the stopwatch (it's stopped at {shown})",
        "Wipe the stopwatch back to nothing, laps included.",
    ),
    "ClockStopWatchTime": (
        "read me the time on the stopwatch (I paused it a while ago)",
        "How much time is on the paused stopwatch right now?",
    ),
    "ClockTimerEntry": (
        "set the timer to {hours}h {minutes}m {seconds}s but don't start it",
        "Timer: {digits:clock}. Just key it in, I'll press start myself.",
    ),
    "ClockTimerStart": (
        "countdown of {minutes} min {seconds} sec, start it now",
        "I need a {digits:clock} countdown running on the timer.",
    ),
}

# The edit a Markor note is given, in this set's words.
_NOTE_EDITS = {
    "header": "make “{line}” the first line, above what's there now",
    "footer": "tack “{line}” onto the bottom, under what's there now",
    "replace": "replace its current text entirely with “{line}”",
}
EXTRA_PARAMETERS: ExtraParameters = {
    "MarkorEditNote": lambda p: {"edit": _NOTE_EDITS[p["edit_type"]].format(line=p["line"])},
}


def goal_lines(seeds: Sequence[int]) -> list[GoalLine]:
    """Every phrasing of every task, the i-th rendered with `seeds[i % len(seeds)]`."""
    return views.goal_lines(PHRASINGS, seeds, EXTRA_PARAMETERS)


def main() -> None:
    views.write_goals(goal_lines(VALIDATION_SEEDS), VALIDATION_OTHERS_WORDS_FILE)


if __name__ == "__main__":
    main()
