"""The training voices of each app (`evals.goals.training_voices`), one JSON file an app."""
