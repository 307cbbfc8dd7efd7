"""The agent: screen model, tools, tolerant tool-call parsing, guards, the step loop, the CLI."""
