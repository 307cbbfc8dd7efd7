"""`app_process`: how a phone runs a Java program from a jar without installing an app.

`CLASSPATH=JAR app_process DIR CLASS [ARGS]` runs CLASS from JAR in the foreground until the
program ends or its `adb shell` connection goes away. The one program a served phone can run is
the UI automation server uiautomator2 ships, recognised by the jar's checksum
(`uiautomator_server.U2_JAR_VERSIONS`): any other jar, or another version of it, fails the way a
phone fails to find a class, naming the checksum, so a client built for a server this
simulation does not know gets a clear error at once.
"""

from __future__ import annotations

import hashlib
import threading

from simulator.adbd.files import MemoryFiles
from simulator.adbd.phone import ServedPhone
from simulator.adbd.ports import DevicePorts
from simulator.adbd.screen import UI_AUTOMATION_TAKEN
from simulator.adbd.sh import CommandFunction, Invocation
from simulator.adbd.uiautomator_server import (
    U2_DEFAULT_PORT,
    U2_JAR_VERSIONS,
    U2_MAIN_CLASS,
    UiAutomationOptions,
    UiAutomatorServer,
)

HANGUP_POLL_S = 0.1  # how often a running server looks for its client having gone
_SIGHUP_STATUS = 129  # what sh reports for a program its hangup killed


class AppProcess:
    """The `app_process` command, and the server it may be running (one per phone: Android
    lets one UiAutomation connection at a time register)."""

    def __init__(
        self,
        phone: ServedPhone,
        files: MemoryFiles,
        ports: DevicePorts,
        phone_lock: threading.Lock,
        options: UiAutomationOptions,
    ) -> None:
        self._phone = phone
        self._files = files
        self._ports = ports
        self._phone_lock = phone_lock
        self._options = options
        self.running: UiAutomatorServer | None = None

    def commands(self) -> dict[str, CommandFunction]:
        return {"app_process": self._app_process}

    def _app_process(self, invocation: Invocation) -> int:
        words = invocation.argv[1:]
        while words and words[0].startswith("-"):  # options for the virtual machine
            words = words[1:]
        words = words[1:]  # the command's directory
        while words and words[0].startswith("--"):  # options for the runtime (--nice-name=...)
            words = words[1:]
        if not words:
            invocation.err("Error: no class name or --zygote supplied.\n")
            return 1
        class_name, arguments = words[0], words[1:]
        jar = invocation.environment.get("CLASSPATH", "").split(":")[0]
        problem = self._unrunnable(jar, class_name)
        if problem:
            invocation.err(
                f'Exception in thread "main" java.lang.ClassNotFoundException: {class_name} '
                f"({problem})\n"
            )
            return 1
        port = _port_option(arguments, invocation)
        if port is None:
            return 1
        return self._serve(port, invocation)

    def _unrunnable(self, jar: str, class_name: str) -> str:
        """Why CLASS cannot run from JAR on this phone; empty when it can."""
        if not jar:
            return "CLASSPATH is not set"
        try:
            data = self._files.read(jar)
        except OSError as exc:
            return f"{jar}: {exc.strerror}"
        digest = hashlib.md5(data, usedforsecurity=False).hexdigest()
        known = ", ".join(
            f"u2.jar {version} (md5 {md5})" for md5, version in U2_JAR_VERSIONS.items()
        )
        if digest not in U2_JAR_VERSIONS:
            return f"{jar} has md5 {digest}; this simulated phone runs only {known}"
        if class_name != U2_MAIN_CLASS:
            return f"{jar} is u2.jar {U2_JAR_VERSIONS[digest]}, whose main class is {U2_MAIN_CLASS}"
        return ""

    def _serve(self, port: int, invocation: Invocation) -> int:
        if self.running is not None:
            invocation.err(f"{UI_AUTOMATION_TAKEN}\n")
            return 1
        server = UiAutomatorServer(self._phone, self._phone_lock, self._options)
        try:
            self._ports.listen(port, server.serve)
        except OSError:
            invocation.err(f"java.net.BindException: bind failed: EADDRINUSE (port {port})\n")
            return 1
        self.running = server
        invocation.out(
            "[server] INFO: [UiAutomator2Server] Starting Server\n"
            f"[server] INFO: http server listening on *:{port}\n"
        )
        # The phone stays usable while the server runs: other commands need its lock.
        self._phone_lock.release()
        try:
            hung_up = _run_until_stopped(server, invocation)
        finally:
            self._phone_lock.acquire()
            self._ports.close(port)
            self.running = None
        return _SIGHUP_STATUS if hung_up else 0


def _run_until_stopped(server: UiAutomatorServer, invocation: Invocation) -> bool:
    """Wait until the server is stopped (False) or its client hangs up (True)."""
    caller = invocation.caller
    if caller is None:
        return True  # nobody holds the program's terminal: it is gone at once
    while not server.stopped.is_set():
        if caller.wait_for_hangup(HANGUP_POLL_S):
            return True
    return False


def _port_option(arguments: list[str], invocation: Invocation) -> int | None:
    """The `-p PORT` / `--port PORT` option's port (9008 without one); None after an error."""
    value = str(U2_DEFAULT_PORT)
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument in ("-p", "--port") and index + 1 < len(arguments):
            value, index = arguments[index + 1], index + 2
        elif argument.startswith("--port="):
            value, index = argument.partition("=")[2], index + 1
        else:
            invocation.err(f"Unrecognized option: {argument}\n")
            return None
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        invocation.err(f"Invalid port: {value}. Must be between 1 and 65535.\n")
        return None
    return int(value)
