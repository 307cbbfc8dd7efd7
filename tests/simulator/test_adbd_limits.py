"""The simulated ADB server under greedy and hostile clients: bounded memory, framing, fairness.

Everything stays on loopback and takes seconds. The memory test runs `phone-agent sim
adb-server` as its own process, so its peak resident size (VmHWM) is the server's alone.
"""

from __future__ import annotations

import io
import os
import re
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import adbutils
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from simulator import Simulator
from simulator.adbd import AdbServer
from simulator.adbd.files import MAX_FILE_BYTES
from simulator.adbd.memory import MIB, ByteBudget
from simulator.adbd.server import MEMORY_LIMIT_BYTES
from tests.support.paths import REPO_ROOT

SERIAL = "emulator-5554"


@contextmanager
def served_process() -> Iterator[tuple[int, int]]:
    """`phone-agent sim adb-server` on a free port: (pid, port); stopped with Ctrl-C."""
    command = [sys.executable, "-m", "agent.cli", "sim", "adb-server", "--port", "0"]
    server = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()
        match = re.search(r"on 127\.0\.0\.1:(\d+)", banner)
        assert match, banner
        yield server.pid, int(match.group(1))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)


def memory_kib(pid: int, field: str) -> int:
    """A size from /proc/PID/status, in KiB (VmHWM is the peak resident size)."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB$", status, re.MULTILINE)
    assert match, f"no {field} in /proc/{pid}/status"
    return int(match.group(1))


def request(sock: socket.socket, text: bytes) -> None:
    sock.sendall(b"%04x" % len(text) + text)


def open_sync(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    for text in (f"host:transport:{SERIAL}".encode(), b"sync:"):
        request(sock, text)
        assert sock.recv(4, socket.MSG_WAITALL) == b"OKAY"
    return sock


def send_data_without_done(sock: socket.socket, path: str, total: int) -> None:
    """Start a SEND and stream `total` bytes of it, leaving it unfinished."""
    name = f"{path},33188".encode()
    sock.sendall(b"SEND" + struct.pack("<I", len(name)) + name)
    chunk = bytes(64 * 1024)
    for _ in range(total // len(chunk)):
        sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)


def push(port: int, path: str, size: int) -> str:
    """Push `size` zero bytes; "" when stored, else the server's FAIL message."""
    with open_sync(port) as sock:
        send_data_without_done(sock, path, size)
        sock.sendall(b"DONE" + bytes(4))
        status, length = struct.unpack("<4sI", sock.recv(8, socket.MSG_WAITALL))
        message = sock.recv(length, socket.MSG_WAITALL) if status == b"FAIL" else b""
    return message.decode()


def shell(device: adbutils.AdbDevice, command: str) -> tuple[bytes, bytes, int]:
    result = device.shell2(command, v2=True, timeout=30, encoding=None)
    assert isinstance(result.stdout, bytes) and isinstance(result.stderr, bytes)
    return result.stdout, result.stderr, result.returncode


# --- memory ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_greedy_clients_leave_the_server_memory_bounded_and_answering() -> None:
    big = 60 * 1000 * 1000  # fits the phone's storage, not one command line's budget
    with served_process() as (pid, port):
        device = adbutils.AdbClient(host="127.0.0.1", port=port).device(SERIAL)
        assert shell(device, "echo up")[0] == b"up\n"
        baseline_kib = memory_kib(pid, "VmRSS")

        # Eight pushes of 60 MB, none finished: together far more than the server may hold.
        unfinished = [open_sync(port) for _ in range(8)]
        for number, sock in enumerate(unfinished):
            send_data_without_done(sock, f"/sdcard/part{number}", big)
        assert shell(device, "echo still here")[0] == b"still here\n"
        assert push(port, "/sdcard/busy", 40 * MIB).startswith("/sdcard/busy: out of memory")
        for sock in unfinished:
            sock.close()

        # Once they are gone their memory is free again: a big push goes through.
        deadline = time.monotonic() + 10
        while True:
            try:
                device.sync.push(io.BytesIO(b"x" * big), "/sdcard/big")
                break
            except adbutils.AdbError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

        # Ten copies of it through one command line: refused early, not sent.
        started = time.monotonic()
        stdout, stderr, status = shell(device, "cat" + " /sdcard/big" * 10)
        assert (stdout, status) == (b"", 1)
        assert b"out of memory" in stderr
        raw = device.shell("cat" + " /sdcard/big" * 10, encoding=None, timeout=30)
        assert isinstance(raw, bytes) and raw.startswith(b"/system/bin/sh: out of memory")
        variable = shell(device, "X=$(cat /sdcard/big); echo $X$X$X$X")
        assert variable[0] == b"" and b"out of memory" in variable[1]
        assert time.monotonic() - started < 20

        assert shell(device, "settings get global wifi_on")[2] == 0
        assert device.sync.stat("/sdcard/big").size == big
        peak_mib = memory_kib(pid, "VmHWM") / 1024
    # Stored files, one push's copy on its way into storage, the shared pool, and slack for
    # the few small requests that run outside the pool.
    bound_mib = baseline_kib / 1024 + (2 * MAX_FILE_BYTES + MEMORY_LIMIT_BYTES) / MIB + 64
    assert peak_mib < bound_mib, f"peak {peak_mib:.0f} MiB, bound {bound_mib:.0f} MiB"


@pytest.mark.parametrize(
    "command",
    [
        "cat" + " /sdcard/f" * 20,
        "cat /sdcard/f" + " | cat" * 10,
        "X=$(cat /sdcard/f); echo $X$X$X$X$X$X$X$X$X$X",
        "sh -c 'cat /sdcard/f /sdcard/f' && sh -c 'cat /sdcard/f /sdcard/f'",
        "cat /sdcard/f /sdcard/f > /sdcard/g; cat /sdcard/g /sdcard/g",
    ],
)
def test_output_that_multiplies_stops_the_command_line_with_an_error(command: str) -> None:
    with AdbServer([Simulator(serial=SERIAL)]) as server:
        session = server.session(SERIAL)
        session.files.write("/sdcard/f", b"z" * 1000, append=False)
        budget = 6000  # two buffers of the file's size fit, many do not
        assert session.run("cat /sdcard/f", budget=ByteBudget(budget))[0] == b"z" * 1000
        stdout, stderr, status = session.run(command, budget=ByteBudget(budget))
    assert (stdout, status) == (b"", 1)
    assert stderr.decode().startswith("/system/bin/sh: out of memory:")


def test_a_push_over_the_shared_memory_is_refused_and_the_server_goes_on() -> None:
    with AdbServer([Simulator(serial=SERIAL)], memory_limit=0) as server:
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(SERIAL)
        assert push(server.port, "/sdcard/big", 3 * MIB).startswith("/sdcard/big: out of memory")
        assert push(server.port, "/sdcard/small", 64 * 1024) == ""  # small requests still fit
        assert device.sync.stat("/sdcard/small").size == 64 * 1024
        assert not device.sync.exists("/sdcard/big")
        assert server.memory.used == 0


# --- framing --------------------------------------------------------------------------------


def exchange(port: int, *texts: bytes) -> bytes:
    """Send requests, close our side, and read everything the server answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for text in texts:
            request(sock, text)
        sock.shutdown(socket.SHUT_WR)
        reply = bytearray()
        while chunk := sock.recv(65536):
            reply += chunk
    return bytes(reply)


def assert_one_frame(reply: bytes, *, tport: bool = False) -> None:
    """OKAY (with nothing, a second OKAY, a transport id or one block), or FAIL and one block."""
    status, rest = reply[:4], reply[4:]
    assert status in (b"OKAY", b"FAIL"), reply[:64]
    if status == b"OKAY" and (rest in (b"", b"OKAY") or (tport and len(rest) == 8)):
        return
    length = rest[:4]
    assert re.fullmatch(rb"[0-9a-f]{4}", length), reply[:64]
    assert int(length, 16) == len(rest) - 4, "the length prefix does not match what follows"
    rest[4:].decode("utf-8")


@pytest.fixture(scope="module")
def framing_server() -> Iterator[AdbServer]:
    with AdbServer([Simulator(serial=SERIAL)]) as server:
        yield server


@given(
    scope=st.sampled_from(
        [
            "host:",
            "host-serial:",
            f"host-serial:{SERIAL}:",
            "host-transport-id:",
            "host-local:",
            "host-usb:",
            "",
            f"host:transport:{SERIAL}",
        ]
    ),
    tail=st.text(max_size=40),
    padding=st.integers(min_value=0, max_value=0xFFFF),
)
@example(scope="host-serial:", tail="", padding=0xFFF0)
@example(scope="", tail="", padding=0xFFFF)
@settings(max_examples=60, deadline=None)
def test_every_host_request_gets_one_well_framed_reply(
    framing_server: AdbServer, scope: str, tail: str, padding: int
) -> None:
    text = (scope + tail + "x" * padding).encode()[:0xFFFF]
    assume(b"kill" not in text)  # would stop the shared server
    reply = exchange(framing_server.port, text)
    assert_one_frame(reply, tport=b"tport:" in text)


def test_a_long_device_service_name_is_refused_in_one_frame(framing_server: AdbServer) -> None:
    service = b"x" * 0xFFFF
    reply = exchange(framing_server.port, f"host:transport:{SERIAL}".encode(), service)
    assert reply.startswith(b"OKAY")
    assert_one_frame(reply[4:])
    assert reply[4:].startswith(b"FAILffffunsupported device service: xxx")


# --- fairness -------------------------------------------------------------------------------


def test_a_sleeping_client_does_not_block_another() -> None:
    with AdbServer([Simulator(serial=SERIAL, state={"wifi": True})]) as server:
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device(SERIAL)
        sleeper = threading.Thread(target=shell, args=(device, "sleep 2; sleep 2; sleep 2"))
        sleeper.start()
        time.sleep(0.3)  # the sleeper is inside its first sleep
        assert shell(device, "settings get global wifi_on")[0] == b"1\n"
        # answered while the sleeper still sleeps, not after it
        answered_during_the_sleep = sleeper.is_alive()
        sleeper.join()
    assert answered_during_the_sleep


def test_a_burst_of_200_clients_is_answered_without_syn_retries() -> None:
    """A short listen backlog drops the SYNs past it, and clients retry after 1 s, 2 s, 4 s...
    With the server stopped, nothing is accepted: every one of 200 connections must still be
    completed by the kernel, so the backlog holds them all."""
    with served_process() as (pid, port):
        selector = selectors.DefaultSelector()
        replies: dict[socket.socket, bytearray] = {}
        os.kill(pid, signal.SIGSTOP)
        try:
            for _ in range(200):
                sock = socket.socket()
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", port))
                selector.register(sock, selectors.EVENT_WRITE)
                replies[sock] = bytearray()
            connected: set[socket.socket] = set()
            # a dropped SYN is not answered while the server is stopped: wait for all, bounded
            for _ in range(50):
                for key, _events in selector.select(timeout=0.1):
                    client = key.fileobj
                    assert isinstance(client, socket.socket)
                    connected.add(client)
                if len(connected) == len(replies):
                    break
            assert len(connected) == 200, f"{200 - len(connected)} connections not completed"
            for client in replies:  # waiting in the kernel when the server wakes
                request(client, b"host:version")
                selector.modify(client, selectors.EVENT_READ)
        finally:
            os.kill(pid, signal.SIGCONT)
        finished = 0
        while finished < len(replies):
            ready = selector.select(timeout=30)
            assert ready, f"{len(replies) - finished} clients were never answered"
            for key, _events in ready:
                client = key.fileobj
                assert isinstance(client, socket.socket)
                if chunk := client.recv(64):
                    replies[client] += chunk
                else:
                    selector.unregister(client)
                    finished += 1
        for sock in replies:
            sock.close()
    # 200 at once is past the server's 64 connections: each client is answered, with the
    # version or, when no slot freed in time, a refusal that says why
    answers = Counter(bytes(reply) for reply in replies.values())
    assert set(answers) <= {b"OKAY00040029", b"FAIL0014too many connections"}, answers
    assert answers[b"OKAY00040029"] >= 64, answers
