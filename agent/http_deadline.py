"""An HTTP transport whose every socket wait ends at a deadline shared by a group of requests.

The transport is for the HTTP library the OpenAI SDK runs on (httpx2, over httpcore2). Its
timeouts bound each wait (to connect, for one read, for one write), not a request: a
server that sends a byte just before each read timeout, in its headers or its body, keeps a
request open for ever. Here every wait of every connection is cut to the time left before the
current deadline, and a wait that starts after it fails at once with the library's own timeout
error, so a group of requests (the attempts of one decision) ends at its deadline whatever the
server does.

The transport takes no network backend of its own, so its connection pool is replaced by an
equal one whose backend is wrapped.
"""

from __future__ import annotations

import ssl
import time
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpcore2
import httpx2
import openai

Clock = Callable[[], float]
_Timeout = type[httpcore2.TimeoutException]


class Deadline:
    """A point in time that waits may not pass; none while no group of requests is running."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self._clock = clock
        self._at: float | None = None

    @contextmanager
    def running(self, seconds: float) -> Iterator[None]:
        """The deadline `seconds` from now, for the requests made inside the block."""
        self._at = self._clock() + seconds
        try:
            yield
        finally:
            self._at = None

    def remaining(self) -> float | None:
        """Seconds left (0 or less once passed); None with no deadline running."""
        return None if self._at is None else self._at - self._clock()

    def passed(self) -> bool:
        left = self.remaining()
        return left is not None and left <= 0

    def cut(self, timeout: float | None, error: _Timeout) -> float | None:
        """`timeout` shortened to the time left; `error` when none is left."""
        left = self.remaining()
        if left is None:
            return timeout
        if left <= 0:
            raise error("the deadline has passed")
        return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore2.NetworkStream):
    def __init__(self, stream: httpcore2.NetworkStream, deadline: Deadline) -> None:
        self._stream = stream
        self._deadline = deadline

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._deadline.cut(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._deadline.cut(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        secured = self._stream.start_tls(
            ssl_context, server_hostname, self._deadline.cut(timeout, httpcore2.ConnectTimeout)
        )
        return _DeadlineStream(secured, self._deadline)

    def get_extra_info(self, info: str) -> typing.Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore2.NetworkBackend):
    def __init__(self, deadline: Deadline) -> None:
        self._backend = httpcore2.SyncBackend()
        self._deadline = deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.NetworkStream:
        stream = self._backend.connect_tcp(
            host,
            port,
            self._deadline.cut(timeout, httpcore2.ConnectTimeout),
            local_address,
            socket_options,
        )
        return _DeadlineStream(stream, self._deadline)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore2.SOCKET_OPTION] | None = None,
    ) -> httpcore2.NetworkStream:
        stream = self._backend.connect_unix_socket(
            path, self._deadline.cut(timeout, httpcore2.ConnectTimeout), socket_options
        )
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def deadline_transport(deadline: Deadline) -> httpx2.HTTPTransport:
    """The SDK's transport, with the SDK's connection limits, whose connections keep to
    `deadline`."""
    transport = httpx2.HTTPTransport()
    limits = openai.DEFAULT_CONNECTION_LIMITS
    transport._pool = httpcore2.ConnectionPool(
        ssl_context=httpx2.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_DeadlineBackend(deadline),
    )
    return transport
