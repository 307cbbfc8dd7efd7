"""Memory bounds for the served phones: what one request may hold, and what all of them may.

A served phone keeps everything in the server's memory: shell output, pipes between commands,
files being pushed. Each request gets a `ByteBudget` charged before its buffers grow; the
budgets of one server draw from one `MemoryPool`, so many greedy clients together cannot hold
more than the pool either; the first bytes of each request come from outside the pool, so
ordinary small commands still run while big ones have taken all of it. Charges are never
credited back before the request ends, so what a budget has charged bounds what its request
can have allocated at once.
"""

from __future__ import annotations

import threading
from types import TracebackType

MIB = 1024 * 1024
SMALL_REQUEST_BYTES = 1 * MIB


class MemoryPool:
    """Bytes shared by every request of one server."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._used = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        return self._used

    def take(self, count: int) -> bool:
        """Take `count` bytes if that many are left; False (and nothing taken) otherwise."""
        with self._lock:
            if self._used + count > self.limit:
                return False
            self._used += count
            return True

    def give_back(self, count: int) -> None:
        with self._lock:
            self._used -= count


class BudgetExceeded(Exception):
    """A request needed more memory than its budget, or than its server had left."""

    def __init__(self, limit: int, pool_exhausted: bool) -> None:
        self.limit = limit
        self.pool_exhausted = pool_exhausted
        if pool_exhausted:
            reason = "the phone is busy with other large requests"
        else:
            reason = f"a request may hold at most {limit // MIB} MiB"
        super().__init__(reason)


class ByteBudget:
    """What one request may hold: `limit` bytes, those beyond `unpooled` taken from `pool`.

    Use it as a context manager, or call `release()`, to give the bytes back to the pool. With
    at most N requests at once, the unpooled parts add at most N * `unpooled` to the pool.
    """

    def __init__(
        self, limit: int, pool: MemoryPool | None = None, unpooled: int = SMALL_REQUEST_BYTES
    ) -> None:
        self.limit = limit
        self.pool = pool
        self.unpooled = unpooled
        self.charged = 0

    @property
    def _pooled(self) -> int:
        return max(self.charged - self.unpooled, 0)

    def charge(self, count: int) -> None:
        """Account for `count` more bytes; raises BudgetExceeded before anything is held."""
        if self.charged + count > self.limit:
            raise BudgetExceeded(self.limit, pool_exhausted=False)
        needed = max(self.charged + count - self.unpooled, 0) - self._pooled
        if self.pool is not None and needed and not self.pool.take(needed):
            raise BudgetExceeded(self.limit, pool_exhausted=True)
        self.charged += count

    def release(self) -> None:
        if self.pool is not None:
            self.pool.give_back(self._pooled)
        self.charged = 0

    def __enter__(self) -> ByteBudget:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
