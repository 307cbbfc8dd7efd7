"""The TCP ports a served phone's programs listen on: what `adb forward` and the `tcp:PORT`
device service reach.

A program started on the phone (the UI automation server that `app_process` runs) claims a port
with `listen`; each connection a client opens to that port is handed to the program's service
in the connecting thread, with the socket as the client's end of the stream.
"""

from __future__ import annotations

import errno
import socket
import threading
from collections.abc import Callable

PortService = Callable[[socket.socket], None]


class DevicePorts:
    """Port -> the service listening on it, for one phone."""

    def __init__(self) -> None:
        self._services: dict[int, PortService] = {}
        self._lock = threading.Lock()

    def listen(self, port: int, service: PortService) -> None:
        """Claim `port`; OSError(EADDRINUSE) when a program already listens there."""
        with self._lock:
            if port in self._services:
                raise OSError(errno.EADDRINUSE, "Address already in use")
            self._services[port] = service

    def close(self, port: int) -> None:
        with self._lock:
            self._services.pop(port, None)

    def service(self, port: int) -> PortService | None:
        with self._lock:
            return self._services.get(port)
