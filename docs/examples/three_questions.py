"""Three questions about an LLM-serving capture, asked from Python (run by the tests on the bundled capture).

    python docs/examples/three_questions.py [CAPTURE]     (default: sample_traces/h200_llm_serve.sqlite)

1. Where does the kernel time go? The kernel families, largest first.
2. How long was the GPU idle, and why? The idle time split by cause.
3. What should be fixed first? The findings, ranked by the most time fixing each could save.
"""

import sys
from pathlib import Path

import nsight_ingest

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    capture = nsight_ingest.open(sys.argv[1] if len(sys.argv) > 1 else ROOT / "sample_traces" / "h200_llm_serve.sqlite")

    # 1. Where does the kernel time go? (a DataFrame of the families, one row per family)
    where = capture.classify()
    families = where.frames()["families"].sort_values("milliseconds", ascending=False)
    print(f"kernel time {where.to_dict()['kernel_time_ns'] / 1e6:.3f} ms, by family:")
    for family, row in families[families["milliseconds"] > 0].iterrows():
        print(f"  {family:<14} {row['milliseconds']:9.3f} ms")

    # 2. How long was the GPU idle, and why? (the same answer's idle block: each nanosecond has one cause)
    idle = where.to_dict()["idle"]
    print(f"idle {idle['kernel_idle_ns'] / 1e6:.3f} ms:")
    for cause in ("inactive_ns", "untraced_graph_ns", "memory_transfer_ns", "synchronization_ns", "cpu_launch_ns",
                  "other_ns"):
        if idle[cause] is not None:
            print(f"  {cause.removesuffix('_ns'):<18} {idle[cause] / 1e6:9.3f} ms")

    # 3. What should be fixed first? (findings, most time to gain first)
    found = capture.findings().to_dict()["findings"]
    print(f"{len(found)} finding(s):")
    for finding in found:
        print(f"  [{finding['severity']}] {finding['id']}: up to {finding['gain_ceiling_ns'] / 1e6:.3f} ms")


if __name__ == "__main__":  # reading an .sqlite starts worker processes, which import this script
    main()
