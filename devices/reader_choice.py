"""The names of the screen readers (`devices.screen_readers`), apart from the readers so that
a command line can offer the choice without loading them."""

from typing import Literal

ScreenReaderChoice = Literal["auto", "u2", "dump"]
SCREEN_READER_CHOICES: tuple[ScreenReaderChoice, ...] = ("auto", "u2", "dump")
