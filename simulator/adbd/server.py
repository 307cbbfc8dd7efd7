"""The ADB host ("smart socket") protocol on a loopback port, answering for simulated phones.

A client (adbutils, the real `adb` binary) connects as it would to the ADB server on port 5037:
each request is four hex digits of length and the request; replies are `OKAY`, or `FAIL` and a
length-prefixed message. Host requests list and select devices and manage port forwards
(`forward:`, `killforward:`, `list-forward`, see `forwards`); after a transport is selected the
same connection carries one device service: `shell:` (raw), `shell,v2,...:` (framed
stdout/stderr/exit packets), `exec:` (raw), `sync:` (file transfer) or `tcp:PORT` (a stream to
a port a program on the phone listens on). See the protocol notes in AOSP
`packages/modules/adb/{OVERVIEW,SERVICES,SYNC}.TXT`.

A shell command line that starts a server (`app_process`) runs until the client hangs up, as
on a phone, while the phone keeps answering other connections.

The server is threaded (one thread per connection, at most `max_connections`), binds only to
127.0.0.1 by default, and `stop()` closes every open connection. Its memory is bounded: each
shell command line and each pushed file is charged to a budget drawn from one pool per server
(`memory_limit`), and output is streamed back without further copies.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import struct
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from simulator.adbd.android import PhoneSession
from simulator.adbd.files import MAX_FILE_BYTES
from simulator.adbd.forwards import ForwardError, PortForwards
from simulator.adbd.memory import MIB, BudgetExceeded, ByteBudget, MemoryPool
from simulator.adbd.phone import ServedPhone
from simulator.adbd.screen import DumpFault
from simulator.adbd.sh import MAX_COMMAND_BYTES
from simulator.adbd.uiautomator_server import UiAutomationOptions

SERVER_VERSION = 41  # what adb 1.0.41 clients expect; older numbers make them restart the server
DEVICE_FEATURES = "shell_v2,cmd"
MAX_SYNC_PATH = 1024
SYNC_CHUNK = 64 * 1024
IDLE_TIMEOUT_S = 120.0  # a connection that sends nothing for this long is dropped
SLOT_WAIT_S = 1.0  # a client over max_connections waits this long for a slot, then is refused
MEMORY_LIMIT_BYTES = 192 * MIB  # all requests of one server together
LISTEN_BACKLOG = 1024  # a burst of clients waits in the kernel, not in SYN retries
MAX_BLOCK_BYTES = 0xFFFF  # the length prefix has four hex digits
_SHELL_STDOUT, _SHELL_STDERR, _SHELL_EXIT = 1, 2, 3


class ProtocolError(Exception):
    """The client broke the protocol; the connection is dropped."""


def _block(text: str) -> bytes:
    """Four hex digits of length, then the text, cut to fit at a character boundary."""
    data = text.encode()
    if len(data) > MAX_BLOCK_BYTES:
        data = data[:MAX_BLOCK_BYTES].decode("utf-8", "ignore").encode()
    return f"{len(data):04x}".encode() + data


def _okay(text: str | None = None) -> bytes:
    return b"OKAY" + (_block(text) if text is not None else b"")


def _fail(message: str) -> bytes:
    return b"FAIL" + _block(message)


class _Connection:
    """One client socket, read in exact amounts."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def read_exact(self, count: int) -> bytes:
        data = bytearray()
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ProtocolError("client closed the connection")
            data += chunk
        return bytes(data)

    def read_request(self) -> str | None:
        try:
            header = self.sock.recv(4, socket.MSG_WAITALL)
        except OSError:
            return None
        if len(header) < 4:
            return None
        try:
            length = int(header, 16)
        except ValueError as exc:
            raise ProtocolError(f"bad request length {header!r}") from exc
        return self.read_exact(length).decode("utf-8", "replace")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def hangup_watch(self) -> _HangupWatch:
        return _HangupWatch(self.sock)

    def finish(self) -> None:
        """Close after the client has read everything: shut our side, drain theirs.

        Closing with unread client bytes (a v2 close-stdin packet, say) would reset the
        connection and could cut off the output the client is still reading.
        """
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.settimeout(2.0)
            while self.sock.recv(4096):
                pass


class _HangupWatch:
    """The client of a shell connection, watched for hanging up once a program asks (the
    `Caller` a long-running program waits on); what the client sends meanwhile is dropped."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._gone = threading.Event()
        self._watching = False
        self._lock = threading.Lock()

    def wait_for_hangup(self, timeout: float) -> bool:
        with self._lock:
            if not self._watching:
                self._watching = True
                threading.Thread(target=self._watch, name="adb-shell-client", daemon=True).start()
        return self._gone.wait(timeout)

    def _watch(self) -> None:
        while True:
            try:
                if not self._sock.recv(4096):
                    break
            except TimeoutError:
                continue  # a quiet client is still there
            except OSError:
                break
        self._gone.set()


class AdbServer:
    """Serves simulated phones over the ADB host protocol on `host:port` (port 0 picks one)."""

    def __init__(
        self,
        phones: Iterable[ServedPhone],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        max_connections: int = 64,
        memory_limit: int = MEMORY_LIMIT_BYTES,
        dump_faults: Mapping[str, Iterable[DumpFault]] | None = None,
        shell_v2: bool = True,
        ui_automation: UiAutomationOptions | None = None,
    ) -> None:
        faults = dump_faults or {}
        # Phones before Android 7 lack the v2 shell; clients then fall back to raw `shell:`.
        self.features = DEVICE_FEATURES if shell_v2 else DEVICE_FEATURES.replace("shell_v2,", "")
        self.sessions: dict[str, PhoneSession] = {}
        for phone in phones:
            if phone.serial in self.sessions:
                raise ValueError(f"two phones share the serial {phone.serial!r}")
            self.sessions[phone.serial] = PhoneSession(
                phone, faults.get(phone.serial, ()), ui_automation
            )
        self._transport_ids = {serial: number for number, serial in enumerate(self.sessions, 1)}
        self._slots = threading.BoundedSemaphore(max_connections)
        self.memory = MemoryPool(memory_limit)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._serving = threading.Event()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                server._handle(self.request)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            request_queue_size = LISTEN_BACKLOG
            daemon_threads = True
            block_on_close = True

        self._server = Server((host, port), Handler, bind_and_activate=True)
        self.forwards = PortForwards(host, self._forwarded)

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def port(self) -> int:
        return self.address[1]

    def session(self, serial: str) -> PhoneSession:
        return self.sessions[serial]

    def start(self) -> AdbServer:
        """Serve in a background thread; returns self."""
        self._thread = threading.Thread(
            target=self.serve_forever, name=f"adb-server:{self.port}", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until `stop()` (from another thread) or an interrupt."""
        self._serving.set()
        # The poll interval bounds how long stop() waits for the accept loop to notice.
        self._server.serve_forever(poll_interval=0.05)

    def stop(self) -> None:
        """Stop accepting, close every open connection and wait for their threads."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._serving.is_set():
            self._server.shutdown()
        self.forwards.remove_all()
        with self._open_lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            self._open_lock.wait_for(lambda: not self._open, timeout=5)
        self._server.server_close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> AdbServer:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    # --- connections -------------------------------------------------------------------

    def _handle(self, sock: socket.socket) -> None:
        connection = _Connection(sock)
        self._hold(sock, lambda: self._serve_connection(connection), _fail("too many connections"))

    def _forwarded(self, serial: str, port: int, sock: socket.socket) -> None:
        """A connection to a forwarded local port: carried to the phone's `port`, or closed
        when nothing listens there."""
        session = self.sessions.get(serial)
        service = session.ports.service(port) if session is not None else None
        if service is not None:
            self._hold(sock, lambda: service(sock), b"")

    def _hold(self, sock: socket.socket, serve: Callable[[], None], refusal: bytes) -> None:
        """Serve one client connection within the server's limits, and let stop() close it."""
        if not self._slots.acquire(timeout=SLOT_WAIT_S):
            with contextlib.suppress(OSError):
                sock.sendall(refusal)
            return
        with self._open_lock:
            if self._stopped.is_set():
                # accepted while stop() was closing connections: it would wait on this one
                self._slots.release()
                return
            self._open.add(sock)
        try:
            sock.settimeout(IDLE_TIMEOUT_S)
            # Replies are written whole; Nagle's wait for an ACK would only add latency (adb
            # turns it off on its sockets too).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            serve()
        except (OSError, ProtocolError):
            pass  # the client went away or spoke nonsense; nothing to answer
        finally:
            with self._open_lock:
                self._open.discard(sock)
                self._open_lock.notify_all()
            self._slots.release()

    def _serve_connection(self, connection: _Connection) -> None:
        request = connection.read_request()
        if request is None:
            return
        session = self._host_request(connection, request)
        if session is None:
            connection.finish()
            return
        request = connection.read_request()
        if request is not None:
            self._device_request(connection, session, request)
        connection.finish()

    def _select(self, scope: str) -> tuple[PhoneSession | None, str]:
        """The phone a scope names (`any`, `local`, `usb`, `serial:S`, `id:N`), or an error."""
        if scope.startswith("serial:"):
            serial = scope[len("serial:") :]
            if serial in self.sessions:
                return self.sessions[serial], ""
            return None, f"device '{serial}' not found"
        if scope.startswith("id:"):
            for serial, number in self._transport_ids.items():
                if str(number) == scope[len("id:") :]:
                    return self.sessions[serial], ""
            return None, f"no device with transport id '{scope[3:]}'"
        # Simulated phones are emulators: local transports, never USB.
        candidates = [] if scope == "usb" else list(self.sessions.values())
        if not candidates:
            return None, "no devices/emulators found"
        if len(candidates) > 1:
            return None, "more than one device/emulator"
        return candidates[0], ""

    def _split_scope(self, request: str) -> tuple[str, str]:
        """`host-serial:S:cmd` -> ("serial:S", "cmd"); `host:cmd` -> ("any", "cmd")."""
        if request.startswith("host-serial:"):
            rest = request[len("host-serial:") :]
            # Serials may contain ':' (`127.0.0.1:5555`): prefer a serial we know.
            for serial in sorted(self.sessions, key=len, reverse=True):
                if rest.startswith(serial + ":"):
                    return f"serial:{serial}", rest[len(serial) + 1 :]
            serial, _, command = rest.rpartition(":")
            return f"serial:{serial}", command
        if request.startswith("host-transport-id:"):
            number, _, command = request[len("host-transport-id:") :].partition(":")
            return f"id:{number}", command
        for prefix, scope in (("host-usb:", "usb"), ("host-local:", "local"), ("host:", "any")):
            if request.startswith(prefix):
                return scope, request[len(prefix) :]
        return "", request

    def _host_request(self, connection: _Connection, request: str) -> PhoneSession | None:
        """Answer a host request; returns the phone when the request selected a transport."""
        scope, command = self._split_scope(request)
        if not scope:
            connection.send(_fail(f"unknown host service: {request}"))
            return None
        if command == "version":
            connection.send(_okay(f"{SERVER_VERSION:04x}"))
        elif command == "kill":
            connection.send(_okay())
            threading.Thread(target=self.stop, daemon=True).start()
        elif command in ("devices", "devices-l"):
            connection.send(_okay(self._device_list(long=command == "devices-l")))
        elif command == "track-devices":
            connection.send(_okay(self._device_list(long=False)))
            while connection.sock.recv(1):  # hold the line open until the client hangs up
                pass
        elif command == "host-features":
            connection.send(_okay(self.features))
        elif command.startswith(("transport", "tport:")):
            return self._select_transport(connection, scope, command)
        elif command.startswith("wait-for-"):
            _, error = self._select(scope)
            connection.send(_fail(error) if error else _okay() + _okay())
        elif command == "list-forward":
            selected = None if scope == "any" else self._select(scope)[0]
            connection.send(_okay(self.forwards.listing(selected.serial if selected else None)))
        elif command.startswith(("forward:", "killforward:")) or command == "killforward-all":
            self._forward_request(connection, scope, command)
        else:
            session, error = self._select(scope)
            if session is None:
                connection.send(_fail(error))
                return None
            answers = {
                "features": self.features,
                "get-state": "device",
                "get-serialno": session.serial,
                "get-devpath": "unknown",
            }
            if command in answers:
                connection.send(_okay(answers[command]))
            else:
                connection.send(_fail(f"unsupported host service: {command}"))
        return None

    def _forward_request(self, connection: _Connection, scope: str, command: str) -> None:
        """`forward:[norebind:]LOCAL;REMOTE`, `killforward:LOCAL`, `killforward-all`: on
        success adb answers OKAY twice (the transport, then the request), then the port a
        `tcp:0` listener got."""
        session, error = self._select(scope)
        if session is None:
            connection.send(_fail(error))
            return
        port_reply = b""
        try:
            if command == "killforward-all":
                self.forwards.remove_all()
            elif command.startswith("killforward:"):
                self.forwards.remove(command[len("killforward:") :])
            else:
                spec = command[len("forward:") :]
                rebind = not spec.startswith("norebind:")
                local, separator, remote = spec.removeprefix("norebind:").partition(";")
                if not separator:
                    raise ForwardError(f"bad forward: {spec}")
                port = self.forwards.add(session.serial, local, remote, rebind)
                if local == "tcp:0":
                    port_reply = _block(str(port))
        except ForwardError as exc:
            connection.send(_fail(str(exc)))
            return
        connection.send(_okay() + _okay() + port_reply)

    def _select_transport(
        self, connection: _Connection, scope: str, command: str
    ) -> PhoneSession | None:
        tport = command.startswith("tport:")
        target = command[len("tport:") :] if tport else command[len("transport") :]
        target = target.lstrip(":-")
        if target.startswith("serial:"):
            scope = target
        elif target.startswith("id:") or target.startswith("transport-id:"):
            scope = "id:" + target.rpartition(":")[2]
        elif target in ("any", "local", "usb"):
            scope = target
        elif target:  # host:transport:SERIAL
            scope = f"serial:{target}"
        session, error = self._select(scope)
        if session is None:
            connection.send(_fail(error))
            return None
        reply = _okay()
        if tport:
            reply += struct.pack("<Q", self._transport_ids[session.serial])
        connection.send(reply)
        return session

    def _device_list(self, long: bool) -> str:
        lines = []
        for serial in self.sessions:
            if long:
                details = "product:sdk_gphone64_x86_64 model:Pixel_7 device:emu64xa"
                lines.append(
                    f"{serial:<22} device {details} transport_id:{self._transport_ids[serial]}"
                )
            else:
                lines.append(f"{serial}\tdevice")
        return "".join(line + "\n" for line in lines)

    # --- device services ----------------------------------------------------------------

    def _device_request(self, connection: _Connection, session: PhoneSession, request: str) -> None:
        if request.startswith("host:"):
            # The `adb` binary selects the transport, then asks its host question (`forward`).
            self._host_request(connection, f"host-serial:{session.serial}:{request[5:]}")
            return
        service, _, argument = request.partition(":")
        name, *options = service.split(",")
        if name == "shell":
            framed = "v2" in options
            if framed and "shell_v2" not in self.features:
                connection.send(_fail("shell protocol v2 is not supported by this phone"))
                return
            self._shell(connection, session, argument, framed=framed)
        elif name == "exec":
            self._shell(connection, session, argument, framed=False)
        elif request == "sync:":
            connection.send(_okay())
            self._sync(connection, session)
        elif request == "features":
            connection.send(_okay(self.features))
        elif name == "tcp":
            self._open_port(connection, session, argument)
        else:
            connection.send(_fail(f"unsupported device service: {service}"))

    @staticmethod
    def _open_port(connection: _Connection, session: PhoneSession, address: str) -> None:
        """`tcp:PORT` (or `tcp:localhost:PORT`): the connection becomes a stream to what a
        program on the phone listens on; adb reports `closed` when nothing does."""
        host, _, port = address.rpartition(":")
        if host not in ("", "localhost", "127.0.0.1") or not port.isdigit():
            connection.send(_fail(f"the simulated phone connects to its own ports only: {address}"))
            return
        service = session.ports.service(int(port))
        if service is None:
            connection.send(_fail("closed"))
            return
        connection.send(_okay())
        service(connection.sock)

    def _shell(
        self, connection: _Connection, session: PhoneSession, command: str, framed: bool
    ) -> None:
        connection.send(_okay())
        with ByteBudget(MAX_COMMAND_BYTES, self.memory) as budget:
            if command.strip():
                # Raw services carry one stream: the program's stdout and stderr share it.
                stdout, stderr, status = session.run(
                    command, not framed, budget, connection.hangup_watch()
                )
            else:
                stdout, stderr, status = (
                    b"",
                    b"interactive shells are not simulated: pass a command\n",
                    1,
                )
            if not framed:
                connection.send(stdout)
                connection.send(stderr)
                return
            for packet_id, data in ((_SHELL_STDOUT, stdout), (_SHELL_STDERR, stderr)):
                view = memoryview(data)
                for start in range(0, len(view), SYNC_CHUNK):
                    chunk = view[start : start + SYNC_CHUNK]
                    connection.send(struct.pack("<BI", packet_id, len(chunk)) + chunk)
            connection.send(struct.pack("<BI", _SHELL_EXIT, 1) + bytes([status & 0xFF]))

    def _sync(self, connection: _Connection, session: PhoneSession) -> None:
        while True:
            header = connection.read_exact(8)
            request_id, length = header[:4], struct.unpack("<I", header[4:])[0]
            if request_id == b"QUIT":
                return
            if length > MAX_SYNC_PATH:
                connection.send(_sync_fail("path too long"))
                return
            path = connection.read_exact(length).decode("utf-8", "replace")
            if request_id == b"SEND":
                connection.send(self._receive_file(connection, session, path))
            elif request_id == b"RECV":
                self._send_file(connection, session, path)
            elif request_id in (b"STAT", b"LIST"):
                with session.lock:
                    if request_id == b"STAT":
                        mode, size, mtime = session.files.stat(path) or (0, 0, 0)
                        reply = b"STAT" + struct.pack("<III", mode, size, mtime)
                    else:
                        reply = self._listing(session, path)
                connection.send(reply)
            else:
                connection.send(_sync_fail(f"unsupported sync request {request_id!r}"))
                return

    @staticmethod
    def _listing(session: PhoneSession, path: str) -> bytes:
        out = bytearray()
        names = session.files.list_directory(path) if session.files.is_dir(path) else []
        for name in names:
            mode, size, mtime = session.files.stat(path.rstrip("/") + "/" + name) or (0, 0, 0)
            encoded = name.encode()
            out += b"DENT" + struct.pack("<IIII", mode, size, mtime, len(encoded)) + encoded
        return bytes(out + b"DONE" + bytes(16))

    @staticmethod
    def _send_file(connection: _Connection, session: PhoneSession, path: str) -> None:
        with session.lock:
            try:
                data = session.files.read(path)
            except OSError as exc:
                data, error = b"", exc.strerror or "read failed"
            else:
                error = ""
        if error:
            connection.send(_sync_fail(error))
            return
        # Stored contents are never changed in place: stream them, unlocked, without a copy.
        view = memoryview(data)
        for start in range(0, len(view), SYNC_CHUNK):
            chunk = view[start : start + SYNC_CHUNK]
            connection.send(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        connection.send(b"DONE" + bytes(4))

    def _receive_file(
        self, connection: _Connection, session: PhoneSession, path_mode: str
    ) -> bytes:
        """Read a SEND's data, charged as it arrives, and store it; returns the reply.

        Data beyond what the budget allows is still read, so the client gets its answer
        instead of a broken pipe, but is not kept.
        """
        path = path_mode.rpartition(",")[0] or path_mode
        refusal: BudgetExceeded | None = None
        with ByteBudget(MAX_FILE_BYTES, self.memory) as budget:
            data = bytearray()
            while True:
                header = connection.read_exact(8)
                kind, value = header[:4], struct.unpack("<I", header[4:])[0]
                if kind == b"DONE":
                    break
                if kind != b"DATA" or value > SYNC_CHUNK:
                    raise ProtocolError("bad SEND data")
                chunk = connection.read_exact(value)
                if refusal is not None:
                    continue
                try:
                    budget.charge(len(chunk))
                except BudgetExceeded as exc:
                    refusal = exc
                    data = bytearray()
                    budget.release()
                    continue
                data += chunk
            if refusal is None:
                with session.lock:
                    return self._store_file(session, path, bytes(data))
        if refusal.pool_exhausted:
            return _sync_fail(f"{path}: out of memory ({refusal})")
        return _sync_fail(f"{path}: No space left on device")

    @staticmethod
    def _store_file(session: PhoneSession, path: str, data: bytes) -> bytes:
        try:
            session.files.write(path, data, append=False)
        except OSError as exc:
            return _sync_fail(f"{path}: {exc.strerror}")
        return b"OKAY" + bytes(4)


def _sync_fail(message: str) -> bytes:
    encoded = message.encode()
    return b"FAIL" + struct.pack("<I", len(encoded)) + encoded
