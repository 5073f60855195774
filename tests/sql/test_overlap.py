"""classify.timeline alone: launch gaps and the unions of launch-call and kernel intervals, on rows given here.

One character is 10 ns; the ruler marks every 100 ns. Kernels are numbered, launch calls are letters.

    ns/100     0         1         2         3         4         5         6         7
    A kernels            1111111111          33333     44        55555555558
                              2222222222
    B kernels                       66666                                            77
    A calls         aaaaaaa                        aa      aaaaaaaa
                          aa
    B calls                                                                     bbbb

    device A (index 0): kernels 1 [100,200) 2 [150,250) 3 [300,350) 4 [400,420) 5 [500,600) 8 [600,610)
                        calls [50,120) [110,130) [360,380) [440,520)
    device B (index 1): kernels 6 [210,260) 7 [700,720); call [650,690)
"""

from __future__ import annotations

import pytest

from tests.sql.conftest import given

KERNELS = [("A", 0, 100, 200), ("A", 0, 150, 250), ("A", 0, 300, 350), ("A", 0, 400, 420), ("A", 0, 500, 600),
           ("A", 0, 600, 610), ("B", 1, 210, 260), ("B", 1, 700, 720)]
CALLS = [(0, 50, 120), (0, 110, 130), (0, 360, 380), (0, 440, 520), (1, 650, 690)]


def give(scope, kernels=KERNELS, calls=CALLS) -> None:
    given(scope, "scope.kernels", ["device", "device_index", "start_ns", "end_ns"], kernels)
    given(scope, "scope.launches", ["device_index", "api_start_ns", "api_end_ns"], calls)


def timeline(**columns) -> dict:
    return {"positive_gap_count": columns["count"], "gap_total_ns": columns["total"], "gap_maximum_ns": columns["max"],
            "api_union_ns": columns["api"], "kernel_union_ns": columns["kernel"], "either_union_ns": columns["either"]}


def test_every_device(scope):
    """Both devices on one timeline. Kernels by start: 1 2 6 3 4 5 8 7; the latest earlier kernel end before each:
    2: 200, 6: 250, 3: 260 (gap 40), 4: 350 (gap 50), 5: 420 (gap 80), 8: 600 (touches: 0, no gap),
    7: 610 (gap 90): 4 gaps, 40 + 50 + 80 + 90 = 260, the largest 90.
    kernels: [100,260) 160 + [300,350) 50 + [400,420) 20 + [500,610) 110 + [700,720) 20 = 360
    calls:   [50,130) 80 + [360,380) 20 + [440,520) 80 + [650,690) 40 = 220
    either:  [50,260) 210 + [300,350) 50 + [360,380) 20 + [400,420) 20 + [440,610) 170 + [650,690) 40
             + [700,720) 20 = 530
    (overlap 220 + 360 - 530 = 50: [100,130) and [500,520))"""
    give(scope)
    assert scope.row("classify.timeline", device=None) == timeline(
        count=4, total=260, max=90, api=220, kernel=360, either=530)


def test_one_device(scope):
    """Device A alone, with its calls only (index 0): gaps before 3 (300 - 250 = 50), 4 (50), 5 (80): 3, 180, 80.
    kernels: [100,250) 150 + 50 + 20 + [500,610) 110 = 330;  calls: 80 + 20 + 80 = 180;
    either: [50,250) 200 + 50 + 20 + 20 + [440,610) 170 = 460 (overlap 180 + 330 - 460 = 50)."""
    give(scope)
    assert scope.row("classify.timeline", device="A") == timeline(
        count=3, total=180, max=80, api=180, kernel=330, either=460)


def test_other_device(scope):
    """Device B: one gap 700 - 260 = 440; kernels 50 + 20 = 70; call 40; either 50 + 40 + 20 = 110 (no overlap)."""
    give(scope)
    assert scope.row("classify.timeline", device="B") == timeline(
        count=1, total=440, max=440, api=40, kernel=70, either=110)


def test_without_launch_rows_the_call_union_is_null(scope):
    """No kern_exec rows: no call intervals, api_union_ns NULL; either = kernels = 360 (as in test_every_device)."""
    give(scope, calls=[])
    assert scope.row("classify.timeline", device=None) == timeline(
        count=4, total=260, max=90, api=None, kernel=360, either=360)


@pytest.mark.parametrize("device", [None, "C"])
def test_nothing_to_look_at(scope, device):
    """No kernels (none at all, or none on device C): no gaps, empty unions; the calls of a device without
    kernels are not looked at either."""
    give(scope, kernels=[] if device is None else KERNELS, calls=[] if device is None else CALLS)
    assert scope.row("classify.timeline", device=device) == timeline(
        count=0, total=0, max=0, api=None, kernel=0, either=0)


def test_device_without_index_keeps_its_calls(scope):
    """Kernel [100,200) on '(no device)' (index NULL), its call [50,150) stored with index 0 (scope.launches
    gives 0 when the export has none): calls 100, kernels 100, either [50,200) 150, as with device=None."""
    give(scope, kernels=[("(no device)", None, 100, 200)], calls=[(0, 50, 150)])
    assert scope.row("classify.timeline", device=None) == timeline(
        count=0, total=0, max=0, api=100, kernel=100, either=150)
    assert scope.row("classify.timeline", device="(no device)") == timeline(
        count=0, total=0, max=0, api=100, kernel=100, either=150)
