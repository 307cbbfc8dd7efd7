"""Command-line subcommands of the agent side; each module registers its own parsers."""
