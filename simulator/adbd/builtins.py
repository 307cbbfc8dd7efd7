"""The shell's own commands on a served phone, as Android's toybox answers them: `cat`, `echo`,
`ls`, `md5sum`, `mkdir`, `rm`, `sh -c`, `sleep`, `true` and `false`, each also as `toybox NAME`."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable

from simulator.adbd.files import MemoryFiles
from simulator.adbd.memory import ByteBudget
from simulator.adbd.sh import Caller, CommandFunction, Invocation, Shell

MAX_SLEEP_S = 5.0  # one `sleep`; a served phone never hangs a client for long


class ShellBuiltins:
    """The commands that work on files and the shell itself, not on Android's services."""

    def __init__(
        self,
        files: MemoryFiles,
        phone_lock: threading.Lock,
        new_shell: Callable[[ByteBudget, Caller | None], Shell],
    ) -> None:
        self._files = files
        self._phone_lock = phone_lock
        self._new_shell = new_shell

    def commands(self) -> dict[str, CommandFunction]:
        return {**self._applets(), "sh": self._sh, "toybox": self._toybox}

    def _applets(self) -> dict[str, CommandFunction]:
        """The commands toybox itself provides (`toybox NAME` runs them too)."""
        return {
            "cat": self._cat,
            "echo": self._echo,
            "false": lambda invocation: 1,
            "ls": self._ls,
            "md5sum": self._md5sum,
            "mkdir": self._mkdir,
            "rm": self._rm,
            "sleep": self._sleep,
            "true": lambda invocation: 0,
        }

    def _toybox(self, invocation: Invocation) -> int:
        applets = self._applets()
        if len(invocation.argv) < 2:
            invocation.out(" ".join(sorted(applets)) + "\n")
            return 0
        applet = applets.get(invocation.argv[1])
        if applet is None:
            invocation.err(f"toybox: Unknown command {invocation.argv[1]}\n")
            return 1
        invocation.argv = invocation.argv[1:]
        return applet(invocation)

    def _md5sum(self, invocation: Invocation) -> int:
        paths = [arg for arg in invocation.argv[1:] if not arg.startswith("-")]
        if not paths:
            invocation.out(
                f"{hashlib.md5(invocation.stdin, usedforsecurity=False).hexdigest()}  -\n"
            )
            return 0
        status = 0
        for path in paths:
            try:
                digest = hashlib.md5(self._files.read(path), usedforsecurity=False).hexdigest()
            except OSError as exc:
                invocation.err(f"md5sum: {path}: {exc.strerror}\n")
                status = 1
            else:
                invocation.out(f"{digest}  {path}\n")
        return status

    def _cat(self, invocation: Invocation) -> int:
        status = 0
        paths = invocation.argv[1:]
        if not paths:
            invocation.out(invocation.stdin)
        for path in paths:
            try:
                invocation.out(self._files.read(path))
            except OSError as exc:
                invocation.err(f"cat: {path}: {exc.strerror}\n")
                status = 1
        return status

    def _rm(self, invocation: Invocation) -> int:
        force = any(arg.startswith("-") and "f" in arg for arg in invocation.argv[1:])
        status = 0
        for path in (arg for arg in invocation.argv[1:] if not arg.startswith("-")):
            try:
                self._files.remove(path)
            except FileNotFoundError as exc:
                if not force:
                    invocation.err(f"rm: {path}: {exc.strerror}\n")
                    status = 1
            except OSError as exc:
                invocation.err(f"rm: {path}: {exc.strerror}\n")
                status = 1
        return status

    def _ls(self, invocation: Invocation) -> int:
        status = 0
        for path in [arg for arg in invocation.argv[1:] if not arg.startswith("-")] or ["/"]:
            if self._files.is_dir(path):
                invocation.out("".join(f"{name}\n" for name in self._files.list_directory(path)))
            elif self._files.stat(path) is not None:
                invocation.out(f"{path}\n")
            else:
                invocation.err(f"ls: {path}: No such file or directory\n")
                status = 1
        return status

    def _mkdir(self, invocation: Invocation) -> int:
        parents = "-p" in invocation.argv[1:]
        for path in (arg for arg in invocation.argv[1:] if not arg.startswith("-")):
            todo = [path]
            if parents:
                todo = [
                    p for p in _ancestors(self._files.normalize(path)) if not self._files.is_dir(p)
                ]
            for directory in todo:
                try:
                    self._files.make_directory(directory)
                except OSError as exc:
                    invocation.err(f"mkdir: '{path}': {exc.strerror}\n")
                    return 1
        return 0

    def _sh(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if len(args) < 2 or args[0] != "-c":
            invocation.err("sh: only `sh -c COMMAND` runs on this phone\n")
            return 2
        return self._new_shell(invocation.budget, invocation.caller).run_into(
            args[1], invocation.stdout, invocation.stderr
        )

    def _echo(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        newline = True
        while args and args[0] == "-n":
            newline = False
            args = args[1:]
        invocation.out(" ".join(args) + ("\n" if newline else ""))
        return 0

    def _sleep(self, invocation: Invocation) -> int:
        try:
            seconds = float(invocation.argv[1])
        except (IndexError, ValueError):
            invocation.err("sleep: missing or bad duration\n")
            return 1
        # Other clients' commands run meanwhile, as on a phone: sleeping touches nothing.
        self._phone_lock.release()
        try:
            time.sleep(min(max(seconds, 0.0), MAX_SLEEP_S))
        finally:
            self._phone_lock.acquire()
        return 0


def _ancestors(path: str) -> list[str]:
    parts = [part for part in path.split("/") if part]
    return ["/" + "/".join(parts[: index + 1]) for index in range(len(parts))]
