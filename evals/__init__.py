"""Evals: suites of tasks run with policies, results, reports, benchmarks, AndroidWorld."""
