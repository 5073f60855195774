"""Each registered analysis keeps its word (its JSON has the keys its entry names; it asks only for the SQL modules
its entry names, or their requirements): the pipeline checks every answer, so answering on real inputs is the test.
A broken entry is a bug (ModuleError, exit 3)."""

from __future__ import annotations

import dataclasses

import pytest

from nsight_ingest import pipeline, ranks_job, registry, runs, sqlcatalog, store, windows
from nsight_ingest.readers.capture import CaptureFiles
from nsight_ingest.rules import load_rule_set
from tests.conftest import DATA, SAMPLES

GPU = str(SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv")
NCU = str(DATA / "ncu" / "h200_dit_raw_metrics.csv")
ALL = registry.ALL


def new_run() -> runs.Run:
    return runs.Run(store.connect(), load_rule_set())


def capture_answer(analysis: registry.Analysis, window: windows.Window | None) -> dict:
    run = new_run()
    capture = runs.open_capture(run, CaptureFiles(GPU, ncu=(NCU,)))
    return runs.answered(analysis, runs.capture_scope(run, capture, window), capture, analysis.defaults())


@pytest.mark.parametrize("analysis", [*registry.CAPTURE_COMMANDS, registry.AUDIT], ids=lambda a: a.name)
@pytest.mark.parametrize("window", [None, windows.time_range("0:20000000")], ids=["capture", "window"])
def test_capture_analyses_keep_their_word(analysis, window):
    assert set(analysis.keys) <= set(capture_answer(analysis, window))


def test_the_other_analyses_keep_their_word(tmp_path):
    ncu = pipeline.answer(new_run(), registry.NCU, pipeline.Request(ncu_files=(NCU,)))
    assert set(registry.NCU.keys) <= set(ncu)
    ranks = ranks_job.analyse_ranks(new_run(), [CaptureFiles(str(DATA / "multi_rank" /
                                                                         "2gpu_mfu_before_nccl.sqlite"))],
                                   registry.RANKS.defaults())
    assert set(registry.RANKS.keys) <= set(ranks)
    graph = CaptureFiles(str(SAMPLES / "h200_dit_graph_cuda_gpu_trace.csv"))
    compared = pipeline.answer(new_run(), registry.COMPARE, pipeline.Request((CaptureFiles(GPU), graph)))
    assert set(registry.COMPARE.keys) <= set(compared)
    timings = tmp_path / "t.csv"
    timings.write_text("trial,variant,update,seconds\n" + "".join(
        f"{t},{v},{u},{s}\n" for t, v, s in ((1, "before", 2.0), (2, "after", 1.0), (3, "after", 1.0),
                                             (4, "before", 2.0)) for u in range(1, 5)))
    abba = pipeline.answer(new_run(), registry.COMPARE, pipeline.Request(timings=timings))
    assert set(registry.ABBA.keys) <= set(abba) and abba["design"] == "ABBA"


def test_a_broken_entry_is_a_bug():
    missing_key = dataclasses.replace(registry.QUEUE_DELAY, keys=(*registry.QUEUE_DELAY.keys, "no_such_key"))
    with pytest.raises(sqlcatalog.ModuleError, match=r"no key.*no_such_key"):
        capture_answer(missing_key, None)
    undeclared = dataclasses.replace(registry.LAUNCHES, modules=("launches.gap_percentiles",))
    with pytest.raises(sqlcatalog.ModuleError, match=r"asks for module.*launches\.launch_api"):
        capture_answer(undeclared, None)


def test_a_request_of_inputs_the_analysis_does_not_read_is_a_bug():
    with pytest.raises(ValueError, match="ncu reads ncu inputs; the request holds captures"):
        pipeline.answer(new_run(), registry.NCU, pipeline.Request((CaptureFiles(GPU),), ncu_files=(NCU,)))
    with pytest.raises(ValueError, match="classify reads capture inputs; the request holds timings"):
        pipeline.answer(new_run(), registry.CLASSIFY, pipeline.Request(timings=DATA / "timings.csv"))


def test_a_module_asked_for_earlier_on_a_shared_scope_is_still_checked(monkeypatch):
    """classify and launches share one scope, and classify asks for launches.launch_api first: launches asking for
    it again must still declare it."""
    undeclared = dataclasses.replace(registry.LAUNCHES, modules=tuple(
        m for m in registry.LAUNCHES.modules if m != "launches.launch_api"))
    monkeypatch.setattr(pipeline, "LAUNCHES", undeclared)
    with pytest.raises(sqlcatalog.ModuleError, match=r"launches\.launch_api"):
        pipeline.classify_and_launches(new_run(), CaptureFiles(GPU))


def test_every_declared_module_exists():
    for analysis in ALL:
        sqlcatalog.order(analysis.modules)  # raises on a module that does not exist
        assert len(set(analysis.keys)) == len(analysis.keys)
