"""Input a command cannot use, found wherever the command's work happens to look at it.

It lives in `devices`, which imports nothing of ours, so that the agent library, the simulator
and evals, which all may import `devices`, share it with the CLI. `serving` may not import it and
has its own base, `serving.errors.ServingUsageError`.
"""


class UsageError(Exception):
    """Input a command cannot use: reported in one line, exit 2.

    A package's own error for bad input subclasses it (with `ValueError` too where callers
    catch that), so the CLI needs to know no package's errors.
    """
