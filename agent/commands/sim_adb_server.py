"""`phone-agent sim adb-server`: serve simulated phones over the ADB host protocol."""

from __future__ import annotations

import argparse
import errno
import sys

from agent.commands.command_groups import command_group
from devices.errors import UsageError

DEFAULT_PORT = 5037  # where adb clients look first; pass --port when a real ADB server runs


class ServerOptionError(UsageError, ValueError):
    """A bad option for the server: one line on stderr, exit status 2."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_group(subparsers, "sim").add_parser(
        "adb-server",
        help="serve simulated phones on the ADB host protocol (for adb, adbutils, --device adb)",
        description=(
            "Serve one simulated phone per --serial on HOST:PORT as an ADB server would: "
            "`adb -P PORT devices`, `adb -P PORT shell ...`, and "
            "`phone-agent run --device adb --adb-port PORT` all work against it."
        ),
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="TCP port (default 5037)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--serial",
        action="append",
        help="serial of a served phone; repeat to serve several (default emulator-5554)",
    )
    parser.add_argument(
        "--sim-state",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="initial simulator state, e.g. wifi=off (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated phones")
    parser.add_argument(
        "--no-adb-keyboard",
        action="store_true",
        help="serve phones without the ADB Keyboard input method (non-ASCII text then fails)",
    )
    parser.add_argument(
        "--dump-fault",
        action="append",
        default=[],
        metavar="KIND",
        help="make the next `uiautomator dump` fail this way, in order (repeatable): "
        "idle-state, null-root, empty, truncated, no-file",
    )
    parser.add_argument(
        "--sdk-level",
        type=int,
        default=34,
        metavar="N",
        help="Android API level the phones report (34); from 34 the uiautomator2 server can "
        "clear its accessibility cache",
    )
    parser.add_argument(
        "--stale-reads",
        type=int,
        default=0,
        metavar="N",
        help="reads of the uiautomator2 server's hierarchy that still show the screen from "
        "before a change, as a lagging accessibility cache does, unless it is cleared (0)",
    )
    parser.set_defaults(handler=run_adb_server)


def run_adb_server(args: argparse.Namespace) -> int:
    from simulator import Simulator, parse_state_assignments
    from simulator.adbd import AdbServer, DumpFault, UiAutomationOptions

    serials = args.serial or ["emulator-5554"]
    if len(set(serials)) != len(serials):
        raise ServerOptionError("each --serial must be different")
    if not 0 <= args.port <= 65535:
        raise ServerOptionError(f"--port must be 0-65535, got {args.port}")
    try:
        faults = [DumpFault(kind) for kind in args.dump_fault]
    except ValueError as exc:
        kinds = ", ".join(fault.value for fault in DumpFault)
        raise ServerOptionError(f"--dump-fault: {exc}; choose from {kinds}") from None
    if not 1 <= args.sdk_level <= 99:
        raise ServerOptionError(f"--sdk-level must be 1-99, got {args.sdk_level}")
    if args.stale_reads < 0:
        raise ServerOptionError(f"--stale-reads must be 0 or more, got {args.stale_reads}")
    state = parse_state_assignments(args.sim_state)
    phones = [
        Simulator(state=state, seed=args.seed, serial=serial, adb_keyboard=not args.no_adb_keyboard)
        for serial in serials
    ]
    try:
        server = AdbServer(
            phones,
            args.host,
            args.port,
            dump_faults={serials[0]: faults},
            ui_automation=UiAutomationOptions(args.sdk_level, args.stale_reads),
        )
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise ServerOptionError(
                f"port {args.port} is in use (a real ADB server?): choose another with --port"
            ) from None
        raise
    host, port = server.address
    print(f"serving {', '.join(serials)} on {host}:{port} (Ctrl-C stops)", file=sys.stderr)
    sys.stderr.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
