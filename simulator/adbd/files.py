"""The served phone's storage: an in-memory file tree with the directories an `adb shell` user
can write to, bounded in size and count."""

from __future__ import annotations

import errno
import posixpath
import time

from simulator.adbd.sh import absolute

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FILES = 10_000  # empty files cost memory too


class MemoryFiles:
    """An in-memory file tree with the directories an `adb shell` user can write to."""

    _DIRECTORIES = (
        "/", "/data", "/data/local", "/data/local/tmp", "/dev", "/sdcard", "/sdcard/Download",
        "/sdcard/Pictures", "/storage", "/storage/emulated", "/system", "/system/bin",
    )  # fmt: skip
    _ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard")

    def __init__(self) -> None:
        self._directories = set(self._DIRECTORIES)
        self._files: dict[str, tuple[bytes, int]] = {}  # path -> (content, mtime)

    def normalize(self, path: str) -> str:
        path = posixpath.normpath(absolute(path))
        path = "/" + path.lstrip("/")
        for alias in self._ALIASES:
            if path == alias or path.startswith(alias + "/"):
                return "/sdcard" + path[len(alias) :]
        return path

    def is_dir(self, path: str) -> bool:
        return self.normalize(path) in self._directories

    def read(self, path: str) -> bytes:
        path = self.normalize(path)
        if path == "/dev/null":
            return b""
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if path not in self._files:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return self._files[path][0]

    def write(self, path: str, data: bytes, append: bool) -> None:
        path = self.normalize(path)
        if path == "/dev/null":
            return
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if posixpath.dirname(path) not in self._directories:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        old = self._files.get(path, (b"", 0))[0] if append else b""
        total = sum(len(content) for content, _ in self._files.values()) + len(data)
        if total > MAX_FILE_BYTES or (path not in self._files and len(self._files) >= MAX_FILES):
            raise OSError(errno.ENOSPC, "No space left on device", path)
        self._files[path] = (old + data, int(time.time()))

    def remove(self, path: str) -> None:
        path = self.normalize(path)
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if self._files.pop(path, None) is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)

    def make_directory(self, path: str) -> None:
        path = self.normalize(path)
        if posixpath.dirname(path) not in self._directories:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if path in self._files:
            raise FileExistsError(errno.EEXIST, "File exists", path)
        self._directories.add(path)

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(mode, size, mtime) as the sync protocol reports them, or None."""
        path = self.normalize(path)
        if path in self._directories:
            return 0o040771, 4096, int(time.time())
        if path in self._files:
            content, mtime = self._files[path]
            return 0o100644, len(content), mtime
        return None

    def list_directory(self, path: str) -> list[str]:
        path = self.normalize(path)
        if path not in self._directories:
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", path)
        children = {
            entry
            for entry in (*self._directories, *self._files)
            if entry != path and posixpath.dirname(entry) == path
        }
        return sorted(posixpath.basename(entry) for entry in children)

    def paths(self) -> list[str]:
        return sorted(self._directories | set(self._files))
