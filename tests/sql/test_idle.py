"""idle.stretches and idle.causes alone: GPU idle time by cause, on a capture's operations, calls and launches given
here.

One character is 10 ns. Device A (index 0) is worked by process 1, device B (index 1) by process 2: their launch
rows say so. Each operation's correlation id is that of a call of its process; as in nsys, each process numbers its
own from 1, so B's operations share ids with calls of process 1.

    ns/100      0         1         2         3         4         5         6
    A kernels   1111111111               22222222222222222222222222222222222
    A memory              MMMMM                                              SSSSS   (M memcpy, S memset)
    pid 1 sync               yyyyyy                       (cudaStreamSynchronize [120,180))
    K2's launch call ends at 220: K2 starts at 250

    device A: K1 [0,100), memcpy [100,150), K2 [250,600), memset [600,650); span [0,650) = 650
      kernel union = 100 + 350 = 450; idle = [100,250) + [600,650) = 200:
        [100,150) memory 50   [150,180) synchronization 30   [180,220) CPU launch 40   [220,250) other 30
        [600,650) memory 50 (after the last kernel: no next kernel, so never CPU launch)
      => memory 100, synchronization 30, cpu_launch 40, other 30

    device B: K3 [1000,1100), K4 [1300,1400) whose launch call ends at 1350 (after the kernel started);
      pid 1 syncs [1100,1200) (not B's process), pid 2 syncs [1250,1280); span [1000,1400) = 400, union 200:
        [1100,1250) CPU launch 150   [1250,1280) synchronization 30   [1280,1300) CPU launch 20
      => synchronization 30, cpu_launch 170

    The capture's span is [0,1400): A runs nothing after 650 (inactive 750: idle 200 + 750 = 950), B nothing before
    1000 (inactive 1000: idle 200 + 1000 = 1200); each device's union and idle add up to the span, 1400.
"""

from __future__ import annotations

from nsight_ingest import sqlmodules, store
from tests.sql.conftest import CAPTURE_VALUES, given

A, B = "GPU A", "GPU B"
OPS = [  # op_kind, device, device_index, start, end, corr_id
    ("kernel", A, 0, 0, 100, 1), ("memcpy", A, 0, 100, 150, 2), ("kernel", A, 0, 250, 600, 3),
    ("memset", A, 0, 600, 650, 4), ("kernel", B, 1, 1000, 1100, 1), ("kernel", B, 1, 1300, 1400, 2)]
CALLS = [  # name, start, end, corr_id, pid
    ("cudaLaunchKernel", 0, 5, 1, 1), ("cudaMemcpyAsync", 90, 95, 2, 1),
    ("cudaStreamSynchronize", 120, 180, None, 1), ("cudaLaunchKernel", 200, 220, 3, 1),
    ("cudaMemsetAsync", 590, 600, 4, 1), ("cudaDeviceSynchronize_v3020", 1100, 1200, None, 1),
    ("cudaLaunchKernel", 990, 995, 1, 2), ("cuStreamSynchronize", 1250, 1280, None, 2),
    ("cudaLaunchKernel", 1200, 1350, 2, 2), ("cudaEventRecord", 1290, 1295, None, 2)]
# device index, kernel start, launch call start, launch call end, pid
LAUNCHES = [(0, 0, 0, 5, 1), (0, 250, 200, 220, 1), (1, 1000, 990, 995, 2), (1, 1300, 1200, 1350, 2)]


def give(scope, ops=OPS, calls=CALLS, launches=LAUNCHES) -> None:
    given(scope, "scope.capture_ops", ["op_kind", "device", "device_index", "start_ns", "end_ns", "corr_id"], ops)
    given(scope, "scope.capture_api_calls", ["name VARCHAR", "start_ns", "end_ns", "corr_id", "pid"], calls)
    given(scope, "scope.capture_launches", ["device_index", "kernel_start_ns", "api_start_ns", "api_end_ns", "pid"],
          launches)


def causes(scope) -> dict:
    return {r.pop("device"): r for r in scope.rows("idle.causes")}


def test_each_nanosecond_gets_one_cause(scope):
    give(scope)
    found = causes(scope)
    assert found[A] == {"kernel_idle_ns": 950, "inactive_ns": 750, "untraced_graph_ns": 0, "memory_transfer_ns": 100,
                        "synchronization_ns": 30, "cpu_launch_ns": 40, "other_ns": 30}
    assert found[B] == {"kernel_idle_ns": 1200, "inactive_ns": 1000, "untraced_graph_ns": 0, "memory_transfer_ns": 0,
                        "synchronization_ns": 30, "cpu_launch_ns": 170, "other_ns": 0}
    assert found[None] == {"kernel_idle_ns": 2150, "inactive_ns": 1750, "untraced_graph_ns": 0,
                           "memory_transfer_ns": 100, "synchronization_ns": 60, "cpu_launch_ns": 210, "other_ns": 30}
    for device in (A, B, None):  # the causes sum to the idle time
        assert sum(v for k, v in found[device].items() if k != "kernel_idle_ns") == found[device]["kernel_idle_ns"]


def test_stretches_end_at_the_next_kernel(scope):
    give(scope)
    scope.build("idle.stretches")
    rows = scope.con.execute("SELECT device, start_ns, end_ns, next_kernel_start_ns, memory_transfer_ns, "
                             "synchronization_ns, cpu_launch_ns, other_ns FROM idle_stretches ORDER BY device, start_ns"
                             ).fetchall()
    assert rows == [(A, 100, 250, 250, 50, 30, 40, 30), (A, 600, 650, None, 50, 0, 0, 0),
                    (B, 1100, 1300, 1300, 0, 30, 170, 0)]


def test_concurrent_kernels_leave_no_idle_time(scope):
    """Kernels of two streams overlapping, touching and nested: the union has no hole, nothing is idle."""
    ops = [("kernel", A, 0, 0, 100, 1), ("kernel", A, 0, 50, 300, 2), ("kernel", A, 0, 100, 120, 3),
           ("kernel", A, 0, 300, 310, 4)]
    give(scope, ops=ops, calls=[], launches=[])
    assert causes(scope)[A] == {"kernel_idle_ns": 0, "inactive_ns": 0, "untraced_graph_ns": 0,
                                "memory_transfer_ns": 0, "synchronization_ns": 0, "cpu_launch_ns": 0, "other_ns": 0}


def test_without_calls_or_launches_the_time_falls_to_other(scope):
    """No API calls: no synchronization; no launch rows: no CPU launch; the idle time is then other (but memory)."""
    give(scope, calls=[], launches=[])
    found = causes(scope)
    assert (found[A]["memory_transfer_ns"], found[A]["synchronization_ns"], found[A]["cpu_launch_ns"],
            found[A]["other_ns"]) == (100, 0, 0, 100)
    assert found[B]["other_ns"] == 200


def test_processes_are_tied_to_devices_by_their_launches(scope):
    """B's operations share correlation ids with process 1's calls, yet process 1 launched nothing on B."""
    give(scope)
    scope.build("scope.device_processes")
    assert sorted(scope.con.execute("SELECT device, pid FROM device_processes").fetchall()) == [(A, 1), (B, 2)]


def test_without_launch_rows_correlation_ties_processes(scope):
    """No launch rows: the correlation ids tie processes to devices (distinct ids here); no time is CPU launch."""
    ops = [op if op[1] == A else (*op[:5], op[5] + 10) for op in OPS]
    calls = [c if c[4] == 1 or c[3] is None else (*c[:3], c[3] + 10, c[4]) for c in CALLS]
    give(scope, ops=ops, calls=calls, launches=[])
    found = causes(scope)
    assert (found[B]["synchronization_ns"], found[B]["cpu_launch_ns"], found[B]["other_ns"]) == (30, 0, 170)


def test_a_device_without_launch_rows_is_tied_by_correlation(scope):
    """B's kernels have no launch rows (A's do): B falls back to correlation alone, and gets process 2 (ids of
    B's operations made distinct here)."""
    ops = [op if op[1] == A else (*op[:5], op[5] + 10) for op in OPS]
    calls = [c if c[4] == 1 or c[3] is None else (*c[:3], c[3] + 10, c[4]) for c in CALLS]
    give(scope, ops=ops, calls=calls, launches=[launch for launch in LAUNCHES if launch[0] == 0])
    found = causes(scope)
    assert (found[B]["synchronization_ns"], found[B]["cpu_launch_ns"], found[B]["other_ns"]) == (30, 0, 170)
    assert sorted(scope.con.execute("SELECT device, pid FROM device_processes").fetchall()) == [(A, 1), (B, 2)]


def test_when_nothing_ties_every_process_syncs_for_every_device(scope):
    """No launch rows and no correlation: pid 1's [1100,1200) counts on B too. B: synchronization 100 + 30, the
    rest other."""
    give(scope, ops=[(*op[:5], None) for op in OPS], launches=[])
    found = causes(scope)
    assert (found[B]["synchronization_ns"], found[B]["cpu_launch_ns"], found[B]["other_ns"]) == (130, 0, 70)
    assert scope.con.execute("SELECT count(*) FROM device_processes").fetchone()[0] == 4  # 2 devices x 2 pids


def test_a_device_with_memory_operations_alone(scope):
    """No kernel at all: the whole span is idle; the copy's time is memory transfer, the rest other."""
    give(scope, ops=[("memcpy", A, 0, 0, 100, 2), ("memset", A, 0, 150, 200, 4)], calls=[], launches=[])
    assert causes(scope)[A] == {"kernel_idle_ns": 200, "inactive_ns": 0, "untraced_graph_ns": 0,
                                "memory_transfer_ns": 150, "synchronization_ns": 0, "cpu_launch_ns": 0, "other_ns": 50}


def test_a_window_has_the_idle_time_before_its_own_kernels_within_its_span(scope):
    """A window holding K1 and K2 of A and K4 of B. A: its span [0,600) holds the stretch [100,250) before K2, causes
    as in the whole capture; the memset after A's last kernel waits for no kernel of the window. B: the stretch before
    K4 lies before the window's span there (K4 alone, [1300,1400)): between windows, it is none's. Nothing in a
    window is inactive."""
    give(scope)
    given(scope, "scope.ops", ["op_kind", "device", "start_ns", "end_ns"],
          [("kernel", A, 0, 100), ("kernel", A, 250, 600), ("kernel", B, 1300, 1400)])
    given(scope, "scope.window_ranges", ["start_ns", "end_ns"], [(0, 1400)])
    found = causes(scope)
    assert found[A] == {"kernel_idle_ns": 150, "inactive_ns": 0, "untraced_graph_ns": 0, "memory_transfer_ns": 50,
                        "synchronization_ns": 30, "cpu_launch_ns": 40, "other_ns": 30}
    assert found[B] == {"kernel_idle_ns": 0, "inactive_ns": 0, "untraced_graph_ns": 0, "memory_transfer_ns": 0,
                        "synchronization_ns": 0, "cpu_launch_ns": 0, "other_ns": 0}


def test_a_gap_holding_an_untraced_graph_replay_is_the_replays(scope):
    """Process 1 replays a CUDA graph at [60,70) (correlation id 9, which no GPU operation carries: not traced node
    by node) while K1 still runs: the GPU ran the replay in the first gap ending after the call, [100,250), so all
    150 ns of it are untraced graph time. A replay whose kernels were traced (id 3: K2 carries it) is no cause."""
    graph_calls = [("cudaGraphLaunch_v10000", 60, 70, 9, 1), ("cudaGraphLaunch_v10000", 210, 215, 3, 1)]
    give(scope, calls=CALLS + graph_calls)
    found = causes(scope)
    assert found[A] == {"kernel_idle_ns": 950, "inactive_ns": 750, "untraced_graph_ns": 150, "memory_transfer_ns": 50,
                        "synchronization_ns": 0, "cpu_launch_ns": 0, "other_ns": 0}
    assert found[B]["untraced_graph_ns"] == 0  # process 1 does not work on B
    rows = scope.con.execute("SELECT start_ns, untraced_graph_ns, memory_transfer_ns FROM idle_stretches "
                             "WHERE device = ? ORDER BY start_ns", [A]).fetchall()
    assert rows == [(100, 150, 0), (600, 0, 50)]


def test_a_replay_launched_ahead_runs_before_the_next_kernel_launched_after_it(scope):
    """The host runs ahead: it launches K1 [0,100), K2 [300,400), the untraced replay (call at 20) and K3 [600,700)
    one after another within 35 ns. In stream order the replay ran between K2 and K3: the stretch [400,600) is the
    replay's, not [100,300), the first to end after the call. Without launch rows only the time can tell: [100,300)."""
    ops = [("kernel", A, 0, 0, 100, 1), ("kernel", A, 0, 300, 400, 2), ("kernel", A, 0, 600, 700, 4)]
    calls = [("cudaLaunchKernel", 0, 5, 1, 1), ("cudaLaunchKernel", 10, 15, 2, 1),
             ("cudaGraphLaunch", 20, 25, 3, 1), ("cudaLaunchKernel", 30, 35, 4, 1)]
    launches = [(0, 0, 0, 5, 1), (0, 300, 10, 15, 1), (0, 600, 30, 35, 1)]
    give(scope, ops=ops, calls=calls, launches=launches)
    query = "SELECT start_ns, untraced_graph_ns FROM idle_stretches ORDER BY start_ns"
    scope.build("idle.stretches")
    assert scope.con.execute(query).fetchall() == [(100, 0), (400, 200)]
    unlaunched = sqlmodules.Scope(store.connect(), dict(CAPTURE_VALUES))
    give(unlaunched, ops=ops, calls=calls, launches=[])
    unlaunched.build("idle.stretches")
    assert unlaunched.con.execute(query).fetchall() == [(100, 200), (400, 0)]


def test_a_replay_of_a_process_driving_two_devices_is_counted_on_one(scope):
    """Process 1 drives A (K1 [0,100), K2 [300,400)) and B (K3 [0,100), K4 [300,400)), launching K1, K3, the
    untraced replay (call at 20), K2, K4. The first kernel it launched after the replay is K2, on A: the replay ran
    on A in [100,300); B's [100,300) is not the replay's. A second replay called after K4's launch ran after the
    process's last kernel, on B, in the stretch after it ([400,450), up to B's memset)."""
    ops = [("kernel", A, 0, 0, 100, 1), ("kernel", A, 0, 300, 400, 4), ("kernel", B, 1, 0, 100, 2),
           ("kernel", B, 1, 300, 400, 5), ("memset", B, 1, 420, 450, 7)]
    calls = [("cudaLaunchKernel", 0, 5, 1, 1), ("cudaLaunchKernel", 6, 9, 2, 1), ("cudaGraphLaunch", 20, 25, 3, 1),
             ("cudaLaunchKernel", 30, 35, 4, 1), ("cudaLaunchKernel", 40, 45, 5, 1),
             ("cudaGraphLaunch", 50, 55, 6, 1), ("cudaMemsetAsync", 60, 65, 7, 1)]
    launches = [(0, 0, 0, 5, 1), (1, 0, 6, 9, 1), (0, 300, 30, 35, 1), (1, 300, 40, 45, 1)]
    give(scope, ops=ops, calls=calls, launches=launches)
    scope.build("idle.stretches")
    rows = scope.con.execute("SELECT device, start_ns, untraced_graph_ns FROM idle_stretches ORDER BY device, start_ns"
                             ).fetchall()
    assert rows == [(A, 100, 200), (B, 100, 0), (B, 400, 50)]
