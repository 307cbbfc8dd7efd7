"""The simulated phone's side of `adb shell`: one session per served phone, with its files and
the command table a command line runs against.

Every command answers in the words a real phone uses (`UI hierchary dumped to: ...`,
`mCurrentFocus=Window{...}`, `Physical size: 1080x2400`, ...) so the code that drives a real
phone through ADB is exercised unchanged. The shell's own commands live in `builtins`; each
Android service in its own module (`activity`, `packages`, `ime`, `input`, `window`,
`settings`, `screen`, and `app_process` with the UI automation server it runs, which listens on
one of the phone's `ports`). The phone behind them is anything with the Device protocol plus the
few hooks of `ServedPhone`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from devices import DeviceError
from simulator.adbd.activity import ActivityManager
from simulator.adbd.app_process import AppProcess
from simulator.adbd.builtins import ShellBuiltins
from simulator.adbd.files import MemoryFiles
from simulator.adbd.ime import InputMethods
from simulator.adbd.input import FocusedField, InputCommand
from simulator.adbd.memory import ByteBudget
from simulator.adbd.packages import PackageManager
from simulator.adbd.phone import ServedPhone
from simulator.adbd.ports import DevicePorts
from simulator.adbd.screen import DumpFault, ScreenCapture
from simulator.adbd.settings import SystemSettings
from simulator.adbd.sh import MAX_COMMAND_BYTES, Caller, CommandFunction, Invocation, Shell
from simulator.adbd.uiautomator_server import UiAutomationOptions
from simulator.adbd.window import WindowManager


class PhoneSession:
    """One served phone: its files, input methods and command table; one command line at a time."""

    def __init__(
        self,
        device: ServedPhone,
        dump_faults: Iterable[DumpFault] = (),
        ui_automation: UiAutomationOptions | None = None,
    ) -> None:
        options = ui_automation or UiAutomationOptions()
        self.device = device
        self.files = MemoryFiles()
        self.lock = threading.Lock()
        self.ports = DevicePorts()
        self.app_process = AppProcess(device, self.files, self.ports, self.lock, options)
        self._screen = ScreenCapture(
            device, self.files, dump_faults, lambda: self.app_process.running is not None
        )
        field = FocusedField(device)
        input_methods = InputMethods(device)
        self.commands: dict[str, CommandFunction] = {
            **ShellBuiltins(self.files, self.lock, self._new_shell).commands(),
            **ActivityManager(device, field, input_methods).commands(),
            **PackageManager(device).commands(),
            **input_methods.commands(),
            **InputCommand(device, field).commands(),
            **WindowManager(device).commands(),
            **SystemSettings(device, input_methods, options.sdk_level).commands(),
            **self._screen.commands(),
            **self.app_process.commands(),
        }

    @property
    def serial(self) -> str:
        return self.device.serial

    def inject_dump_faults(self, faults: Iterable[DumpFault]) -> None:
        """The next dumps fail in these ways, one fault per dump, in order."""
        with self.lock:
            self._screen.inject_dump_faults(faults)

    def run(
        self,
        command_line: str,
        merge_output: bool = False,
        budget: ByteBudget | None = None,
        caller: Caller | None = None,
    ) -> tuple[bytes, bytes, int]:
        """Run one `adb shell` command line; (stdout, stderr, exit status).

        The command line holds at most what `budget` allows (MAX_COMMAND_BYTES by default). A
        program that runs until stopped (a server) runs until `caller` hangs up; without a
        caller it stops at once.
        """
        with self.lock:
            return self._new_shell(budget or ByteBudget(MAX_COMMAND_BYTES), caller).run(
                command_line, merge_output
            )

    def _new_shell(self, budget: ByteBudget, caller: Caller | None = None) -> Shell:
        environment = {"HOME": "/", "PATH": "/system/bin"}
        return Shell(self._guarded_commands(), self.files, environment, budget, caller)

    def _guarded_commands(self) -> dict[str, CommandFunction]:
        def guard(function: CommandFunction) -> CommandFunction:
            def run(invocation: Invocation) -> int:
                try:
                    return function(invocation)
                except DeviceError as exc:
                    invocation.err(f"Error: {exc}\n")
                    return 1

            return run

        return {name: guard(function) for name, function in self.commands.items()}
