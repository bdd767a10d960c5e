#!/usr/bin/env python3
"""Independent re-implementation of diffprofile's statistics (verification).

How to verify
-------------
    cargo build --release
    # let the script run diffprofile (it adds `-o json` itself):
    python3 scripts/verify-stats.py -- /tmp/fresh/perf-report/sym-n/pipes \\
        /tmp/fresh/perf-report/sym-n/threads
    python3 scripts/verify-stats.py -- --old a/run1.txt a/run2.txt --new b/run1.txt
    # or check a JSON file written earlier (`diffprofile ... -o json > x.json`):
    python3 scripts/verify-stats.py --json x.json
    # many comparisons (A/A splits, formats, 1v1, 2v2, 1v3) on a recording set:
    bash scripts/verify-stats.sh /tmp/fresh

Written from ../shared/design/statistics.md ONLY (not from src/stats*.rs):
for every tested row (non-null `p`) it recomputes from `old_counts`,
`new_counts` and the runs' `total`s (= exposures in share mode):

  * p_exact: exact conditional binomial test, two-sided *central* p
    (statistics.md "Sampling layer"), Clopper-Pearson ratio CI;
  * >= 3 runs in all: quasi-Poisson rate-ratio test, phi = max(1, X^2/df),
    p = max(p_exact, p_quasi), ratio CI = hull, Delta CI ("Run layer");
  * one run per side: the across-symbol noise floor (tau^2 from symbols with
    x, y >= 100 when there are >= 10 of them, else --noise-cv, else sampling
    only) ("One run per side");
  * the untested set (smallest reachable p > alpha) and BH / BY / Holm q over
    the tested rows ("Many symbols at once");
  * old/new/delta/ratio values and the per-side CVs.

It compares with the JSON to 1e-3 relative (absolute floor 1e-12), prints a
summary (rows checked, max relative error per field, mismatches) and exits 1
on any mismatch, 2 on usage errors / missing scipy.

Run diffprofile WITHOUT --top / --min-delta (q is over all tested rows; hidden
rows would make the check impossible).  Modes: share (full), ticks (full);
rate/work/robust need exposures the JSON does not carry and are refused.
"""

import argparse
import json
import math
import os
import subprocess
import sys

try:
    import numpy as np  # noqa: F401  (scipy needs it anyway)
    from scipy import stats as sst
except ImportError:  # pragma: no cover
    sys.stderr.write(
        "verify-stats.py: scipy is MISSING (python3 -c 'import scipy' fails).\n"
        "Install it with `pip install scipy` (or apt-get install python3-scipy); "
        "this check needs scipy's binomial, beta, t and normal distributions.\n"
    )
    sys.exit(2)

REL_TOL = 1e-3
ABS_FLOOR = 1e-12
INF = float("inf")


# ---------------------------------------------------------------- statistics


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    if n % 2:
        return s[n // 2]
    return 0.5 * (s[n // 2 - 1] + s[n // 2])


def exact_layer(x, y, e_old, e_new, alpha):
    """Exact conditional binomial test on pooled counts x (old), y (new)."""
    k = x + y
    pi0 = e_new / (e_old + e_new)
    # P(Y >= y) and P(Y <= y), Y ~ Binomial(k, pi0); survival function for
    # the upper tail (statistics.md "Numerics").
    p_ge = 1.0 if y == 0 else float(sst.binom.sf(y - 1, k, pi0))
    p_le = 1.0 if y == k else float(sst.binom.cdf(y, k, pi0))
    p = min(1.0, 2.0 * min(p_le, p_ge))
    # Clopper-Pearson on pi, mapped to the rate ratio.
    lo_pi = 0.0 if y == 0 else float(sst.beta.ppf(alpha / 2, y, k - y + 1))
    hi_pi = 1.0 if y == k else float(sst.beta.isf(alpha / 2, y + 1, k - y))
    f = e_old / e_new

    def rr(pi):
        if pi >= 1.0:
            return INF
        return pi / (1.0 - pi) * f

    return p, (rr(lo_pi), rr(hi_pi))


def min_reachable_p(k, pi0):
    return 2.0 * min(pi0**k, (1.0 - pi0) ** k)


def run_layer(oc, nc, on, nn, alpha):
    """Quasi-Poisson rate-ratio test. oc/nc counts per run, on/nn exposures."""
    c_old, c_new = sum(oc), sum(nc)
    m_old, m_new = sum(on), sum(nn)
    r_old, r_new = c_old / m_old, c_new / m_new
    x2 = 0.0
    for cs, ns, rho in ((oc, on, r_old), (nc, nn, r_new)):
        for c, n in zip(cs, ns):
            mu = n * rho
            if mu > 0:
                x2 += (c - mu) ** 2 / mu
    df = len(oc) + len(nc) - 2
    phi = max(1.0, x2 / df)
    a, b = float(c_old), float(c_new)
    if c_old == 0 or c_new == 0:
        a += 0.5
        b += 0.5
    beta = math.log(b / m_new) - math.log(a / m_old)
    se = math.sqrt(phi * (1.0 / a + 1.0 / b))
    t = beta / se
    p = float(2.0 * sst.t.sf(abs(t), df))
    tq = float(sst.t.isf(alpha / 2, df))
    ci = (math.exp(beta - tq * se), math.exp(beta + tq * se))
    se_d = math.sqrt(phi * (c_old / m_old**2 + c_new / m_new**2))
    d = r_new - r_old
    dci = (d - tq * se_d, d + tq * se_d)
    return dict(p=min(1.0, p), ci=ci, dci=dci, phi=phi, x2=x2, df=df)


def noise_tau2(rows_counts, e_old, e_new, noise_cv):
    """Across-symbol noise floor for one run per side.

    rows_counts: list of (x, y). Returns (tau2, how, n_used, robust_sd_z)."""
    off = math.log(e_new / e_old)
    ls, vs, zs = [], [], []
    for x, y in rows_counts:
        if x >= 100 and y >= 100:
            ell = math.log(y / x) - off
            v = 1.0 / x + 1.0 / y
            ls.append(ell)
            vs.append(v)
            zs.append(ell / math.sqrt(v))
    rsd_z = None
    if zs:
        mz = median(zs)
        rsd_z = 1.4826 * median([abs(z - mz) for z in zs])
    if len(ls) >= 10:
        ml = median(ls)
        sigma = 1.4826 * median([abs(v - ml) for v in ls])
        return max(0.0, sigma**2 - median(vs)), "estimated", len(ls), rsd_z
    if noise_cv is not None:
        return 2.0 * noise_cv**2, "noise-cv", len(ls), rsd_z
    return 0.0, "sampling", len(ls), rsd_z


def noise_layer(x, y, e_old, e_new, tau2, alpha):
    a, b = float(x), float(y)
    if x == 0 or y == 0:  # statistics.md gap: same 0.5 rule as the run layer
        a += 0.5
        b += 0.5
    ell = math.log(b / a) - math.log(e_new / e_old)
    s = math.sqrt(1.0 / a + 1.0 / b + tau2)
    z = ell / s
    p = float(2.0 * sst.norm.sf(abs(z)))
    zq = float(sst.norm.isf(alpha / 2))  # 1.96 at alpha 0.05
    return p, (math.exp(ell - zq * s), math.exp(ell + zq * s)), s


def adjust(ps, method):
    """ps: list of p (tested rows). Returns list of q in the same order."""
    m = len(ps)
    if m == 0:
        return []
    order = sorted(range(m), key=lambda i: ps[i])
    q = [0.0] * m
    method = method.lower()
    if method.startswith("holm"):
        run = 0.0
        for j, i in enumerate(order):  # j = 0..m-1, rank l = j+1
            run = max(run, min(1.0, (m - j) * ps[i]))
            q[i] = run
        return q
    cm = 1.0
    if method.startswith("benjamini-yekutieli") or method in ("by",):
        cm = sum(1.0 / i for i in range(1, m + 1))
    run = 1.0
    for j in range(m - 1, -1, -1):
        i = order[j]
        run = min(run, min(1.0, m * cm * ps[i] / (j + 1)))
        q[i] = run
    return q


def cv(counts, expos, unit):
    vals = [c / e * unit for c, e in zip(counts, expos)]
    if len(vals) == 1:
        c = counts[0]
        return None if c == 0 else 100.0 / math.sqrt(c)
    mean = sum(vals) / len(vals)
    if mean == 0:
        return None
    var = sum((v - mean) ** 2 for v in vals) / (len(vals) - 1)
    return 100.0 * math.sqrt(var) / mean


# ---------------------------------------------------------------- comparison


class Checker:
    def __init__(self, label):
        self.label = label
        self.maxerr = {}
        self.mism = []
        self.rows = 0

    def cmp(self, field, sym, mine, theirs):
        def norm(v):
            if v is None:
                return INF
            return float(v)

        a, b = norm(mine), norm(theirs)
        if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
            ok = (a == b) or (math.isnan(a) and math.isnan(b))
            err = 0.0 if ok else INF
        else:
            diff = abs(a - b)
            scale = max(abs(a), abs(b))
            err = 0.0 if diff <= ABS_FLOOR else diff / scale
            ok = diff <= max(REL_TOL * scale, ABS_FLOOR)
        self.maxerr[field] = max(self.maxerr.get(field, 0.0), err)
        if not ok:
            self.mism.append((sym, field, mine, theirs))

    def flag(self, sym, field, mine, theirs):
        self.maxerr.setdefault(field, 0.0)
        if mine != theirs:
            self.mism.append((sym, field, mine, theirs))


def comparisons_of(doc):
    """Yield (name, old_runs, new_runs, rows, summary) per compared side."""
    sides = doc["sides"]
    old = sides[0]
    comps = doc.get("comparisons") or []
    for si, side in enumerate(sides[1:], start=1):
        rows = []
        for r in doc["rows"]:
            if si == 1 and "vs" not in r:
                rows.append(r)
            elif "vs" in r:
                for v in r["vs"]:
                    if v.get("side") == side["name"]:
                        merged = dict(r)
                        merged.update(v)
                        rows.append(merged)
        summ = next((c for c in comps if c.get("side") == side["name"]), None)
        yield side["name"], old["runs"], side["runs"], rows, summ


def verify(doc, alpha_override=None, noise_cv=None, verbose=False):
    mode = doc.get("normalize", "share")
    if mode not in ("share", "ticks"):
        sys.exit(f"verify-stats.py: normalize={mode} not supported (share, ticks only)")
    unit = 100.0 if mode == "share" else 1.0
    alpha = alpha_override if alpha_override is not None else doc.get("alpha", 0.05)
    method = doc.get("adjust", "Benjamini-Hochberg")
    checkers = []
    for name, oruns, nruns, rows, summ in comparisons_of(doc):
        ck = Checker(name)
        checkers.append(ck)
        if mode == "share":
            eo = [float(r["total"]) for r in oruns]
            en = [float(r["total"]) for r in nruns]
        else:
            eo = [1.0] * len(oruns)
            en = [1.0] * len(nruns)
        E_old, E_new = sum(eo), sum(en)
        pi0 = E_new / (E_old + E_new)
        one_each = len(eo) == 1 and len(en) == 1
        tau2, nused, rsd = 0.0, 0, None
        if one_each:
            tau2, how, nused, rsd = noise_tau2(
                [(r["old_counts"][0], r["new_counts"][0]) for r in rows],
                E_old,
                E_new,
                noise_cv,
            )
            ck.noise = f"one run per side: tau^2={tau2:.4g} ({how}, {nused} symbols with x,y>=100, robust SD of z={rsd})"
        else:
            ck.noise = f"run layer, df={len(eo) + len(en) - 2}"
        # Counts that are not whole samples (percent-only perf reports, periods):
        # statistics.md's tests assume sample counts; diffprofile then tests
        # nothing (an extension beyond statistics.md), which we check.
        counts_ok = all(
            float(c).is_integer() for r in rows for c in r["old_counts"] + r["new_counts"]
        )
        if not counts_ok:
            ck.noise = "counts are not whole samples: expect no row tested"
        # run-total sanity: counts never exceed a run's total (share mode)
        if mode == "share" and counts_ok:
            for side, runs, key in (("old", oruns, "old_counts"), ("new", nruns, "new_counts")):
                for j, run in enumerate(runs):
                    s = sum(r[key][j] for r in rows)
                    if s > run["total"] + 1e-9:
                        ck.mism.append((f"{side} run {j + 1}", "sum(counts) > total", s, run["total"]))
        mine_p, idx = [], []
        untested = 0
        for i, r in enumerate(rows):
            oc, nc = r["old_counts"], r["new_counts"]
            if len(oc) != len(eo) or len(nc) != len(en):
                ck.mism.append((r["symbol"], "counts length", (len(oc), len(nc)), (len(eo), len(en))))
                continue
            x, y = sum(oc), sum(nc)
            k = x + y
            sym = r["symbol"] + (f" [{r['dso']}]" if r.get("dso") else "") + (
                f" ({r['mode']})" if r.get("mode") else ""
            )
            # values
            ck.cmp("old", sym, x / E_old * unit, r["old"])
            ck.cmp("new", sym, y / E_new * unit, r["new"])
            ck.cmp("delta", sym, (y / E_new - x / E_old) * unit, r["delta"])
            ratio = None if x == 0 else (y / E_new) / (x / E_old)
            if "ratio" in r and not (x == 0 and y == 0):
                ck.cmp("ratio", sym, ratio, r["ratio"])
            status = "same" if (x == 0 and y == 0) else "new" if x == 0 else "gone" if y == 0 else None
            if status:
                ck.flag(sym, "status", status, r["status"])
            if "old_cv" in r:
                ck.cmp("cv", sym, cv(oc, eo, unit), r["old_cv"])
                ck.cmp("cv", sym, cv(nc, en, unit), r["new_cv"])
            testable = counts_ok and k > 0 and min_reachable_p(k, pi0) <= alpha
            ck.flag(sym, "tested", testable, r.get("p") is not None)
            if not testable:
                untested += counts_ok
                ck.flag(sym, "significant(untested)", False, bool(r.get("significant")))
                continue
            ck.rows += 1
            p_ex, cp = exact_layer(x, y, E_old, E_new, alpha)
            if one_each:
                p_n, nci, _ = noise_layer(x, y, E_old, E_new, tau2, alpha)
                p = max(p_ex, p_n)
                rci = (min(cp[0], nci[0]), max(cp[1], nci[1]))
                # statistics.md defines no Delta CI here; diffprofile documents
                # its own (src/stats/noise.rs delta_ci_one_run, read after this
                # script was written): per side Var = C/M^2 + rho^2 tau^2/2,
                # normal interval. Checked under its own field name.
                ro, rn = x / E_old, y / E_new
                var = x / E_old**2 + ro * ro * tau2 / 2 + y / E_new**2 + rn * rn * tau2 / 2
                zq = float(sst.norm.isf(alpha / 2))
                d = rn - ro
                if r.get("delta_ci") is not None:
                    ck.cmp("delta_ci.lo(1run,impl-defined)", sym, (d - zq * math.sqrt(var)) * unit, r["delta_ci"][0])
                    ck.cmp("delta_ci.hi(1run,impl-defined)", sym, (d + zq * math.sqrt(var)) * unit, r["delta_ci"][1])
                dci = None
            else:
                ql = run_layer(oc, nc, eo, en, alpha)
                p = max(p_ex, ql["p"])
                rci = (min(cp[0], ql["ci"][0]), max(cp[1], ql["ci"][1]))
                dci = (ql["dci"][0] * unit, ql["dci"][1] * unit)
            ck.cmp("p", sym, p, r["p"])
            ck.cmp("ratio_ci.lo", sym, rci[0], r["ratio_ci"][0])
            ck.cmp("ratio_ci.hi", sym, rci[1], r["ratio_ci"][1])
            if dci is not None:
                ck.cmp("delta_ci.lo", sym, dci[0], r["delta_ci"][0])
                ck.cmp("delta_ci.hi", sym, dci[1], r["delta_ci"][1])
            mine_p.append(p)
            idx.append((i, sym))
        qs = adjust(mine_p, method)
        nreg = nimp = 0
        for (i, sym), q in zip(idx, qs):
            r = rows[i]
            ck.cmp("q", sym, q, r["q"])
            sig = q <= alpha
            ck.flag(sym, "significant", sig, bool(r["significant"]))
            if sig:
                d = rows[i]["new_counts"], rows[i]["old_counts"]
                delta = sum(d[0]) / E_new - sum(d[1]) / E_old
                nreg += delta > 0
                nimp += delta < 0
        # warnings statistics.md asks for (matched loosely, by key phrase)
        warns = " | ".join(doc.get("warnings", []) + doc.get("notes", []))
        if counts_ok and one_each and nused >= 10 and rsd is not None:
            ck.flag("(summary)", "warning 'cannot separate' (z spread > 2)", rsd > 2, "cannot separate" in warns)
        if counts_ok and len(eo) + len(en) - 2 == 1:
            ck.flag("(summary)", "warning 'need >= 2 runs' (df = 1)", True, "2 runs" in warns)
        ck.untested = untested
        ck.sig = (nreg, nimp)
        if "untested" in doc and len(checkers) == 1 and len(doc["sides"]) == 2:
            ck.flag("(summary)", "untested", untested, doc["untested"])
        if summ:
            ck.flag("(summary)", "untested", untested, summ.get("untested"))
            ck.flag("(summary)", "tested", ck.rows, summ.get("tested"))
            ck.flag("(summary)", "significant_regressions", nreg, summ.get("significant_regressions"))
            ck.flag("(summary)", "significant_improvements", nimp, summ.get("significant_improvements"))
    return checkers


def report(checkers, doc, verbose=False, top=10):
    bad = False
    for ck in checkers:
        print(f"== {ck.label}: {ck.noise}")
        print(
            f"   rows checked (tested): {ck.rows}, untested: {ck.untested}, "
            f"significant regressions/improvements: {ck.sig[0]}/{ck.sig[1]}"
        )
        fields = sorted(ck.maxerr)
        print("   max relative error: " + ", ".join(f"{f}={ck.maxerr[f]:.2e}" for f in fields))
        if any("impl-defined" in f for f in ck.maxerr):
            print(
                "   note: one run per side: statistics.md defines no delta CI; checked "
                "against diffprofile's documented formula (delta_ci_one_run)"
            )
        if ck.mism:
            bad = True
            print(f"   MISMATCHES: {len(ck.mism)}")
            for sym, field, mine, theirs in ck.mism[: (None if verbose else 40)]:
                print(f"     {sym}: {field}: expected {mine!r}, diffprofile {theirs!r}")
        else:
            print("   OK: every field matches")
        if verbose:
            pass
    return bad


def main():
    ap = argparse.ArgumentParser(
        description="Check diffprofile's JSON statistics against statistics.md",
        usage="%(prog)s [--json FILE | [--bin DIFFPROFILE] -- ARGS...]",
    )
    ap.add_argument("--json", help="diffprofile -o json output to check ('-' = stdin)")
    ap.add_argument("--bin", default=None, help="diffprofile binary (default: target/release/diffprofile)")
    ap.add_argument("--alpha", type=float, default=None, help="override the JSON's alpha")
    ap.add_argument("--noise-cv", type=float, default=None, help="the --noise-cv given to diffprofile, if any")
    ap.add_argument("--quiet", action="store_true", help="one line per comparison")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("args", nargs="*", help="arguments for diffprofile (after --)")
    a = ap.parse_args()
    if a.json:
        doc = json.load(sys.stdin if a.json == "-" else open(a.json))
    elif a.args:
        binp = a.bin or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "diffprofile")
        if any(x in ("--top", "--min-delta") for x in a.args):
            sys.exit("verify-stats.py: don't use --top/--min-delta (q is over all tested rows)")
        cmd = [binp] + a.args + ["-o", "json"]
        pr = subprocess.run(cmd, capture_output=True, text=True)
        if pr.returncode not in (0, 1):
            sys.stderr.write(pr.stderr)
            sys.exit(f"verify-stats.py: {' '.join(cmd)} failed ({pr.returncode})")
        doc = json.loads(pr.stdout)
        if "--noise-cv" in a.args and a.noise_cv is None:
            a.noise_cv = float(a.args[a.args.index("--noise-cv") + 1])
    else:
        ap.print_usage()
        sys.exit(2)
    checkers = verify(doc, a.alpha, a.noise_cv, a.verbose)
    if a.quiet:
        bad = False
        for ck in checkers:
            worst = max(ck.maxerr.values()) if ck.maxerr else 0.0
            bad |= bool(ck.mism)
            print(
                f"{'MISMATCH' if ck.mism else 'ok'} {ck.label}: rows={ck.rows} untested={ck.untested} "
                f"sig+={ck.sig[0]} sig-={ck.sig[1]} maxrel={worst:.2e} ({ck.noise})"
            )
            for m in ck.mism[:10]:
                print("   ", m)
    else:
        bad = report(checkers, doc, a.verbose)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
