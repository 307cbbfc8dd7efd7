"""The exit-code contract between a package's errors and the CLI."""


class UsageError(Exception):
    """Bad input from the user: the CLI reports the message in one line and exits with 2.

    A package's own error for bad input subclasses it (with `ValueError` too where callers
    catch that), so the CLI needs to know no package's errors.
    """

    exit_code = 2
