"""Benchmarks behind `phone-agent bench`: what a screen costs the model, what a step costs."""

from cli_common.errors import UsageError


class BenchInputError(UsageError, ValueError):
    """Bad input to a benchmark (no corpus, no tokenizer, an unknown task): exit code 2."""


def parse_counts(text: str) -> list[int]:
    """A comma-separated list of positive counts (streams, rows), ascending, without repeats."""
    try:
        counts = {int(part) for part in text.split(",")}
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of integers") from None
    if min(counts) < 1:
        raise ValueError("counts must be at least 1")
    return sorted(counts)
