"""Benchmarks behind `phone-agent bench prompt|step`: what a screen costs the model, what a step
costs. The model server's own benchmarks live in `serving.bench`."""

from devices.errors import UsageError


class BenchInputError(UsageError, ValueError):
    """Bad input to a benchmark (no corpus, no tokenizer, an unknown task): exit code 2."""
