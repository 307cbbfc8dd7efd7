"""Benchmarks behind `phone-agent bench`: what a screen costs the model, what a step costs."""


class BenchInputError(ValueError):
    """Bad input to a benchmark (no corpus, no tokenizer, an unknown task): exit code 2."""

    exit_code = 2
