#!/usr/bin/env python3
"""DuckDB (embedded) over a diffprofile counts table, README "Archives past
one machine": since which kernel has SYMBOL been growing, on which
benchmarks?

Reads TABLE (a Parquet file, or a directory of them such as several
`export --shard` outputs), computes SYMBOL's share of every kernel's samples
per benchmark (runs pooled, as diffprofile pools them: the sum of the
symbol's counts over the sum of the runs' totals), finds the benchmarks
where it grew against BASELINE and the first kernel where it did, and
writes those benchmarks' rows back as Parquet twice, for diffprofile to
read: OUTDIR/growing.parquet (one file) and OUTDIR/by-benchmark/ (hive
partitions, benchmark=NAME/*.parquet). Prints the answer as JSON on stdout.

Usage: engine-duckdb.py TABLE OUTDIR SYMBOL BASELINE
"""
import json
import os
import sys

import duckdb

HISTORY = """
WITH runs AS (
    SELECT DISTINCT kernel, benchmark, source, run, run_total FROM counts
), totals AS (
    SELECT kernel, benchmark, count(*) AS runs, sum(run_total) AS samples
    FROM runs GROUP BY kernel, benchmark
), hits AS (
    SELECT kernel, benchmark, sum(count) AS samples
    FROM counts WHERE symbol = {symbol} GROUP BY kernel, benchmark
)
SELECT t.benchmark, t.kernel, t.runs, 100 * coalesce(h.samples, 0) / t.samples AS share
FROM totals t LEFT JOIN hits h USING (kernel, benchmark)
ORDER BY t.benchmark, t.kernel
"""

GROWING = """
SELECT h.benchmark, min(h.kernel) AS since
FROM history h JOIN history b ON b.benchmark = h.benchmark AND b.kernel = {baseline}
WHERE h.kernel > {baseline} AND h.share > b.share
GROUP BY h.benchmark ORDER BY h.benchmark
"""


def text(s):
    """A SQL string literal (DDL and COPY take no prepared parameters)."""
    return "'" + s.replace("'", "''") + "'"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    table, out, symbol, baseline = sys.argv[1:]
    con = duckdb.connect()
    files = os.path.join(table, "**", "*.parquet") if os.path.isdir(table) else table
    con.execute(
        f"CREATE VIEW counts AS SELECT * FROM read_parquet({text(files)}, hive_partitioning = true)"
    )
    con.execute("CREATE TABLE history AS " + HISTORY.format(symbol=text(symbol)))
    history = con.execute("SELECT * FROM history").fetchall()
    growing_sql = GROWING.format(baseline=text(baseline))
    growing = con.execute(growing_sql).fetchall()
    os.makedirs(out, exist_ok=True)
    subset = f"SELECT * FROM counts WHERE benchmark IN (SELECT benchmark FROM ({growing_sql}))"
    for target, options in [
        ("growing.parquet", "FORMAT parquet"),
        ("by-benchmark", "FORMAT parquet, PARTITION_BY (benchmark)"),
    ]:
        path = text(os.path.join(out, target))
        con.execute(f"COPY ({subset}) TO {path} ({options})")
    json.dump(
        {
            "symbol": symbol,
            "history": [
                {"benchmark": b, "kernel": k, "runs": n, "share": s} for b, k, n, s in history
            ],
            "growing": [{"benchmark": b, "since": k} for b, k in growing],
        },
        sys.stdout,
        indent=1,
    )
    print()


if __name__ == "__main__":
    main()
