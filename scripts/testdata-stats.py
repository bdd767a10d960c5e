#!/usr/bin/env python3
"""Write the hand-made profiles of testdata/stats/ (the inputs of the test
vectors V5-V7, V11 and V12 in docs/statistics.md): thirteen symbols with chosen counts,
plus `rest_of_kernel` so that each run's total (the sum of its lines, in
folded format) is the exposure stated below.

    python3 scripts/testdata-stats.py testdata/stats
"""
import os
import sys

SYMS = ["a_stable_big", "b_stable", "c_noisy", "d_regressed", "e_stable", "f_stable",
        "g_stable", "h_improved", "i_stable", "j_stable", "k_new", "l_noisy_small", "m_rare"]
RUNS = {  # name: (counts per symbol, run total)
    "old1": ([1200, 800, 400, 300, 200, 150, 100, 80, 60, 40, 0, 30, 3], 10000),
    "old2": ([1250, 760, 460, 310, 190, 160, 95, 85, 58, 45, 0, 20, 2], 10000),
    "new1": ([1180, 820, 380, 450, 210, 140, 105, 40, 62, 42, 120, 25, 1], 10000),
    "new2": ([1300, 790, 520, 470, 205, 170, 98, 38, 55, 41, 135, 35, 4], 10050),
    "rep1": ([1210, 790, 430, 305, 195, 155, 99, 82, 61, 43, 0, 26, 2], 10000),
    "rep2": ([1240, 805, 390, 295, 205, 148, 102, 79, 57, 44, 0, 33, 4], 9900),
    "rep3": ([1190, 770, 470, 312, 188, 162, 96, 84, 60, 39, 0, 22, 1], 10100),
    # V11 (separated rows): new1/new2 with e_stable tripled and more,
    # h_improved at a quarter
    "sep-new1": ([1180, 820, 380, 450, 600, 140, 105, 20, 62, 42, 120, 25, 1], 10000),
    "sep-new2": ([1300, 790, 520, 470, 900, 170, 98, 17, 55, 41, 135, 35, 4], 10050),
}



def filter_runs():
    """V12 (independent filtering, section 8.3): 20 symbols that double
    (counts 120-405, each run within 25%), 16 stable ones (200-1100, within
    8%) and 150 rare ones (0-3 a run), 2+2 runs of 60000 samples; the
    scatter is a fixed linear congruential sequence, so the files are the
    same on every run of this script."""
    state = [7]

    def u():
        state[0] = (state[0] * 1103515245 + 12345) % 2**31
        return state[0] / 2**31

    names, runs = [], {k: [] for k in ("filt-old1", "filt-old2", "filt-new1", "filt-new2")}
    for i in range(20):
        names.append(f"chg_{i:02d}")
        for k in ("filt-old1", "filt-old2"):
            runs[k].append(round((120 + 15 * i) * (1 + 0.25 * (2 * u() - 1))))
        for k in ("filt-new1", "filt-new2"):
            runs[k].append(round(2 * (120 + 15 * i) * (1 + 0.25 * (2 * u() - 1))))
    for i in range(16):
        names.append(f"stable_{i:02d}")
        for k in runs:
            runs[k].append(round((200 + 60 * i) * (1 + 0.08 * (2 * u() - 1))))
    for i in range(150):
        names.append(f"rare_{i:03d}")
        for k in runs:
            runs[k].append(int(u() * 4))
    return names, runs


out = sys.argv[1] if len(sys.argv) > 1 else "testdata/stats"
os.makedirs(out, exist_ok=True)
for name, (counts, total) in RUNS.items():
    rest = total - sum(counts)
    assert rest > 0
    with open(os.path.join(out, name + ".folded"), "w") as f:
        for s, c in zip(SYMS, counts):
            if c:
                f.write(f"{s} {c}\n")
        f.write(f"rest_of_kernel {rest}\n")
names, runs = filter_runs()
for name, counts in runs.items():
    rest = 60000 - sum(counts)
    assert rest > 0
    with open(os.path.join(out, name + ".folded"), "w") as f:
        for s, c in zip(names, counts):
            if c:
                f.write(f"{s} {c}\n")
        f.write(f"rest_of_kernel {rest}\n")
