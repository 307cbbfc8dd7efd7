"""Input the model server's commands cannot use.

`serving` imports nothing of ours, so its errors for bad input share this base instead of
`devices.errors.UsageError`; the CLI treats both alike.
"""


class ServingUsageError(Exception):
    """Input serving cannot use (a model that is not there, a checkpoint or demonstrations it
    cannot read): reported in one line, exit 2."""
