"""`adb forward`: local TCP ports whose connections reach a port on a served phone.

`forward:tcp:LOCAL;tcp:REMOTE` (and `forward:norebind:...`) makes the server listen on LOCAL
(0 picks a free port, which the reply names); each connection accepted there is carried to
whatever listens on REMOTE on the phone, or closed at once when nothing does, as adb does.
`killforward:tcp:LOCAL`, `killforward-all` and `list-forward` manage them. Only `tcp:` ends
are served: the simulated phones have no Unix sockets.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass

ForwardTarget = Callable[[str, int, socket.socket], None]  # (serial, remote port, connection)


class ForwardError(Exception):
    """A forward request that cannot be honoured; the message is adb's reply."""


@dataclass
class _Forward:
    serial: str
    local_port: int
    remote_port: int
    listener: socket.socket

    @property
    def local(self) -> str:
        return f"tcp:{self.local_port}"


def _tcp_port(spec: str, allow_zero: bool) -> int:
    kind, _, number = spec.partition(":")
    if (
        kind != "tcp"
        or not number.isdigit()
        or not (0 if allow_zero else 1) <= int(number) <= 65535
    ):
        raise ForwardError(
            f"cannot bind listener: the simulated phones forward tcp: ports only, not {spec!r}"
        )
    return int(number)


class PortForwards:
    """The forwards of one ADB server, listening on `host`."""

    def __init__(self, host: str, target: ForwardTarget) -> None:
        self._host = host
        self._target = target
        self._forwards: dict[int, _Forward] = {}  # local port -> forward
        self._lock = threading.Lock()

    def add(self, serial: str, local: str, remote: str, rebind: bool) -> int:
        """Listen on `local` for `serial`'s `remote`; returns the local port."""
        local_port = _tcp_port(local, allow_zero=True)
        remote_port = _tcp_port(remote, allow_zero=False)
        with self._lock:
            existing = self._forwards.get(local_port)
            if existing is not None:
                if not rebind:
                    raise ForwardError("cannot rebind existing socket")
                existing.serial, existing.remote_port = serial, remote_port
                return local_port
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind((self._host, local_port))
                listener.listen()
            except OSError as exc:
                listener.close()
                raise ForwardError(f"cannot bind listener: {exc.strerror}") from None
            forward = _Forward(serial, listener.getsockname()[1], remote_port, listener)
            self._forwards[forward.local_port] = forward
        threading.Thread(
            target=self._accept,
            args=(forward,),
            name=f"adb-forward:{forward.local_port}",
            daemon=True,
        ).start()
        return forward.local_port

    def remove(self, local: str) -> None:
        port = _tcp_port(local, allow_zero=False)
        with self._lock:
            forward = self._forwards.pop(port, None)
        if forward is None:
            raise ForwardError(f"listener '{local}' not found")
        _close(forward.listener)

    def remove_all(self, serial: str | None = None) -> None:
        """Every forward of `serial` (of every phone when None)."""
        with self._lock:
            gone = [f for f in self._forwards.values() if serial is None or f.serial == serial]
            for forward in gone:
                del self._forwards[forward.local_port]
        for forward in gone:
            _close(forward.listener)

    def listing(self, serial: str | None = None) -> str:
        """`list-forward`'s lines: `SERIAL tcp:LOCAL tcp:REMOTE`."""
        with self._lock:
            return "".join(
                f"{f.serial} {f.local} tcp:{f.remote_port}\n"
                for f in self._forwards.values()
                if serial is None or f.serial == serial
            )

    def _accept(self, forward: _Forward) -> None:
        while True:
            try:
                connection, _ = forward.listener.accept()
            except OSError:
                return  # the forward was removed or the server stopped
            threading.Thread(
                target=self._carry,
                args=(forward.serial, forward.remote_port, connection),
                name=f"adb-forward:{forward.local_port}:connection",
                daemon=True,
            ).start()

    def _carry(self, serial: str, remote_port: int, connection: socket.socket) -> None:
        try:
            self._target(serial, remote_port, connection)
        finally:
            _close(connection)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
