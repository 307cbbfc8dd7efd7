"""Benchmarks of the model server alone, behind `phone-agent bench serving|kernels`: weight
builds served side by side (with the llama.cpp peer) and the W4A16 kernels on one token's
matrices. What a step of the agent costs is measured in `evals.bench`."""


def parse_counts(text: str) -> list[int]:
    """A comma-separated list of positive counts (streams, rows), ascending, without repeats."""
    try:
        counts = {int(part) for part in text.split(",")}
    except ValueError:
        raise ValueError(f"{text!r} is not a comma-separated list of integers") from None
    if min(counts) < 1:
        raise ValueError("counts must be at least 1")
    return sorted(counts)
