"""Nsight Compute: readers, unit normalization, verdicts, grouping and the join with nsys time."""

from __future__ import annotations

import csv
import gzip
import hashlib

import pytest

from nsight_ingest import store
from tests.conftest import DATA, GPU_HEADER, SAMPLES, kernel_row, write

NCU = DATA / "ncu"
DETAILS_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
                  '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name",'
                  '"Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"')


def details_rows(result_id: int, kernel: str, metrics: list[tuple[str, str, str]]) -> list[str]:
    """Metric rows of a details page (16 fields, as ncu writes them)."""
    prefix = f'"{result_id}","1","app","host","{kernel}","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0"'
    return [f'{prefix},"Section","{name}","{unit}","{value}",' for name, unit, value in metrics]


def throughput(result_id: int, kernel: str, sm: str | None, memory: str | None, duration_us: str = "10") -> list[str]:
    metrics = [("Duration", "us", duration_us)]
    metrics += [("Compute (SM) Throughput", "%", sm)] if sm is not None else []
    metrics += [("Memory Throughput", "%", memory)] if memory is not None else []
    return details_rows(result_id, kernel, metrics)


def metric(kernel: dict, name: str) -> dict:
    return kernel["metrics"][name]


@pytest.mark.parametrize("name", ["h200_dit_raw_metrics.csv", "h200_smallapp_raw_stdout.csv",
                                  "h200_smallapp_raw_metrics_base_units.csv", "h200_smallapp_details.csv",
                                  "rtx5090_details.csv"])
def test_every_sample_parses_every_launch(name, run_cli):
    with open(NCU / name, newline="") as fh:
        rows = [r for r in csv.reader(fh) if r and r[0].isdigit()]
    out = run_cli("ncu", NCU / name).json()
    assert len(out["kernels"]) == len({r[0] for r in rows}) > 0
    assert out["unknown_units"] == []


def test_raw_values_units_and_text(run_cli):
    out = run_cli("ncu", NCU / "h200_smallapp_raw_stdout.csv").json()  # program output and ==PROF== lines first
    first = out["kernels"][0]
    assert first["name"] == "void demo::scale_kernel<float, 4>(T1 *, T1, int)"
    # "5,472" with unit ns -> 5472 ns
    assert metric(first, "gpu__time_duration.sum") == {"value": 5472.0, "unit": "ns", "base_value": 5472.0,
                                                      "base_unit": "ns"}
    assert first["duration_ns"] == 5472.0
    assert metric(first, "launch__grid_size")["value"] == 4096.0  # "4,096"
    assert metric(first, "dram__bytes_read.sum") is None           # not in this export: null
    assert out["devices"][0]["attributes"]["display_name"] == "NVIDIA H200"
    assert out["devices"][0]["attributes"]["l2_cache_size"] == 62914560.0


def test_details_units_are_normalized(run_cli):
    h200 = run_cli("ncu", NCU / "h200_smallapp_details.csv", "--all-metrics").json()["kernels"][0]
    assert metric(h200, "gpu__time_duration.sum") == {"value": 5.5, "unit": "us", "base_value": 5500.0,
                                                     "base_unit": "ns"}
    assert metric(h200, "dram__cycles_elapsed.avg.per_second")["base_value"] == pytest.approx(3.17e9)  # 3.17 Ghz
    assert metric(h200, "gpc__cycles_elapsed.max")["base_value"] == 8192.0                               # "8,192"
    rtx = run_cli("ncu", NCU / "rtx5090_details.csv").json()["kernels"][0]
    assert metric(rtx, "dram__bytes_read.sum")["base_value"] == pytest.approx(2.33e6)                     # Mbyte
    assert rtx["verdict"] == "latency_bound"  # SM 9.15 %, memory 19.66 % (the byte/s "Memory Throughput" is separate)


# Every unit of the normalization table, with the base unit and factor worked out independently here.
UNITS = {
    "nsecond": ("ns", 1), "ns": ("ns", 1), "usecond": ("ns", 1e3), "us": ("ns", 1e3), "msecond": ("ns", 1e6),
    "ms": ("ns", 1e6), "second": ("ns", 1e9), "s": ("ns", 1e9),
    "byte": ("byte", 1), "B": ("byte", 1), "Kbyte": ("byte", 1e3), "KB": ("byte", 1e3), "Mbyte": ("byte", 1e6),
    "MB": ("byte", 1e6), "Gbyte": ("byte", 1e9), "GB": ("byte", 1e9), "Tbyte": ("byte", 1e12),
    "byte/second": ("byte/s", 1), "byte/s": ("byte/s", 1), "Kbyte/second": ("byte/s", 1e3), "Kbyte/s": ("byte/s", 1e3),
    "Mbyte/second": ("byte/s", 1e6), "Mbyte/s": ("byte/s", 1e6), "Gbyte/second": ("byte/s", 1e9),
    "Gbyte/s": ("byte/s", 1e9), "Tbyte/second": ("byte/s", 1e12), "Tbyte/s": ("byte/s", 1e12),
    "hz": ("Hz", 1), "Hz": ("Hz", 1), "Khz": ("Hz", 1e3), "Mhz": ("Hz", 1e6), "Ghz": ("Hz", 1e9), "GHz": ("Hz", 1e9),
    "cycle/second": ("Hz", 1), "cycle/usecond": ("Hz", 1e6), "cycle/nsecond": ("Hz", 1e9),
    "%": ("%", 1), "byte/block": ("byte/block", 1), "Kbyte/block": ("byte/block", 1e3),
    "Mbyte/block": ("byte/block", 1e6), "cycle": ("cycle", 1), "Kcycle": ("cycle", 1e3), "Mcycle": ("cycle", 1e6),
    "": ("", 1), "block": ("block", 1), "warp": ("warp", 1), "thread": ("thread", 1), "SM": ("SM", 1),
    "cluster": ("cluster", 1), "pass": ("pass", 1), "register/thread": ("register/thread", 1),
    "%/byte": ("%/byte", 1), "%/register": ("%/register", 1), "inst": ("inst", 1), "sector": ("sector", 1),
    "request": ("request", 1),
}


def test_unit_table_is_the_one_tested():
    assert dict(store.connect().execute("SELECT unit, base_unit FROM units").fetchall()) == {
        u: b for u, (b, _) in UNITS.items()}


@pytest.mark.parametrize(("unit", "expected"), UNITS.items())
def test_each_unit(tmp_path, run_cli, unit, expected):
    path = write(tmp_path / "u.csv", DETAILS_HEADER, details_rows(0, "k", [("custom__metric", unit, "1,234.5")]))
    value = metric(run_cli("ncu", path, "--all-metrics").json()["kernels"][0], "custom__metric")
    assert value["value"] == 1234.5 and value["unit"] == unit
    assert value["base_unit"] == expected[0]
    assert value["base_value"] == pytest.approx(1234.5 * expected[1])


def test_unknown_unit_is_kept_and_reported(tmp_path, run_cli):
    path = write(tmp_path / "u.csv", DETAILS_HEADER, details_rows(0, "k", [("odd__metric", "furlong", "3")]))
    out = run_cli("ncu", path, "--all-metrics").json()
    assert metric(out["kernels"][0], "odd__metric") == {"value": 3.0, "unit": "furlong", "base_value": None,
                                                       "base_unit": None}
    assert out["unknown_units"] == [{"unit": "furlong", "metric": "odd__metric"}]


@pytest.fixture
def verdict_file(tmp_path):
    rows = []
    for i, (sm, memory) in enumerate([("50", "50"), ("80", "50"), ("75", "65"), ("50", "90"), ("59", "59.9"),
                                      ("70", "58"), ("90", None)]):
        rows += throughput(i, f"k{i}", sm, memory)
    return write(tmp_path / "verdicts.csv", DETAILS_HEADER, rows)


def test_verdicts_by_hand(verdict_file, run_cli):
    kernels = run_cli("ncu", verdict_file).json()["kernels"]
    assert [k["verdict"] for k in kernels] == [
        "latency_bound",   # both < 60
        "compute_bound",   # 80 >= 70 and 80 > 1.2 * 50
        "balanced",        # 75 >= 70 but 75 <= 1.2 * 65 = 78; 65 < 70
        "memory_bound",    # 90 >= 70 and 90 > 1.2 * 50
        "latency_bound",   # 59 and 59.9 both < 60
        "compute_bound",   # 70 >= 70 and 70 > 1.2 * 58 = 69.6
        None,              # no memory throughput
    ]


def test_verdict_thresholds_are_options(verdict_file, run_cli):
    kernels = run_cli("ncu", verdict_file, "--latency-below", "40", "--bound-at-least", "60",
                      "--dominance", "1.1").json()["kernels"]
    # (50, 50): not both < 40, neither dominates -> balanced; (75, 65): 75 > 71.5 -> compute
    assert kernels[0]["verdict"] == "balanced" and kernels[2]["verdict"] == "compute_bound"


def test_repeated_kernels_are_grouped(tmp_path, run_cli):
    rows = throughput(0, "k", "10", "20", "1") + throughput(1, "k", "30", "25", "3") + throughput(2, "k", "20", "5",
                                                                                                 "2")
    rows += throughput(3, "single", "1", "1")
    out = run_cli("ncu", write(tmp_path / "g.csv", DETAILS_HEADER, rows)).json()
    (group,) = out["groups"]
    assert group["name"] == "k" and group["launches"] == 3
    assert group["metrics"]["gpu__time_duration.sum"] == {"min": 1000.0, "median": 2000.0, "max": 3000.0,
                                                          "base_unit": "ns"}
    assert group["metrics"]["sm__throughput.avg.pct_of_peak_sustained_elapsed"]["median"] == 20.0


def test_gzip_provenance(tmp_path, run_cli):
    source = NCU / "h200_smallapp_details.csv"
    target = tmp_path / "d.csv.gz"
    target.write_bytes(gzip.compress(source.read_bytes()))
    (entry,) = run_cli("ncu", target).json()["inputs"]
    assert entry["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    assert entry["content_sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert entry["role"] == "ncu_details" and entry["rows"] == 4


def test_ncu_names_get_the_nsys_components(run_cli):
    """The DiT block profiled by ncu: its LayerNorm (ncu dialect) is norm_and_rope like in nsys."""
    kernels = run_cli("ncu", NCU / "h200_dit_raw_metrics.csv").json()["kernels"]
    norms = [k for k in kernels if "vectorized_layer_norm_kernel" in k["name"]]
    assert norms and all(k["component"] == "norm_and_rope" for k in norms)
    assert all(k["name"].startswith("void at::<unnamed>::") for k in norms)  # ncu spelling, no native::


def test_classify_with_ncu_splits_component_time_by_verdict(tmp_path, run_cli):
    nsys_gemm = "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<float>>(int)"
    ncu_gemm = "void at::vectorized_elementwise_kernel<4, at::FillFunctor<float>>(int)"
    nsys_norm = "void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>(int)"
    ncu_norm = "void at::<unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int)"
    trace = write(tmp_path / "j_cuda_gpu_trace.csv", GPU_HEADER, [
        kernel_row(0, 300, nsys_gemm), kernel_row(400, 100, "unprofiled_kernel"),
        kernel_row(600, 100, nsys_norm), kernel_row(800, 300, nsys_norm),
    ])
    ncu_file = write(tmp_path / "prof.csv", DETAILS_HEADER,
                     throughput(0, ncu_gemm, "90", "20") + throughput(1, ncu_norm, "30", "80")
                     + throughput(2, ncu_norm, "30", "40") + throughput(3, ncu_norm, "30", "90"))
    out = run_cli("classify", trace, "--ncu", ncu_file).json()
    # other: fill 300 ns compute bound (90 vs 20), 100 ns unprofiled -> 75 % compute, 75 % profiled, SM 90 %
    other = out["components"]["other"]["ncu"]
    assert other["profiled_percent"] == pytest.approx(75.0)
    assert other["compute_bound_percent"] == pytest.approx(75.0)
    assert other["sm_throughput_pct"] == pytest.approx(90.0)
    # norm: 3 profiles, medians SM 30 / memory 80 -> memory bound for all 400 ns
    norm = out["components"]["norm_and_rope"]["ncu"]
    assert norm["memory_bound_percent"] == pytest.approx(100.0)
    assert norm["memory_throughput_pct"] == pytest.approx(80.0)
    assert out["components"]["sage2"]["ncu"] is None
    assert [i["role"] for i in out["inputs"]] == ["gpu_trace", "ncu_details"]


def test_raw_page_without_table_or_units(tmp_path, run_cli):
    errors = tmp_path / "failed.csv"
    errors.write_text("==PROF== Connected to process 1\n==ERROR== The application returned an error code (1).\n"
                      "==WARNING== No kernels were profiled.\n")
    result = run_cli("ncu", errors)
    assert result.code == 2 and "no CSV table found, only console output" in result.err
    lines = (NCU / "h200_smallapp_raw_stdout.csv").read_text().splitlines()
    no_units = tmp_path / "nounits.csv"
    no_units.write_text("\n".join(lines[:4] + lines[5:]) + "\n")
    result = run_cli("ncu", no_units)
    assert result.code == 2 and "without its units row" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_nsys_sample_is_not_an_ncu_file(run_cli):
    result = run_cli("ncu", SAMPLES / "h200_dit_oneblock_cuda_gpu_trace.csv")
    assert result.code == 2 and "is a cuda_gpu_trace report, expected ncu_raw" in result.err


def test_console_lines_after_the_table(tmp_path, run_cli):
    text = (NCU / "h200_smallapp_raw_stdout.csv").read_text()
    path = tmp_path / "trailing.csv"
    path.write_text(text + "==PROF== Report: /tmp/x.ncu-rep\nprogram output after profiling\n")
    out = run_cli("ncu", path).json()
    assert len(out["kernels"]) == 4
    assert out["kernels"][0]["duration_ns"] == 5472.0


def test_ncu_names_get_the_nsys_families(run_cli):
    """The LLM-serving capture profiled by ncu: every profiled kernel (ncu spelling) gets the family its nsys
    spelling gets in classify; the two meet on kernel_key."""

    llm = DATA / "h200_llm_serve"
    top = run_cli("classify", llm / "llm2.sqlite", "--top", "1000").json()["top_kernels"]
    nsys_family = {k["kernel_key"]: k["family"] for k in top}
    kernels = run_cli("ncu", llm / "llm2_ncu_raw.csv").json()["kernels"]
    con = store.connect()
    keys = [con.execute("SELECT kernel_key(?)", [k["name"]]).fetchone()[0] for k in kernels]
    matched = [(k["family"], nsys_family[key]) for k, key in zip(kernels, keys, strict=True) if key in nsys_family]
    assert len(matched) >= 0.9 * len(kernels) and len({family for family, _ in matched}) >= 4
    assert all(ncu == nsys for ncu, nsys in matched)


def test_classify_table_shows_the_ncu_split_per_component(run_cli):
    """classify --ncu --format table: one row per component ncu profiled, with the JSON's shares and throughputs;
    components without profiled kernels have none."""
    from rich.console import Console

    from nsight_ingest.analysis import classify

    folder = DATA / "h200_llm_serve"
    result = run_cli("classify", folder / "llm2.sqlite", "--ncu", folder / "llm2_ncu_raw.csv").json()
    console = Console(width=1000, record=True)
    classify.print_table(result, console)
    text = console.export_text()
    table = text[text.index("ncu verdicts by component"):text.index("kernel families")]
    rows = {cells[0]: cells[1:] for line in table.splitlines()
            if len(cells := [c.strip() for c in line.split("│")]) == 8}
    profiled = {name: c["ncu"] for name, c in result["components"].items() if c["ncu"]}
    assert set(rows) == set(profiled) == {"norm_and_rope", "other"}
    for name, n in profiled.items():
        assert rows[name] == [f"{n[k]:.2f}%" for k in ("profiled_percent", "compute_bound_percent",
                                                        "memory_bound_percent", "latency_bound_percent",
                                                        "balanced_percent")] + \
            [f"{n['sm_throughput_pct']:,.2f}", f"{n['memory_throughput_pct']:,.2f}"]
    assert rows["norm_and_rope"][0] == "100.00%" and rows["norm_and_rope"][3] == "100.00%"
