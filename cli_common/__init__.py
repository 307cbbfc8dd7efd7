"""What every package's commands share with `phone-agent`: the error that means bad input, and
argparse types for the values a command takes.

It imports nothing of ours, so every package may import it, `serving` and `devices` included
(see docs/ARCHITECTURE.md).
"""
