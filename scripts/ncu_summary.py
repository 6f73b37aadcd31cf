#!/usr/bin/env python3
"""Condense Nsight Compute's text report (ncu --page details, the sections SpeedOfLight,
MemoryWorkloadAnalysis, SchedulerStats, WarpStateStats, LaunchStats, Occupancy) into one Markdown
table row per profiled kernel: time, DRAM and memory throughput, the pipes' load, occupancy, the
issue rate and the largest stall the profiler names.

usage: scripts/ncu_summary.py REPORT.txt [LABEL]   (prints Markdown to stdout)
"""
import re
import sys

FIELDS = [
    ("Duration", "time"),
    ("DRAM Throughput", "DRAM %"),
    ("Memory Throughput", "mem TB/s"),
    ("L1/TEX Cache Throughput", "L1 %"),
    ("L2 Cache Throughput", "L2 %"),
    ("Compute (SM) Throughput", "SM %"),
    ("Registers Per Thread", "regs"),
    ("Achieved Occupancy", "occupancy %"),
    ("Issued Warp Per Scheduler", "issue/cycle"),
    ("Warp Cycles Per Issued Instruction", "cycles/issue"),
]


def kernels(text):
    """Yield (name, launch, body) per profiled kernel."""
    head = re.compile(r"^  (?:void )?(\S.*?)\((?:.*)\) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\)", re.M)
    marks = list(head.finditer(text))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        name = re.sub(r"<.*", "", m.group(1)).split("::")[-1].strip()
        launch = f"{m.group(2)}x{m.group(5)}"
        yield name, launch, text[m.end():end]


def value(body, metric, unit_like=None):
    """The metric's unit and value; with unit_like, the first line whose unit contains it (the
    Memory Workload Analysis's throughput in bytes/s, not the Speed Of Light's percentage)."""
    for m in re.finditer(r"^\s+" + re.escape(metric) + r"\s+(\S+)?\s+([\d.,]+)\s*$", body, re.M):
        if unit_like is None or (m.group(1) and unit_like in m.group(1)):
            return m.group(1), m.group(2).replace(",", "")
    return None, None


def stall(body):
    m = re.search(r"stalled\s+(.*?)\.\s.*?about ([\d.]+)% of the total", body, re.S)
    if not m:
        return ""
    what = re.sub(r"\s+", " ", m.group(1))
    what = re.sub(r"^(waiting )?(for|on) ", "", what)
    return f"{what} ({m.group(2)}%)"


def main():
    text = open(sys.argv[1], errors="replace").read()
    label = sys.argv[2] if len(sys.argv) > 2 else ""
    cols = ["kernel", "grid x block"] + [c for _, c in FIELDS] + ["largest stall (share of cycles between issues)"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for name, launch, body in kernels(text):
        row = [f"{label}{name}", launch]
        for metric, _ in FIELDS:
            unit, v = value(body, metric, "byte/s" if metric == "Memory Throughput" else None)
            if v is None:
                row.append("–")
            elif metric == "Duration":
                row.append(f"{v} {unit}")
            elif metric == "Memory Throughput" and unit and "byte/s" in unit:
                scale = {"Tbyte/s": 1.0, "Gbyte/s": 1e-3, "Mbyte/s": 1e-6}.get(unit, 1.0)
                row.append(f"{float(v) * scale:.2f}")
            else:
                row.append(v)
        row.append(stall(body))
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
