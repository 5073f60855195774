"""Each registered analysis keeps its declarations: its JSON has the keys it names, and it queries only the SQL
modules it names (and what they require), on a real capture with its NVTX ranges and on a window of it."""

from __future__ import annotations

import pytest

from nsight_ingest import pipeline, registry, sqlmodules, store, windows
from nsight_ingest.rules import load_rule_set
from tests.conftest import DATA, SAMPLES

ANALYSES = [*registry.CAPTURE_COMMANDS, registry.AUDIT]


@pytest.mark.parametrize("analysis", ANALYSES, ids=lambda a: a.name)
@pytest.mark.parametrize("window", [None, windows.time_range("0:20000000")], ids=["capture", "window"])
def test_analysis_answers_with_its_keys_from_its_modules(analysis, window):
    run = pipeline.Run(store.connect(), load_rule_set())
    capture = pipeline.open_capture(run, pipeline.CaptureFiles(
        str(SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv"), ncu=(str(DATA / "ncu" / "h200_dit_raw_metrics.csv"),)))
    scope = pipeline.capture_scope(run, capture, window)
    result = analysis.answer(scope, capture, analysis.defaults())
    assert set(analysis.keys) <= set(result), f"{analysis.name} lacks {set(analysis.keys) - set(result)}"
    allowed = {name for name, _ in sqlmodules.order(analysis.modules, scope.substitutes)}
    assert set(scope.seconds) <= allowed, f"{analysis.name} queries undeclared {set(scope.seconds) - allowed}"


def test_every_declared_module_exists():
    for analysis in ANALYSES:
        sqlmodules.order(analysis.modules)  # raises on a module that does not exist
        assert len(set(analysis.keys)) == len(analysis.keys)
