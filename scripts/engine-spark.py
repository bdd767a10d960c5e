#!/usr/bin/env python3
"""Apache Spark (pyspark, local mode) over a diffprofile counts table that N
machines exported in shards (`diffprofile export --shard K/N`), README
"Archives past one machine".

Reads the shard files as one table, computes SYMBOL's share of every
kernel's samples per benchmark (runs pooled, as diffprofile pools them) and
the benchmarks where it grew against BASELINE, and writes the merged table
back as Spark writes tables (OUTDIR: part-*.parquet, snappy, _SUCCESS),
for diffprofile to read. Prints the answer as JSON on stdout.

Usage: engine-spark.py OUTDIR SYMBOL BASELINE SHARD.parquet...
Environment: SPARK_MASTER (default local[2]), SPARK_DRIVER_MEMORY (512m).
"""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    out, symbol, baseline, shards = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    spark = (
        SparkSession.builder.master(os.environ.get("SPARK_MASTER", "local[2]"))
        .appName("diffprofile-symbol-history")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "512m"))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    counts = spark.read.parquet(*shards)
    runs = counts.select("kernel", "benchmark", "source", "run", "run_total").distinct()
    totals = runs.groupBy("kernel", "benchmark").agg(
        F.count("*").alias("runs"), F.sum("run_total").alias("samples")
    )
    hits = (
        counts.where(F.col("symbol") == symbol)
        .groupBy("kernel", "benchmark")
        .agg(F.sum("count").alias("hits"))
    )
    history = (
        totals.join(hits, ["kernel", "benchmark"], "left")
        .fillna(0.0, ["hits"])
        .select("benchmark", "kernel", "runs", (100 * F.col("hits") / F.col("samples")).alias("share"))
        .orderBy("benchmark", "kernel")
    )
    base = history.where(F.col("kernel") == baseline).select(
        "benchmark", F.col("share").alias("base_share")
    )
    growing = (
        history.join(base, "benchmark")
        .where((F.col("kernel") > baseline) & (F.col("share") > F.col("base_share")))
        .groupBy("benchmark")
        .agg(F.min("kernel").alias("since"))
        .orderBy("benchmark")
    )
    answer = {
        "symbol": symbol,
        "history": [r.asDict() for r in history.collect()],
        "growing": [r.asDict() for r in growing.collect()],
    }
    # The engine's merge of the shards: rows shuffled into three files.
    counts.repartition(3, "benchmark").write.mode("overwrite").parquet(out)
    spark.stop()
    json.dump(answer, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
