"""The subcommands of `phone-agent`, every package's: each module declares its parsers and
their handlers, which call the library of the package that does the work. The argparse types
and the command groups are shared here too."""
