#!/usr/bin/env python3
"""Write the hand-made profiles of testdata/stats/ (the inputs of the test
vectors V5-V7 and V11 in docs/statistics.md): thirteen symbols with chosen counts,
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
