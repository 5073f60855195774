"""Where a job's tasks run: here, one after another; on a local Dask cluster of worker processes; or on the Dask
cluster at an address. Results come back in the order of the tasks; a task's InputError is the command's, and a
worker that dies or a cluster that goes away ends the command with one line too."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from nsight_ingest.errors import InputError, first_line


def client(address: str) -> Any:
    """A Dask client of the scheduler at HOST:PORT; one line when none answers there."""
    from distributed import Client

    try:
        return Client(address)
    except (OSError, ValueError) as exc:  # no scheduler answers there (a timeout is an OSError), a bad address
        raise InputError(f"--dask-address {address}: no Dask scheduler reached ({exc})") from None


@dataclass
class Cluster:
    """Tasks run here (`workers` 1, no `address`), on a local Dask cluster of `workers` processes, or on the
    cluster at `address`. Use it as a context manager: the local cluster lives as long as the block."""

    workers: int = 1
    address: str | None = None
    _client: Any = None
    _local: Any = None
    _placed: dict[int, str] = field(default_factory=dict)  # task number of the last map -> worker that ran it

    @property
    def here(self) -> bool:
        """True when the tasks run in this process."""
        return self.address is None and self.workers <= 1

    @property
    def threads(self) -> int | None:
        """DuckDB threads a task's store may use: this machine's cores shared by the local workers (None: the
        store's own choice, here or on a cluster elsewhere)."""
        if self.address is None and self.workers > 1:
            return max(1, (os.cpu_count() or 1) // self.workers)
        return None

    def __enter__(self) -> Cluster:
        if self.address is not None:
            self._client = client(self.address)
        elif self.workers > 1:
            from distributed import Client, LocalCluster

            self._local = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.ERROR)
            self._client = Client(self._local)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._client is not None:
            self._client.close()
        if self._local is not None:
            self._local.close()

    def map(self, task: Callable[..., Any], arguments: Sequence[tuple], labels: Sequence[str],
            where_last: bool = False, each: Callable[[Any], Any] | None = None) -> list[Any]:
        """`task(*args)` for each tuple of arguments, in order; `labels` name them in an error. With `where_last`,
        each runs on the worker that ran the same task number of the previous map, when it still can. `each`, when
        given, takes each result as it comes back, and what it returns is kept: the client need not hold every
        result whole at once."""
        each = each or (lambda result: result)
        if self._client is None:
            return [each(task(*args)) for args in arguments]
        from distributed import KilledWorker

        futures = []
        for n, args in enumerate(arguments):
            # a preference, not a restriction: a task whose worker has gone runs elsewhere (reading its file again)
            where = {"workers": [self._placed[n]], "allow_other_workers": True} if where_last and n in self._placed \
                else {}
            futures.append(self._client.submit(task, *args, pure=False, **where))
        results = []
        for future, label in zip(futures, labels, strict=True):
            try:
                results.append(each(future.result()))
            except KilledWorker:
                raise InputError(f"{label}: the Dask worker reading it died (out of memory, or killed); "
                                 f"the command stops") from None
            except InputError:
                raise
            except Exception as exc:
                if future.status == "error":  # the task itself failed: a bug, shown as one
                    raise
                raise InputError(f"{label}: the Dask cluster went away ({first_line(exc)})") from None
        held = self._client.who_has(futures)
        self._placed = {n: held[f.key][0] for n, f in enumerate(futures) if held.get(f.key)}
        return results

    def everywhere(self, task: Callable[..., Any], *args: Any) -> None:
        """`task(*args)` in this process and on every worker (a clean-up); a worker gone meanwhile is fine."""
        task(*args)
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.run(task, *args)
