"""The ranks job: rank files read side by side on Dask workers give the answer read here gives; a repeat is served
from the answer cache; a worker that dies, a cluster that goes away or one that is not there is one line, exit 2."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import cloudpickle
import dask
import pytest
from distributed import LocalCluster, WorkerPlugin

from nsight_ingest import store
from tests.conftest import DATA
from tools.gen_ranks import generate


@pytest.fixture(scope="module")
def four_ranks(tmp_path_factory):
    return generate(tmp_path_factory.mktemp("ranks"), ranks=4, steps=3, seed=3, overlap=True)


def answered(result) -> dict:
    """The command's JSON, once it succeeded."""
    assert result.code == 0, result.err
    return result.json()


def test_two_workers_give_the_answer_of_one(four_ranks, run_cli):
    here = answered(run_cli("ranks", *four_ranks.files, "--no-cache"))
    spread = answered(run_cli("ranks", *four_ranks.files, "--no-cache", "--workers", "2"))
    assert spread == here
    assert len(here["ranks"]) == 4 and len(here["inputs"]) == 4


def test_stores_cached_by_the_workers_serve_a_later_run_here(four_ranks, run_cli, cache_folder, monkeypatch):
    spread = answered(run_cli("ranks", *four_ranks.files, "--workers", "2"))
    stores = list(cache_folder.rglob("*.duckdb"))
    assert len(stores) == 4  # one store per rank file, written by the workers
    answers = list((cache_folder / "answers").glob("*.json"))
    assert len(answers) == 1
    assert answered(run_cli("ranks", *four_ranks.files)) == spread  # the kept answer
    answers[0].unlink()

    def not_read_again(*args, **kwargs):
        raise AssertionError("a rank file was read again")

    monkeypatch.setattr(store, "_load", not_read_again)
    assert answered(run_cli("ranks", *four_ranks.files)) == spread  # from the workers' stores


def test_a_changed_option_is_not_the_kept_answer(four_ranks, run_cli):
    full = answered(run_cli("ranks", *four_ranks.files))
    start, end = full["aligned_span_ns"]
    windowed = answered(run_cli("ranks", *four_ranks.files, "--range", f"{start}:{(start + end) // 2}"))
    assert windowed["aligned_span_ns"] == [start, (start + end) // 2]


@pytest.mark.parametrize("name", ["2gpu_mfu_before_nccl.sqlite", "h100_2gpu_1s_no_nccl.sqlite"])
def test_one_capture_of_two_gpus_on_workers(name, run_cli):
    path = DATA / "multi_rank" / name
    here = answered(run_cli("ranks", path, "--no-cache"))
    assert answered(run_cli("ranks", path, "--no-cache", "--workers", "2")) == here


def test_db_store_cannot_be_shared_by_workers(four_ranks, run_cli, tmp_path):
    result = run_cli("ranks", *four_ranks.files, "--db", tmp_path / "s.duckdb", "--workers", "2")
    assert result.code == 2 and result.err.count("\n") == 1 and "--db" in result.err
    assert not (tmp_path / "s.duckdb").exists()


@pytest.fixture
def short_connect_timeout(monkeypatch):
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    dask.config.refresh()
    yield
    monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
    dask.config.refresh()


def test_unreachable_scheduler(four_ranks, run_cli, short_connect_timeout):
    result = run_cli("ranks", *four_ranks.files, "--dask-address", "127.0.0.1:9")
    assert result.code == 2 and result.err.count("\n") == 1 and "no Dask scheduler reached" in result.err


# the workers cannot import this test module: its plugins travel by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class DieOnTask(WorkerPlugin):
    """A worker that dies (as the kernel's out-of-memory killer would end it) the moment it starts a task."""

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing":
            os._exit(9)


def test_a_worker_that_dies_is_one_line(four_ranks, run_cli):
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), LocalCluster(
            n_workers=1, threads_per_worker=1, dashboard_address=None, processes=True) as cluster:
        with cluster.get_client() as client:
            client.register_plugin(DieOnTask())
        result = run_cli("ranks", *four_ranks.files, "--dask-address", cluster.scheduler_address)
    assert result.code == 2 and result.err.count("\n") == 1, result.err
    assert "the Dask worker reading it died" in result.err and "rank" in result.err


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class KillScheduler(WorkerPlugin):
    """The scheduler's process is killed as a worker starts a task: the cluster goes away mid-command."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing":
            os.kill(self.pid, 9)


def test_a_cluster_that_goes_away_is_one_line(four_ranks, run_cli, tmp_path, short_connect_timeout):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen([sys.executable, "-c", "from distributed.cli.dask_scheduler import main; main()",
                                  "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = None
    try:
        worker = subprocess.Popen([sys.executable, "-c", "from distributed.cli.dask_worker import main; main()",
                                   address, "--nthreads", "1", "--no-dashboard", "--no-nanny"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from distributed import Client

        with Client(address, timeout="20s") as client:
            client.wait_for_workers(1, timeout=20)
            client.register_plugin(KillScheduler(scheduler.pid))
        started = time.monotonic()
        result = run_cli("ranks", *four_ranks.files, "--dask-address", address)
        assert time.monotonic() - started < 120
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.kill()
                process.wait()
    assert result.code == 2 and result.err.count("\n") == 1, result.err
    assert "the Dask cluster went away" in result.err or "died" in result.err


def test_json_of_the_answer_is_valid(four_ranks, run_cli):
    out = run_cli("ranks", *four_ranks.files, "--workers", "2").out
    json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
