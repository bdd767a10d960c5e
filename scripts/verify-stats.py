#!/usr/bin/env python3
"""Independent re-implementation of diffprofile's statistics, version 2.

Written from docs/statistics.md (version 2) ONLY -- not from src/, the tests or
the git history -- to verify diffprofile's implementation.  Where the document
is ambiguous, the reading taken is written next to the code ("READING:").

Usage
-----
Test vectors (docs/statistics.md section 13), from testdata/stats/*.folded:

    python3 scripts/verify-stats.py --vectors                 # plain listing
    python3 scripts/verify-stats.py --vectors --markdown      # tables for section 13
    python3 scripts/verify-stats.py --vectors --json-out tests/vectors/statistics-v3.json
    python3 scripts/verify-stats.py --vectors --selfcheck     # + mpmath cross-check

Besides V1-V8 the vectors hold V6b (old2 vs new1, one run per side), an extra
case: V6's kappa-hat is 0, so V6 alone never exercises the kappa-hat root.

History (section 14), on a tree of folded runs DIR/<kernel>/<bench>/*.folded:

    python3 scripts/verify-stats.py --history testdata/history/vectors              # listing
    python3 scripts/verify-stats.py --history testdata/history/vectors --json-out tests/vectors/history-v1.json
    diffprofile history testdata/history/vectors -o json > h.json
    python3 scripts/verify-stats.py --history testdata/history/vectors --check h.json

Check mode: run diffprofile (it adds `-o json`) or read its JSON, and recompute
every row from `old_counts`, `new_counts` and the runs' `exposure`s:

    cargo build --release
    python3 scripts/verify-stats.py -- --old a/run1 a/run2 --new b/run1 b/run2
    python3 scripts/verify-stats.py -- --old a/run1 --new b/run1 --noise-from a/run6 a/run7 a/run8
    python3 scripts/verify-stats.py -- --noise-model base.json a/run1 b/run1
    python3 scripts/verify-stats.py --json out.json [--noise-model FILE] [--noise-cv C]
    bash scripts/verify-stats.sh CALIBRATION_SET      # a matrix of comparisons

Don't pass --top/--min-delta: q is over all tested rows.  With --noise-from the
script learns the noise model itself (section 5.3) from per-run counts that it
obtains by running diffprofile as a mere *parser* (`--old R1 --new R2..RR -o json`
with the same input options), and also checks `diffprofile noise-model` against
it.  With --noise-model FILE it checks the file's internal consistency (section
5.2 recomputed from its mean_count and s2) and recomputes the comparison from it.

Checked per row: tested or not, p, q, the mark, dispersion (phi), df (nu), ratio
and delta intervals, old/new/delta/ratio; the top-level `untested` count and the
`noise` object; and the consistency of section 9 (marked <=> ratio interval
excludes 1 <=> delta interval excludes 0) on diffprofile's own output.  Relative
tolerance 1e-6 with an absolute floor of 1e-12 (p and q below 1e-6 are also
compared relatively).  Exit status: 0 all match, 1 a mismatch, 2 usage error.
Share and ticks modes are checked in full; for rate/work/robust the values in
the output unit (old, new, delta, delta_ci) are skipped (unit unknown).

JSON vectors file (--json-out): see `vectors_json()`; conventions:
  * infinities are the strings "inf" / "-inf"; null means "not applicable"
    (e.g. p of an untested row, a prior that does not exist);
  * rates (old, new, delta, delta intervals) are in the output unit of share
    mode: percent and percentage points (100 x the rate / rate difference);
  * every case has "inputs" and "outputs"; per-symbol rows are keyed by symbol.
"""

import argparse
import bisect
import json
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np  # noqa: F401  (scipy needs it)
    from scipy import optimize as so
    from scipy import special as sp
except ImportError:  # pragma: no cover
    sys.stderr.write("verify-stats.py: needs numpy and scipy (pip install scipy)\n")
    sys.exit(2)

INF = math.inf
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))

# =====================================================================
# Numerics
# =====================================================================


def median(xs):
    """Median; of an even count the mean of the two middle values."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("median of nothing")
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def dev(c, mu):
    """Poisson deviance term c ln(c/mu) - c + mu >= 0 (0 ln 0 = 0), stable."""
    if c == 0:
        return mu
    if mu <= 0:
        return INF
    if mu == INF:
        return INF
    u = (c - mu) / mu
    if abs(u) < 1e-2:
        # (1+u) ln(1+u) - u = sum_{n>=2} (-1)^n u^n / (n (n-1))
        s, un = 0.0, u * u
        for n in range(2, 16):
            s += (un if n % 2 == 0 else -un) / (n * (n - 1))
            un *= u
        return mu * s
    return c * math.log(c / mu) - c + mu


def dev_log(c, lmu):
    """dev(c, exp(lmu)) without overflow/underflow of exp(lmu)."""
    if -700.0 < lmu < 700.0:
        return dev(c, math.exp(lmu))
    if c == 0:
        return math.exp(lmu) if lmu < 700.0 else INF
    return c * (math.log(c) - lmu) - c + (math.exp(lmu) if lmu < 700.0 else INF)


def f1_sf(f, nu):
    """P(F(1, nu) >= f); nu = inf: P(chi2_1 >= f)."""
    if f <= 0:
        return 1.0
    if nu == INF:
        return float(sp.gammaincc(0.5, f / 2.0))
    return fdist_sf(f, 1.0, nu)


def fdist_sf(f, d1, d2):
    """P(F(d1, d2) >= f) = I_{d2/(d2+d1 f)}(d2/2, d1/2); d2 = inf: chi2_d1 tail of d1 f."""
    if f <= 0:
        return 1.0
    if f == INF:
        return 0.0
    if d2 == INF:
        return float(sp.gammaincc(d1 / 2.0, d1 * f / 2.0))
    z = d2 / (d2 + d1 * f)
    if z < 0.5:
        return float(sp.betainc(d2 / 2.0, d1 / 2.0, z))
    return float(sp.betaincc(d1 / 2.0, d2 / 2.0, d1 * f / (d2 + d1 * f)))


def f1_isf(t, nu):
    """The f with P(F(1, nu) >= f) = t (nu = inf: the chi2_1 quantile).

    scipy's inverse incomplete beta/gamma are good to ~1e-8 relative in far
    tails; an interval bound of e^(chi/2k) amplifies that by chi/2k, so the
    first guess is polished by root finding on the (accurate) forward tail.
    """
    if nu == INF:
        f0 = 2.0 * float(sp.gammainccinv(0.5, t))
        sf = lambda f: float(sp.gammaincc(0.5, f / 2.0))
    else:
        z = float(sp.betaincinv(nu / 2.0, 0.5, t))  # nu/(nu+f)
        w = float(sp.betainccinv(0.5, nu / 2.0, t))  # f/(nu+f), computed on its own
        f0 = nu * w / z
        sf = lambda f: float(sp.betainc(nu / 2.0, 0.5, nu / (nu + f)))
    g = lambda lf: math.log(sf(math.exp(lf))) - math.log(t)
    lo, hi = math.log(f0) - 1e-6, math.log(f0) + 1e-6
    for _ in range(60):
        if g(lo) > 0 > g(hi):
            return math.exp(so.brentq(g, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=500))
        lo, hi = lo - (hi - lo), hi + (hi - lo)
    return f0


def trigamma_inv(x):
    """psi'^{-1}(x) for x > 0: Smyth's Newton iteration from 1/2 + 1/x, to full precision."""
    y = 0.5 + 1.0 / x
    for _ in range(200):
        tri = float(sp.polygamma(1, y))
        dif = tri * (1.0 - tri / x) / float(sp.polygamma(2, y))
        y += dif
        if not (y > 0 and math.isfinite(y)):
            break
        if abs(dif) <= 2e-16 * y:
            break
    if y > 0 and math.isfinite(y) and abs(float(sp.polygamma(1, y)) - x) <= 1e-13 * x:
        return y

    def g(ly):  # fallback: bracketed root in log y
        return math.log(float(sp.polygamma(1, math.exp(ly)))) - math.log(x)

    return math.exp(so.brentq(g, -50.0, 50.0, xtol=1e-16, rtol=1e-15, maxiter=1000))


def root(f, a, b):
    """Root of f in [a, b] (f(a), f(b) of opposite signs), to full precision."""
    return so.brentq(f, a, b, xtol=1e-300, rtol=1e-15, maxiter=2000)


# =====================================================================
# Section 4: sampling layer
# =====================================================================


def exact_test(x, y, mo, mn):
    """Central two-sided p of the exact conditional test, with both tails."""
    k = x + y
    m = mo + mn
    pi0, pi0c = mn / m, mo / m
    p_ge = 1.0 if y == 0 else float(sp.betainc(y, k - y + 1, pi0))
    p_le = 1.0 if y == k else float(sp.betainc(k - y, y + 1, pi0c))
    return min(1.0, 2.0 * min(p_le, p_ge)), p_le, p_ge


def min_reachable_p(k, mo, mn):
    m = mo + mn
    return 2.0 * min((mn / m) ** k, (mo / m) ** k)


def cp_ratio(x, y, mo, mn, t):
    """Clopper-Pearson interval at level 1 - t, mapped to the rate ratio."""
    r = mo / mn
    if y == 0:
        lo = 0.0
    else:
        pi_l = float(sp.betaincinv(y, x + 1, t / 2.0))
        om_l = float(sp.betainccinv(x + 1, y, t / 2.0))  # 1 - pi_L on its own
        lo = pi_l / om_l * r
    if x == 0:
        hi = INF
    else:
        pi_u = float(sp.betainccinv(y + 1, x, t / 2.0))
        om_u = float(sp.betaincinv(x, y + 1, t / 2.0))  # 1 - pi_U on its own
        hi = pi_u / om_u * r
    return lo, hi


def delta_of_theta(theta, k, mo, mn):
    """Profile estimate of Delta at ratio theta (section 9)."""
    if theta == INF:
        return k / mn
    return k * (theta - 1.0) / (mo + theta * mn)


# =====================================================================
# Sections 3, 5.1, 6, 9: run layer
# =====================================================================


def lr_stat(x, y, mo, mn):
    """Deviance difference (section 3), as a sum of non-negative terms."""
    k = x + y
    m = mo + mn
    return 2.0 * (dev(x, k * mo / m) + dev(y, k * mn / m))


def binom_dev_at_theta_log(x, y, mo, mn, u):
    """G(pi(theta)) at theta = exp(u), computed in logs."""
    k = x + y
    lr = math.log(mo / mn)
    lpi = -float(np.logaddexp(0.0, lr - u))  # ln pi(theta)
    lpic = -float(np.logaddexp(0.0, u - lr))  # ln(1 - pi(theta))
    lk = math.log(k)
    return 2.0 * (dev_log(y, lk + lpi) + dev_log(x, lk + lpic))


def pearson_x2(oc, nc, on, nn):
    """Pearson's X^2 over both sides (section 5.1); terms with fitted 0 count 0."""
    x2 = 0.0
    for cs, ns in ((oc, on), (nc, nn)):
        rho = sum(cs) / sum(ns)
        for c, n in zip(cs, ns):
            mu = n * rho
            if mu > 0:
                x2 += (c - mu) ** 2 / mu
    return x2


def lr_ratio_interval(x, y, mo, mn, chi):
    """{theta : G(pi(theta)) <= chi} (section 9), roots found in ln theta."""
    k = x + y
    r = mo / mn
    if y == 0:
        return 0.0, r * math.expm1(chi / (2.0 * k))
    if x == 0:
        return r / math.expm1(chi / (2.0 * k)), INF
    uhat = math.log(y / x) + math.log(r)

    def f(u):
        return binom_dev_at_theta_log(x, y, mo, mn, u) - chi

    out = []
    for sgn in (-1.0, 1.0):
        h, prev = 1.0, 0.0
        while f(uhat + sgn * h) < 0:
            prev = h
            h *= 2.0
        a, b = uhat + sgn * prev, uhat + sgn * h
        u = root(f, min(a, b), max(a, b))
        out.append(math.exp(u) if u < 709.78 else INF)  # beyond the largest double: infinite
    return out[0], out[1]


def delta_profile_dev(delta, x, y, mo, mn):
    """Profile deviance D_Delta(delta) (section 9), cancellation-free a and b."""
    k = x + y
    m = mo + mn
    # D = q^2 + 4 M x delta = (k + M delta)^2 - 4 M y delta (same number; the
    # form with two non-negative terms is used)
    if delta < 0:
        disc = (k + m * delta) ** 2 - 4.0 * m * y * delta
    else:
        disc = (k - m * delta) ** 2 + 4.0 * m * x * delta
    sq = math.sqrt(disc)
    q = k - m * delta
    a = (q + sq) / (2.0 * m) if q >= 0 else 2.0 * x * delta / (sq - q)
    # b = a + delta, from the mirrored quadratic M b^2 - q' b - y(-delta) = 0
    qp = k + m * delta
    b = (qp + sq) / (2.0 * m) if qp >= 0 else 2.0 * y * (-delta) / (sq - qp)
    return 2.0 * (dev(x, mo * a) + dev(y, mn * b))


def lr_delta_interval(x, y, mo, mn, chi):
    """{delta : D_Delta(delta) <= chi} (section 9)."""
    dhat = y / mn - x / mo

    def f(dl):
        return delta_profile_dev(dl, x, y, mo, mn) - chi

    h0 = math.sqrt(chi * (max(x, 0.5) / mo**2 + max(y, 0.5) / mn**2))
    out = []
    for sgn in (-1.0, 1.0):
        h, prev = h0, 0.0
        while f(dhat + sgn * h) < 0:
            prev = h
            h *= 2.0
        a, b = dhat + sgn * prev, dhat + sgn * h
        out.append(root(f, min(a, b), max(a, b)))
    return out[0], out[1]


# =====================================================================
# Section 5.2: moderation across symbols
# =====================================================================

GRID = [0.0] + [10.0 ** (j / 20.0) for j in range(-120, 61)]
assert len(GRID) == 182


def s0sq_at(mu, chat, rhat, d0, tlo=-INF, thi=INF):
    """Prior scale s0^2(mu) (step 4), the trend held in [tlo, thi]."""
    tr = min(thi, max(tlo, chat + math.log1p(rhat * mu)))
    if d0 == INF:
        return math.exp(tr)
    return math.exp(tr + float(sp.digamma(d0 / 2.0)) - math.log(d0 / 2.0))


def moderate(s2, mu, d):
    """Section 5.2 on per-symbol s2 (estimates on d df) and abundances mu.

    Returns a dict: "moderated", "U" (|U|) and, when moderated, the prior
    ("median", "rhat", "chat", "evar", "d0", "dc") and per-symbol lists
    "s0sq", "F", "tail", "emp", "w", "d0i"; always "phi", "nu"."""
    n_sym = len(s2)
    uidx = [i for i in range(n_sym) if mu[i] >= 5]
    res = {"moderated": False, "U": len(uidx), "d": d}
    if len(uidx) < 10:
        res["phi"] = [max(1.0, v) for v in s2]
        res["nu"] = [float(d)] * n_sym
        return res
    # step 1
    med = median([s2[i] for i in uidx])
    floor = 1e-5 * med if med > 0 else 1e-5
    corr = -float(sp.digamma(d / 2.0)) + math.log(d / 2.0)
    e = [math.log(max(s2[i], floor)) + corr for i in uidx]
    mu_u = [mu[i] for i in uidx]
    nu_ = len(uidx)
    # step 2 (version 3): the shape by least absolute deviations, each r
    # with its median offset; r-hat is the last r whose SAD beats every
    # earlier SAD by more than a factor 1 - 1e-12; the level is the mean.
    best_r, min_earlier = None, INF
    for r in GRID:
        lg = [math.log1p(r * m) for m in mu_u]
        cl = median([ei - li for ei, li in zip(e, lg)])
        sad = math.fsum(abs(ei - cl - li) for ei, li in zip(e, lg))
        if sad < min_earlier * (1.0 - 1e-12):
            best_r = r
        min_earlier = min(min_earlier, sad)
    rhat = best_r
    chat = math.fsum(ei - math.log1p(rhat * m) for ei, m in zip(e, mu_u)) / nu_
    # the trend is held within the range of the bins' mean levels
    by_mu = sorted(range(nu_), key=lambda j: (mu_u[j], j))
    nbins = min(8, max(1, nu_ // 20))
    levels = []
    for b in range(nbins):
        part = by_mu[b * nu_ // nbins:(b + 1) * nu_ // nbins]
        levels.append(math.fsum(e[j] for j in part) / len(part))
    tlo, thi = min(levels), max(levels)
    trend = lambda m: min(thi, max(tlo, chat + math.log1p(rhat * m)))  # noqa: E731
    # step 3
    rss_hat = math.fsum((ei - trend(m)) ** 2 for ei, m in zip(e, mu_u))
    evar = rss_hat / (nu_ - 2) - float(sp.polygamma(1, d / 2.0))
    d0 = 2.0 * trigamma_inv(evar) if evar > 0 else INF
    # steps 4, 5
    s0sq = [s0sq_at(m, chat, rhat, d0, tlo, thi) for m in mu]
    dc = min(d0, 2.0 * d)
    # step 6.  READING: "every symbol" = every row of the comparison (every
    # symbol with a nonzero count, tested or not); all of them enter the
    # running maximum.  tail uses d0 (not d_c), as written.
    F = [s2[i] / s0sq[i] for i in range(n_sym)]
    tail = [fdist_sf(f, d, d0) for f in F]
    fu = sorted(F[i] for i in uidx)
    inu = set(uidx)
    emp, w, d0i = [], [], []
    for i in range(n_sym):
        lo = bisect.bisect_left(fu, F[i])
        hi = bisect.bisect_right(fu, F[i])
        gt = len(fu) - hi
        eq = (hi - lo) + (0 if i in inu else 1)
        em = (gt + 0.5 * eq) / len(fu)
        emp.append(em)
        wi = min(1.0, tail[i] / em)
        w.append(wi)
        d0i.append(wi * dc)
    order = sorted(range(n_sym), key=lambda i: tail[i])  # stable: ties keep their order
    run = -INF
    d0r = [0.0] * n_sym
    for i in order:
        run = max(run, d0i[i])
        d0r[i] = run
    # step 7
    phit = [(d * s2[i] + d0r[i] * s0sq[i]) / (d + d0r[i]) for i in range(n_sym)]
    res.update(
        moderated=True, median=med, rhat=rhat, chat=chat, tlo=tlo, thi=thi, evar=evar, d0=d0, dc=dc,
        s0sq=s0sq, F=F, tail=tail, emp=emp, w=w, d0i_raw=d0i, d0i=d0r, phi_tilde=phit,
        phi=[max(1.0, v) for v in phit], nu=[d + v for v in d0r],
    )
    return res


# =====================================================================
# Section 5.3: noise models
# =====================================================================


class NoiseModel:
    """A noise model: per symbol mu, s2, phi, nu, kappa; the prior."""

    def __init__(self, source, runs, dm, moderation, symbols, per_run=None):
        self.source = source
        self.per_run = per_run  # the mean exposure of the model's runs
        self.runs = runs  # R
        self.dm = dm
        self.moderation = moderation  # None or dict chat, rhat, d0, dc, U
        self.symbols = symbols  # key -> dict mu, s2, phi, nu, kappa

    @staticmethod
    def learn(keys, counts, exposures, source="learned"):
        """counts: per symbol a list of R per-run counts; exposures: R values."""
        rr = len(exposures)
        if rr < 3:
            raise ValueError("a noise model needs 3 or more runs")
        mtot = sum(exposures)
        kk, mus, s2s = [], [], []
        for key, cs in zip(keys, counts):
            c_i = sum(cs)
            if c_i == 0:
                continue  # not in the model
            x2 = 0.0
            for c, n in zip(cs, exposures):
                fit = n * c_i / mtot
                x2 += (c - fit) ** 2 / fit
            kk.append(key)
            mus.append(c_i / rr)
            s2s.append(x2 / (rr - 1))
        mod = moderate(s2s, mus, rr - 1)
        syms = {}
        for j, key in enumerate(kk):
            phi = mod["phi"][j]
            syms[key] = dict(mu=mus[j], s2=s2s[j], phi=phi, nu=mod["nu"][j],
                             kappa=(phi - 1.0) / mus[j])
        prior = None
        if mod["moderated"]:
            prior = dict(U=mod["U"], chat=mod["chat"], rhat=mod["rhat"], tlo=mod["tlo"], thi=mod["thi"],
                         d0=mod["d0"], dc=mod["dc"])
        nm = NoiseModel(source, rr, rr - 1, prior, syms, per_run=mtot / rr)
        nm.U = mod["U"]
        nm.detail = (kk, mod)
        return nm

    @staticmethod
    def from_json(doc, source):
        mo = doc.get("moderation")
        prior = None
        if mo is not None:
            prior = dict(U=mo.get("symbols"), chat=mo["trend_c"], rhat=mo["trend_r"],
                         tlo=num(mo.get("trend_lo"), -INF), thi=num(mo.get("trend_hi"), INF),
                         d0=num(mo["prior_df"], INF), dc=mo["prior_df_cap"])
        syms = {}
        for s in doc["symbols"]:
            syms[(s["symbol"], s.get("dso"))] = dict(
                mu=s["mean_count"], s2=s.get("s2"), phi=s["dispersion"], nu=num(s["df"], INF),
                kappa=s["kappa"])
        nm = NoiseModel(source, len(doc.get("runs", [])), doc["residual_df"], prior, syms,
                        per_run=mean_exposure(doc))
        nm.U = prior["U"] if prior else None
        return nm

    def join_old_run(self, key, phi_p, nu_p, c, n_old):
        """Section 5.3, one run per side: the OLD run (count c, exposure
        n_old) as one more replicate of the model's kernel; the updated
        (phi, nu) of the row's prior (phi_p, nu_p)."""
        if not self.per_run or self.per_run <= 0 or n_old <= 0 or not self.runs:
            return phi_p, nu_p
        s = self.symbols.get(key)
        e = s["mu"] * n_old / self.per_run if s is not None else 0.0
        phi_e = max(1.0, self.prior_for(key, e)[0])
        z2 = (c - e) ** 2 / (phi_e * max(e, 1.0) * (1.0 + 1.0 / self.runs))
        if math.isinf(nu_p):
            return phi_p, nu_p
        return max(1.0, phi_p * (nu_p + z2) / (nu_p + 1.0)), nu_p + 1.0

    def prior_for(self, key, mubar):
        """(phi_p, nu_p) for a comparison symbol of abundance mubar.

        READING: identity = (symbol, dso), dso None when the rows carry none."""
        s = self.symbols.get(key)
        if s is not None:
            return 1.0 + s["kappa"] * mubar, s["nu"]
        if self.moderation is None:
            return 1.0, float(self.dm)
        m = self.moderation
        return max(1.0, s0sq_at(mubar, m["chat"], m["rhat"], m["d0"], m["tlo"], m["thi"])), self.dm + m["dc"]


# =====================================================================
# Section 5.4: one run per side
# =====================================================================

Q_F13 = f1_isf(0.5, 3.0)  # median of F(1, 3)


def one_run_noise(xs, ys, mo, mn):
    """|U1|, m-hat, kappa-hat (None, None when |U1| < 10)."""
    u1 = [i for i in range(len(xs)) if xs[i] >= 1 and ys[i] >= 1 and (xs[i] + ys[i]) / 2.0 >= 5]
    if len(u1) < 10:
        return len(u1), None, None
    ell = [math.log(ys[i] / xs[i]) - math.log(mn / mo) for i in u1]
    mhat = median(ell)  # the common shift (section 5.4, step 1)
    dd, mb = [], []
    for i in u1:
        # Step 2: the deviance from the common shift, theta = exp(mhat)
        dd.append(binom_dev_at_theta_log(xs[i], ys[i], mo, mn, mhat))
        mb.append((xs[i] + ys[i]) / 2.0)

    def h(kap):
        return median([di / (1.0 + kap * mi) for di, mi in zip(dd, mb)]) - Q_F13

    if h(0.0) <= 0:
        return len(u1), mhat, 0.0
    hi = 1.0 / max(mb)
    while h(hi) > 0:
        hi *= 2.0
    return len(u1), mhat, root(h, 0.0, hi)


def band_of(mhat):
    """Section 5.4 step 5: the null band of ratios, no change to the shift."""
    return min(1.0, math.exp(mhat)), max(1.0, math.exp(mhat))


def band_dev(x, y, mo, mn, band):
    """The deviance at the band's nearer end; 0 when theta-hat is inside."""
    lo, hi = band
    if x + y == 0:
        return 0.0
    # theta-hat = (y/mn)/(x/mo), compared without dividing (x = 0 is +inf);
    # within 1e-12 of an end (rounding) is inside
    if y * mo > hi * (1 + 1e-12) * x * mn:
        return binom_dev_at_theta_log(x, y, mo, mn, math.log(hi))
    if y * mo < lo * (1 - 1e-12) * x * mn:
        return binom_dev_at_theta_log(x, y, mo, mn, math.log(lo))
    return 0.0


# =====================================================================
# Section 8: many symbols at once
# =====================================================================


def harmonic(m):
    return math.fsum(1.0 / i for i in range(1, m + 1))


def adjust_q(ps, method):
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    q = [0.0] * m
    if method in ("bh", "by"):
        mult = m * (harmonic(m) if method == "by" else 1.0)
        run = INF
        for j in range(m - 1, -1, -1):
            i = order[j]
            run = min(run, min(1.0, mult * ps[i] / (j + 1)))
            q[i] = run
    elif method == "holm":
        run = 0.0
        for j in range(m):
            i = order[j]
            run = max(run, min(1.0, (m - j) * ps[i]))
            q[i] = run
    else:
        raise ValueError(method)
    return q


def interval_t(r_marked, m, method, alpha):
    rr = max(r_marked, 1)
    if method == "bh":
        return rr * alpha / m
    if method == "by":
        return rr * alpha / (m * harmonic(m))
    return alpha / (m - rr + 1)


# ---- section 8.3 (version 3.3): independent filtering of the family

FILTER_THETA = [0.95 * j / 49 for j in range(50)]
FILTER_MIN_REJECTIONS = 10  # DESeq2's: more than 10 rejections somewhere


def quantile7(xs, p):
    """R's quantile(type = 7): order statistics interpolated at (n - 1) p."""
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = int(math.floor(h))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def lowess_fit(x, y, f, rounds=3):
    """Cleveland's robust lowess as R's lowess(x, y, f, iter = 3) fits
    distinct sorted x with no two within delta: at each point a weighted
    line over its floor(f n) nearest points (ties to the lower index),
    tricube weights of the distance over the largest of theirs, then
    `rounds` refits with bisquare robustness weights at 6 median |res|."""
    n = len(x)
    ns = max(2, min(n, int(f * n + 1e-7)))
    span = x[-1] - x[0]
    rob = [1.0] * n
    fit = list(y)
    for it in range(rounds + 1):
        fit = []
        for i in range(n):
            near = sorted(range(n), key=lambda j: (abs(x[j] - x[i]), j))[:ns]
            h = max(abs(x[j] - x[i]) for j in near)
            w = []
            for j in range(n):
                r = abs(x[j] - x[i])
                if r > 0.999 * h:
                    w.append(0.0)
                else:
                    w.append((1.0 if r <= 0.001 * h else (1 - (r / h) ** 3) ** 3) * rob[j])
            tot = math.fsum(w)
            if tot <= 0:
                fit.append(y[i])
                continue
            w = [v / tot for v in w]
            xbar = math.fsum(wj * xj for wj, xj in zip(w, x))
            sxx = math.fsum(wj * (xj - xbar) ** 2 for wj, xj in zip(w, x))
            if h > 0 and math.sqrt(sxx) > 0.001 * span:
                slope = math.fsum(wj * (xj - xbar) * yj for wj, xj, yj in zip(w, x, y)) / sxx
                fit.append(math.fsum(wj * yj for wj, yj in zip(w, y)) + slope * (x[i] - xbar))
            else:
                fit.append(math.fsum(wj * yj for wj, yj in zip(w, y)))
        if it == rounds:
            break
        res = [abs(a - b) for a, b in zip(y, fit)]
        cmad = 6.0 * median(res)
        if cmad < 1e-7 * math.fsum(res) / n:
            break
        rob = [1.0 if r <= 0.001 * cmad else ((1 - (r / cmad) ** 2) ** 2 if r <= 0.999 * cmad else 0.0)
               for r in res]
    return fit


def independent_filter(stats, ps, method, alpha):
    """DESeq2's pvalueAdjustment: rejections at each quantile of the
    filter statistic, the threshold read off their lowess smooth."""
    cuts = [quantile7(stats, th) for th in FILTER_THETA]
    rej = []
    for c in cuts:
        kept = [p for s_, p in zip(stats, ps) if s_ >= c]
        rej.append(sum(1 for q in adjust_q(kept, method) if q <= alpha))
    j = 0
    if max(rej) > FILTER_MIN_REJECTIONS:
        fit = lowess_fit(FILTER_THETA, [float(v) for v in rej], 0.2)
        res = [v - fv for v, fv in zip(rej, fit) if v > 0]
        rmse = math.sqrt(math.fsum(r * r for r in res) / len(res))
        top = max(fit)
        j = next((i for lim in (top - rmse, 0.9 * top, 0.8 * top)
                  for i in [next((i for i, v in enumerate(rej) if v > lim), None)] if i is not None), 0)
    return {"threshold": cuts[j], "quantile": FILTER_THETA[j], "rejections": rej[j],
            "filtered": sum(1 for s_ in stats if s_ < cuts[j]), "rejections_by_quantile": rej}


ADJ_NAMES = {"Benjamini-Hochberg": "bh", "Benjamini-Yekutieli": "by", "Holm": "holm",
             "bh": "bh", "by": "by", "holm": "holm"}

# =====================================================================
# The whole comparison
# =====================================================================


def is_separated(a, on, b, nn, factor=2.0):
    """Every run of one side at least `factor` times every run of the other,
    in per-run rates, the larger side above 0 (section 7.1)."""
    ra = [c / e for c, e in zip(a, on)]
    rb = [c / e for c, e in zip(b, nn)]
    return (min(rb) > 0 and min(rb) >= factor * max(ra)) or (min(ra) > 0 and min(ra) >= factor * max(rb))


def log_test(a, on, b, nn):
    """Section 7.1 (version 3.2): the two-sample t test of the runs' log
    rates l = ln((c + 1/2)/N) on d = n - 2 df, the pooled within-side
    variance floored at the mean over runs of 1/(N rho0 + 1/2).  Returns
    (diff, var) with var the variance of the difference of the means."""
    n = len(a) + len(b)
    la = [math.log((c + 0.5) / e) for c, e in zip(a, on)]
    lb = [math.log((c + 0.5) / e) for c, e in zip(b, nn)]
    ma, mb = math.fsum(la) / len(la), math.fsum(lb) / len(lb)
    v = (math.fsum((l - ma) ** 2 for l in la) + math.fsum((l - mb) ** 2 for l in lb)) / (n - 2)
    rho0 = (math.fsum(a) + math.fsum(b)) / (math.fsum(on) + math.fsum(nn))
    floor = math.fsum(1.0 / (e * rho0 + 0.5) for e in list(on) + list(nn)) / n
    return mb - ma, max(v, floor) * (1.0 / len(a) + 1.0 / len(b))


def analyse(keys, oc, nc, on, nn, alpha=0.05, adjust="bh", model=None, noise_cv=None, shown=None,
            shares=True, independent=True):
    """One comparison.  oc/nc: per symbol, per-run counts; on/nn: exposures.
    shown: None (every row) or a predicate on a row's key: the rows shown
    and tested (section 8.2, version 3); every row teaches the noise.
    shares: rates are shares (share normalisation): Delta held to [-1, 1].

    Returns (rows, noise): rows a list of dicts (same order as keys)."""
    n_old, n_new = len(on), len(nn)
    n = n_old + n_new
    d = n - 2
    mo, mn = float(sum(on)), float(sum(nn))
    rows = []
    for key, a, b in zip(keys, oc, nc):
        x, y = sum(a), sum(b)
        k = x + y
        r = dict(key=key, old_counts=list(a), new_counts=list(b), x=x, y=y, k=k, mubar=k / n,
                 rho_old=x / mo, rho_new=y / mn)
        r["delta"] = r["rho_new"] - r["rho_old"]
        r["ratio"] = (INF if y > 0 else float("nan")) if x == 0 else r["rho_new"] / r["rho_old"]
        if d >= 1:
            r["x2"] = pearson_x2(a, b, on, nn)
            r["s2"] = r["x2"] / d
        rows.append(r)
    noise = {"residual_df": d, "moderation": None, "one_run": None, "model": None, "noise_cv": None}
    # -------- dispersion (section 5)
    if model is not None:
        noise["method"] = "noise-model"
        noise["model"] = {"source": model.source, "runs": model.runs, "residual_df": model.dm}
        for r in rows:
            php, nup = model.prior_for(r["key"], r["mubar"])
            r["phi_p"], r["nu_p"] = php, nup
            if d == 0:
                php, nup = model.join_old_run(r["key"], php, nup, r["x"], mo)
                r["phi"], r["nu"] = php, nup
            else:
                r["phi"] = max(1.0, (d * r["s2"] + nup * php) / (d + nup))
                r["nu"] = d + nup
    elif d >= 1:
        noise["method"] = "runs"
        mod = moderate([r["s2"] for r in rows], [r["mubar"] for r in rows], d)
        noise["U"] = mod["U"]
        if mod["moderated"]:
            noise["moderation"] = {"symbols": mod["U"], "trend_c": mod["chat"], "trend_r": mod["rhat"],
                                   "trend_lo": mod["tlo"], "trend_hi": mod["thi"],
                                   "prior_df": mod["d0"], "prior_df_cap": mod["dc"], "evar": mod["evar"]}
            for j, r in enumerate(rows):
                for f in ("s0sq", "F", "tail", "emp", "w", "d0i_raw", "d0i", "phi_tilde"):
                    r[f] = mod[f][j]
        for j, r in enumerate(rows):
            r["phi"], r["nu"] = mod["phi"][j], mod["nu"][j]
    else:
        u1, mhat, kap = one_run_noise([r["x"] for r in rows], [r["y"] for r in rows], mo, mn)
        noise["U1"] = u1
        if kap is not None:
            noise["method"] = "one-run"
            noise["one_run"] = {"symbols": u1, "shift": mhat, "kappa": kap, "reference_df": 3}
            for r in rows:
                r["phi"], r["nu"] = 1.0 + kap * r["mubar"], 3.0
        elif noise_cv is not None:
            noise["method"] = "one-run-assumed"
            noise["noise_cv"] = noise_cv
            for r in rows:
                r["phi"], r["nu"] = 1.0 + noise_cv**2 * r["mubar"], INF
        else:
            noise["method"] = "sampling-only"
            for r in rows:
                r["phi"], r["nu"] = 1.0, 3.0
    # -------- section 5.5 (version 3): runs unlike their siblings
    noise["runs"] = []
    if noise.get("moderation"):
        fit = [r for r in rows if r["mubar"] >= 5]
        for side, key, ex in (("old", "old_counts", on), ("new", "new_counts", nn)):
            if len(ex) < 3:
                continue
            tot = math.fsum(ex)
            # chi-square(1) quantile at 0.001/|U|: the square of the normal's
            limit = float(sp.ndtri(0.001 / len(fit) / 2.0)) ** 2
            zz = []
            for rr in range(len(ex)):
                rest = tot - ex[rr]
                lever = 1.0 + ex[rr] / rest
                z2 = []
                for r in fit:
                    c = r[key]
                    mu = ex[rr] * (math.fsum(c) - c[rr]) / rest
                    z2.append((c[rr] - mu) ** 2 / (max(r["phi"], 1.0) * max(mu, 1.0) * lever))
                zz.append(z2)
            # a symbol's extreme counts against the run furthest from its siblings in it
            # (ties: the first run)
            far = [max(range(len(ex)), key=lambda q: (zz[q][k], -q)) for k in range(len(fit))]
            scales = [median(z2) / float(sp.chdtri(1, 0.5)) for z2 in zz]
            for rr in range(len(ex)):
                z2 = zz[rr]
                # version 3.3: read against the siblings' own scale (at least 1)
                floor = max(1.0, median([scales[q] for q in range(len(ex)) if q != rr]))
                rel = scales[rr] / floor
                extremes = sum(1 for k, z in enumerate(z2) if z / floor > limit and far[k] == rr)
                noise["runs"].append({"side": side, "run": rr + 1, "scale": scales[rr], "relative": rel,
                                      "extremes": extremes, "weight": 1.0 / rel if rel > 2.0 else 1.0,
                                      "unlike": rel > 2.0 or extremes > 0})
    # -------- tests (sections 4, 6, 7)
    tested = []
    for r in rows:
        r["min_p"] = min_reachable_p(r["k"], mo, mn)
        r["tested"] = r["k"] > 0 and r["min_p"] <= alpha
        r["p_exact"], r["p_le"], r["p_ge"] = exact_test(r["x"], r["y"], mo, mn)
        r["lr"] = lr_stat(r["x"], r["y"], mo, mn)
        # section 5.4 step 5: with one run a side, against the band
        band = band_of(noise["one_run"]["shift"]) if noise.get("one_run") else None
        r["lr_run"] = band_dev(r["x"], r["y"], mo, mn, band) if band else r["lr"]
        r["F"] = r["lr_run"] / r["phi"]
        r["p_ql"] = f1_sf(r["F"], r["nu"])
        # section 7.1 (version 3): with moderation, a separated row (every
        # run of one side at least twice every run of the other) is also
        # tested with its own dispersion, floored at 1, on d df
        r["own"] = None
        if noise.get("moderation") and is_separated(r["old_counts"], on, r["new_counts"], nn):
            r["own"] = max(1.0, r["s2"])
            r["p_own"] = f1_sf(r["lr"] / r["own"], d)
            r["p_ql"] = min(r["p_ql"], r["p_own"])
            # version 3.2: and by the t test of its runs' log rates, on d df
            r["log_diff"], r["log_var"] = log_test(r["old_counts"], on, r["new_counts"], nn)
            r["p_log"] = f1_sf(r["log_diff"] ** 2 / r["log_var"], d)
            r["p_ql"] = min(r["p_ql"], r["p_log"])
        r["p"] = max(r["p_exact"], r["p_ql"])
        r["shown"] = shown is None or shown(r["key"])
    # -------- section 8.3 (version 3.3): over every tested row, shown or not
    noise["filter"] = None
    cand = [r for r in rows if r["tested"]]
    for r in rows:
        r["filtered"] = False
    if cand and independent:
        filt = independent_filter([r["mubar"] for r in cand], [r["p"] for r in cand], adjust, alpha)
        noise["filter"] = filt
        for r in cand:
            if r["mubar"] < filt["threshold"]:
                r["tested"], r["filtered"] = False, True
    for r in rows:
        if r["tested"] and r["shown"]:
            tested.append(r)
    # -------- section 8
    m = len(tested)
    qs = adjust_q([r["p"] for r in tested], adjust)
    for r, qv in zip(tested, qs):
        r["q"] = qv
        r["significant"] = qv <= alpha
    nsig = sum(1 for r in tested if r["significant"])
    t = interval_t(nsig, m, adjust, alpha) if m else None  # READING: m = 0: no t, no intervals
    noise["m"], noise["R"], noise["t"] = m, nsig, t
    noise["interval_level"] = 1.0 - t if t is not None else None
    # -------- section 9
    for r in rows:
        if not r["tested"] or not r["shown"]:
            r["q"], r["significant"] = None, False
            continue
        x, y, k = r["x"], r["y"], r["k"]
        r["chi"] = chi = r["phi"] * f1_isf(t, r["nu"])
        r["ratio_cp"] = cp_ratio(x, y, mo, mn, t)
        r["ratio_lr"] = lr_ratio_interval(x, y, mo, mn, chi)
        if r["own"] is not None:  # the values neither test rejects
            chi_own = r["own"] * f1_isf(t, d)
            lo, hi = lr_ratio_interval(x, y, mo, mn, chi_own)
            r["ratio_lr"] = (max(lo, r["ratio_lr"][0]), min(hi, r["ratio_lr"][1]))
        r["delta_lr"] = lr_delta_interval(x, y, mo, mn, chi)
        if r["own"] is not None:
            lo, hi = lr_delta_interval(x, y, mo, mn, r["own"] * f1_isf(t, d))
            r["delta_lr"] = (max(lo, r["delta_lr"][0]), min(hi, r["delta_lr"][1]))
            # version 3.2: and the log test's: ln theta within diff +- sqrt(var F^-1)
            h = math.sqrt(r["log_var"] * f1_isf(t, d))
            llo, lhi = math.exp(r["log_diff"] - h), math.exp(r["log_diff"] + h)
            # for Delta only the bound nearer no change, when it excludes it
            ldl = delta_of_theta(llo, k, mo, mn) if llo > 1.0 else -INF
            ldh = delta_of_theta(lhi, k, mo, mn) if lhi < 1.0 else INF
            (rlo, rhi), (dlo, dhi) = r["ratio_lr"], r["delta_lr"]
            others_reject = rlo > 1.0 or rhi < 1.0
            if max(rlo, llo) <= min(rhi, lhi):
                r["ratio_lr"] = (max(rlo, llo), min(rhi, lhi))
            elif not others_reject:  # disjoint: the test that rejects no change
                r["ratio_lr"] = (llo, lhi)
            if max(dlo, ldl) <= min(dhi, ldh):
                r["delta_lr"] = (max(dlo, ldl), min(dhi, ldh))
            elif not others_reject:
                r["delta_lr"] = (delta_of_theta(llo, k, mo, mn), delta_of_theta(lhi, k, mo, mn))
        if noise.get("one_run"):
            # section 9: an interval that reaches the band holds no change
            blo, bhi = band_of(noise["one_run"]["shift"])
            lo, hi = r["ratio_lr"]
            if lo <= bhi and hi >= blo:
                r["ratio_lr"] = (min(lo, 1.0), max(hi, 1.0))
                r["delta_lr"] = (min(r["delta_lr"][0], 0.0), max(r["delta_lr"][1], 0.0))
        r["ratio_ci"] = (min(r["ratio_cp"][0], r["ratio_lr"][0]), max(r["ratio_cp"][1], r["ratio_lr"][1]))
        r["delta_cp"] = (delta_of_theta(r["ratio_cp"][0], k, mo, mn), delta_of_theta(r["ratio_cp"][1], k, mo, mn))
        r["delta_ci"] = (min(r["delta_cp"][0], r["delta_lr"][0]), max(r["delta_cp"][1], r["delta_lr"][1]))
        if shares:  # section 9: a share's Delta lies in [-1, 1]
            r["delta_ci"] = (max(-1.0, r["delta_ci"][0]), min(1.0, r["delta_ci"][1]))
    return rows, noise


# =====================================================================
# Test vectors (section 13)
# =====================================================================


def read_folded(path):
    """{symbol: count} of a folded file whose lines are `stack count` (leaf = symbol)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            stack, cnt = line.rsplit(None, 1)
            sym = stack.split(";")[-1]
            out[sym] = out.get(sym, 0) + int(cnt)
    return out


def load_runs(names):
    runs = [read_folded(os.path.join(ROOT, "testdata", "stats", nm + ".folded")) for nm in names]
    return runs, [float(sum(r.values())) for r in runs]


def table_of(old_runs, new_runs):
    syms = sorted(set().union(*[set(r) for r in old_runs + new_runs]))
    keys = [(s, None) for s in syms]
    oc = [[r.get(s, 0) for r in old_runs] for s in syms]
    nc = [[r.get(s, 0) for r in new_runs] for s in syms]
    return syms, keys, oc, nc


def jnum(v):
    """JSON value: floats with infinities as strings, NaN as null."""
    if v is None:
        return None
    if isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, (tuple, list)):
        return [jnum(u) for u in v]
    v = float(v)
    if v == INF:
        return "inf"
    if v == -INF:
        return "-inf"
    if v != v:
        return None
    return v


def mark(r):
    if not r.get("tested"):
        return ""
    return "*" if r["significant"] else "~"


def row_outputs(r, pct=100.0, full=True):
    o = {
        "x": r["x"], "y": r["y"], "mubar": r["mubar"], "phi": r["phi"], "nu": r["nu"], "lr": r["lr"],
        "p_exact": r["p_exact"], "p_ql": r["p_ql"], "p": r["p"] if r["tested"] else None,
        "q": r.get("q"), "tested": r["tested"], "mark": mark(r), "significant": r["significant"],
        "min_p": r["min_p"], "old": r["rho_old"] * pct, "new": r["rho_new"] * pct,
        "delta": r["delta"] * pct, "ratio": r["ratio"],
    }
    if full:
        for f in ("x2", "s2", "s0sq", "d0i", "w", "tail", "phi_p", "nu_p", "p_own", "p_log", "log_diff",
                  "log_var"):
            if f in r:
                o[f] = r[f]
    if r["tested"]:
        o["ratio_ci_exact"] = r["ratio_cp"]
        o["ratio_ci_lr"] = r["ratio_lr"]
        o["ratio_ci"] = r["ratio_ci"]
        o["delta_ci_exact"] = [v * pct for v in r["delta_cp"]]
        o["delta_ci_lr"] = [v * pct for v in r["delta_lr"]]
        o["delta_ci"] = [v * pct for v in r["delta_ci"]]
    else:
        for f in ("ratio_ci_exact", "ratio_ci_lr", "ratio_ci", "delta_ci_exact", "delta_ci_lr", "delta_ci"):
            o[f] = None
    return {k: jnum(v) for k, v in o.items()}


def noise_outputs(nz):
    o = {"method": nz["method"], "residual_df": nz["residual_df"], "tested": nz["m"], "marked": nz["R"],
         "t": nz["t"], "interval_level": nz["interval_level"]}
    o["filter"] = {k: jnum(v) for k, v in nz["filter"].items()} if nz.get("filter") else None
    if nz.get("moderation"):
        o["moderation"] = {k: jnum(v) for k, v in nz["moderation"].items()}
    elif "U" in nz:
        o["moderation"] = None
        o["U"] = nz["U"]
    if nz.get("one_run"):
        o["one_run"] = {k: jnum(v) for k, v in nz["one_run"].items()}
    if nz.get("model"):
        o["model"] = nz["model"]
    if nz.get("runs"):
        o["runs"] = [{k: jnum(v) for k, v in c.items()} for c in nz["runs"]]
    return o


def single_symbol_case(old, new, e_old, e_new, alpha=0.05):
    keys = [("sym", None)]
    rows, nz = analyse(keys, [old], [new], e_old, e_new, alpha)
    return rows[0], nz


def compute_vectors():
    alpha = 0.05
    cases = {}
    # ---- V1
    v1 = {}
    for x, y in ((120, 160), (3, 11), (0, 7), (5, 0)):
        mo = mn = 10000.0
        p, ple, pge = exact_test(x, y, mo, mn)
        lo, hi = cp_ratio(x, y, mo, mn, alpha)
        v1[f"{x}/{y}"] = {
            "inputs": {"x": x, "y": y, "exposure_old": mo, "exposure_new": mn},
            "outputs": {k: jnum(v) for k, v in dict(
                p_exact=p, p_le=ple, p_ge=pge, min_p=min_reachable_p(x + y, mo, mn),
                tested=min_reachable_p(x + y, mo, mn) <= alpha, ratio_ci_exact=(lo, hi),
                delta_ci_exact=(delta_of_theta(lo, x + y, mo, mn) * 100, delta_of_theta(hi, x + y, mo, mn) * 100),
            ).items()},
        }
    cases["V1"] = {"description": "sampling layer: exact conditional test and 95% Clopper-Pearson ratio "
                                  "interval, one symbol, one run per side (t = alpha)",
                   "alpha": alpha, "t": alpha, "subcases": v1}
    # ---- V2-V4
    for name, desc, old, new, eo, en in (
        ("V2", "run layer, one symbol, 3+3 runs (no moderation: phi = max(1, s2), nu = 4)",
         [120, 130, 125], [160, 170, 150], [10000.0, 10100.0, 9900.0], [10050.0, 9950.0, 10000.0]),
        ("V3", "run layer, one symbol, 3+3 runs, constant counts",
         [5, 5, 5], [9, 9, 9], [10000.0] * 3, [10000.0] * 3),
        ("V4", "a symbol from nothing, 2+2 runs (no moderation: nu = 2)",
         [0, 0], [120, 135], [10000.0] * 2, [10000.0] * 2),
    ):
        r, nz = single_symbol_case(old, new, eo, en, alpha)
        out = row_outputs(r)
        out["F"] = jnum(r["F"])
        out["t"] = jnum(nz["t"])
        out["method"] = nz["method"]
        cases[name] = {"description": desc, "alpha": alpha,
                       "inputs": {"old_counts": old, "new_counts": new, "exposures_old": eo, "exposures_new": en},
                       "outputs": out}
    # ---- V5, V6
    for name, desc, on_, nn_ in (
        ("V5", "moderation: old1 old2 vs new1 new2 (d = 2)", ["old1", "old2"], ["new1", "new2"]),
        ("V6", "one run per side: old1 vs new1", ["old1"], ["new1"]),
        ("V6b", "one run per side: old2 vs new1 (not in section 13's list: V6 has kappa-hat = 0, this "
                "pair exercises the kappa-hat root)", ["old2"], ["new1"]),
    ):
        oruns, oe = load_runs(on_)
        nruns, ne = load_runs(nn_)
        syms, keys, oc, nc = table_of(oruns, nruns)
        rows, nz = analyse(keys, oc, nc, oe, ne, alpha)
        cases[name] = {"description": desc, "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                       "inputs": {"old": [f"testdata/stats/{s}.folded" for s in on_],
                                  "new": [f"testdata/stats/{s}.folded" for s in nn_],
                                  "exposures_old": oe, "exposures_new": ne},
                       "outputs": {"noise": noise_outputs(nz),
                                   "rows": {s: row_outputs(r) for s, r in zip(syms, rows)}}}
    # ---- V9 (version 3, section 8.2): a symbol filter chooses the shown
    # rows; the noise is learned from all of them
    oruns, oe = load_runs(["old1", "old2"])
    nruns, ne = load_runs(["new1", "new2"])
    syms, keys, oc, nc = table_of(oruns, nruns)
    pattern = re.compile(r"^[a-h]_")
    rows, nz = analyse(keys, oc, nc, oe, ne, alpha, shown=lambda k: bool(pattern.search(k[0])))
    cases["V9"] = {"description": "symbol filter --include '^[a-h]_' on V5's runs: p as without it, q over "
                                  "the shown rows (section 8.2)",
                   "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                   "include": "^[a-h]_",
                   "inputs": {"old": ["testdata/stats/old1.folded", "testdata/stats/old2.folded"],
                              "new": ["testdata/stats/new1.folded", "testdata/stats/new2.folded"],
                              "exposures_old": oe, "exposures_new": ne},
                   "outputs": {"noise": noise_outputs(nz),
                               "rows": {s: row_outputs(r) for s, r in zip(syms, rows) if r["shown"]}}}
    # ---- V10 (version 3, section 5.5): three OLD runs checked against
    # their siblings
    oruns, oe = load_runs(["rep1", "rep2", "rep3"])
    nruns, ne = load_runs(["new1", "new2"])
    syms, keys, oc, nc = table_of(oruns, nruns)
    rows, nz = analyse(keys, oc, nc, oe, ne, alpha)
    cases["V10"] = {"description": "runs unlike their siblings: rep1 rep2 rep3 vs new1 new2 (d = 3), each "
                                   "OLD run against the other two (section 5.5)",
                    "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                    "inputs": {"old": [f"testdata/stats/rep{i}.folded" for i in (1, 2, 3)],
                               "new": ["testdata/stats/new1.folded", "testdata/stats/new2.folded"],
                               "exposures_old": oe, "exposures_new": ne},
                    "outputs": {"noise": noise_outputs(nz),
                                "rows": {s: row_outputs(r) for s, r in zip(syms, rows)}}}
    # ---- V12 (version 3.3, section 8.3): the independent filter of the family
    oruns, oe = load_runs(["filt-old1", "filt-old2"])
    nruns, ne = load_runs(["filt-new1", "filt-new2"])
    syms, keys, oc, nc = table_of(oruns, nruns)
    rows, nz = analyse(keys, oc, nc, oe, ne, alpha)
    _, nz0 = analyse(keys, oc, nc, oe, ne, alpha, independent=False)
    cases["V12"] = {"description": "independent filtering: filt-old1 filt-old2 vs filt-new1 filt-new2 (d = 2), "
                                   "20 symbols doubled among 150 rare ones (section 8.3, version 3.3); "
                                   "unfiltered: m and R without the filter",
                    "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                    "unfiltered": {"tested": nz0["m"], "marked": nz0["R"]},
                    "inputs": {"old": ["testdata/stats/filt-old1.folded", "testdata/stats/filt-old2.folded"],
                               "new": ["testdata/stats/filt-new1.folded", "testdata/stats/filt-new2.folded"],
                               "exposures_old": oe, "exposures_new": ne},
                    "outputs": {"noise": noise_outputs(nz),
                                "rows": {s: row_outputs(r) for s, r in zip(syms, rows)}}}
    # ---- V11 (version 3.2, section 7.1): separated rows, also tested by
    # the t test of their runs' log rates
    oruns, oe = load_runs(["old1", "old2"])
    nruns, ne = load_runs(["sep-new1", "sep-new2"])
    syms, keys, oc, nc = table_of(oruns, nruns)
    rows, nz = analyse(keys, oc, nc, oe, ne, alpha)
    cases["V11"] = {"description": "separated rows: old1 old2 vs sep-new1 sep-new2 (d = 2); e_stable, "
                                   "h_improved and k_new are separated and also get the log test "
                                   "(section 7.1, version 3.2)",
                    "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                    "inputs": {"old": ["testdata/stats/old1.folded", "testdata/stats/old2.folded"],
                               "new": ["testdata/stats/sep-new1.folded", "testdata/stats/sep-new2.folded"],
                               "exposures_old": oe, "exposures_new": ne},
                    "outputs": {"noise": noise_outputs(nz),
                                "rows": {s: row_outputs(r) for s, r in zip(syms, rows)}}}
    # ---- V7
    rep, re_ = load_runs(["rep1", "rep2", "rep3"])
    msyms = sorted(set().union(*[set(r) for r in rep]))
    model = NoiseModel.learn([(s, None) for s in msyms], [[r.get(s, 0) for r in rep] for s in msyms], re_,
                             source="testdata/stats/rep1.folded rep2.folded rep3.folded")
    mk, mod = model.detail
    mprior = {"symbols": model.U, "residual_df": model.dm}
    if model.moderation:
        mprior.update(trend_c=model.moderation["chat"], trend_r=model.moderation["rhat"],
                      trend_lo=model.moderation["tlo"], trend_hi=model.moderation["thi"],
                      prior_df=model.moderation["d0"], prior_df_cap=model.moderation["dc"], evar=mod["evar"])
    msym_out = {}
    for j, key in enumerate(mk):
        s = model.symbols[key]
        o = dict(mean_count=s["mu"], s2=s["s2"], dispersion=s["phi"], df=s["nu"], kappa=s["kappa"])
        if mod["moderated"]:
            o.update(s0sq=mod["s0sq"][j], d0i=mod["d0i"][j])
        msym_out[key[0]] = {k: jnum(v) for k, v in o.items()}
    comps = {}
    for cname, on_, nn_ in (("1v1", ["old1"], ["new1"]), ("2v2", ["old1", "old2"], ["new1", "new2"])):
        oruns, oe = load_runs(on_)
        nruns, ne = load_runs(nn_)
        syms, keys, oc, nc = table_of(oruns, nruns)
        rows, nz = analyse(keys, oc, nc, oe, ne, alpha, model=model)
        comps[cname] = {"inputs": {"old": [f"testdata/stats/{s}.folded" for s in on_],
                                   "new": [f"testdata/stats/{s}.folded" for s in nn_],
                                   "exposures_old": oe, "exposures_new": ne},
                        "outputs": {"noise": noise_outputs(nz),
                                    "rows": {s: row_outputs(r) for s, r in zip(syms, rows)}}}
    cases["V7"] = {"description": "noise model learned from rep1 rep2 rep3; used for old1 vs new1 and "
                                  "old1 old2 vs new1 new2",
                   "alpha": alpha, "adjust": "Benjamini-Hochberg", "normalize": "share",
                   "model": {"inputs": {"runs": [f"testdata/stats/rep{i}.folded" for i in (1, 2, 3)],
                                        "exposures": re_},
                             "outputs": {"prior": {k: jnum(v) for k, v in mprior.items()}, "symbols": msym_out}},
                   "comparisons": comps}
    # ---- V8
    ps = [0.0001, 0.0008, 0.0021, 0.0039, 0.012, 0.028, 0.041, 0.09, 0.3, 0.8]
    v8 = {}
    for meth, lab in (("bh", "Benjamini-Hochberg"), ("by", "Benjamini-Yekutieli"), ("holm", "Holm")):
        q = adjust_q(ps, meth)
        rr = sum(1 for v in q if v <= alpha)
        v8[lab] = {"q": q, "marked": rr, "t": interval_t(rr, len(ps), meth, alpha),
                   "interval_level": 1 - interval_t(rr, len(ps), meth, alpha)}
    cases["V8"] = {"description": "multiple testing", "alpha": alpha, "inputs": {"p": ps}, "outputs": v8}
    return cases, model


def vectors_json(cases):
    return {
        "schema": "diffprofile statistical test vectors, docs/statistics.md version 3",
        "generated_by": "scripts/verify-stats.py --vectors --json-out (independent; scipy)",
        "conventions": {
            "infinity": "the strings \"inf\" / \"-inf\"; null = not applicable (untested p/q/intervals, "
                        "no prior)",
            "units": "old, new, delta and delta intervals in percent / percentage points (share mode: "
                     "100 x rate); ratio unitless; mubar, s2, phi, lr in counts",
            "marks": "mark: \"*\" significant, \"~\" tested not significant, \"\" untested",
            "fields": "p_exact (section 4), p_ql (section 6), p = max (section 7, null if untested), q "
                      "(section 8), ratio_ci_exact / delta_ci_exact: Clopper-Pearson at level 1 - t (delta "
                      "by Delta(theta)); ratio_ci_lr / delta_ci_lr: inversion of the LR test at chi = phi "
                      "F^-1_(1,nu)(1 - t); ratio_ci / delta_ci: the hull (what diffprofile shows); s0sq = "
                      "s0^2(mubar), d0i the weight after the running maximum (section 5.2 step 6)",
        },
        "cases": cases,
    }


def fmt(v, sig=7):
    if v is None:
        return "-"
    if isinstance(v, str):
        return {"inf": "∞", "-inf": "−∞"}.get(v, v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if v == INF:
        return "∞"
    if v == -INF:
        return "−∞"
    if v == 0:
        return "0"
    return f"{v:.{sig}g}"


def fmt_ci(ci):
    if ci is None:
        return "-"
    return f"[{fmt(ci[0])}, {fmt(ci[1])}]"


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    return "\n".join(out)


def vectors_markdown(cases):
    L = []
    c = cases["V1"]
    L.append("**V1**, sampling layer, one run per side, exposures 10000 / 10000, t = α = 0.05 "
             "(the 5/0 row is never tested: its smallest reachable p is 0.0625 > α).\n")
    L.append(md_table(["old/new", "p_exact", "smallest p", "ratio interval (Clopper-Pearson 95%)"],
                      [[k, fmt(v["outputs"]["p_exact"]), fmt(v["outputs"]["min_p"]),
                        fmt_ci(v["outputs"]["ratio_ci_exact"])] for k, v in c["subcases"].items()]))
    L.append("")
    for name in ("V2", "V3", "V4"):
        c = cases[name]
        o = c["outputs"]
        i = c["inputs"]
        L.append(f"**{name}**, old {i['old_counts']} / new {i['new_counts']}, t = α = 0.05 "
                 f"(Δ in percentage points).\n")
        L.append(md_table(["X²", "s²", "φ", "ν", "LR", "F", "p_ql", "p_exact", "p"],
                          [[fmt(o[f]) for f in ("x2", "s2", "phi", "nu", "lr", "F", "p_ql", "p_exact", "p")]]))
        L.append("")
        L.append(md_table(["", "exact (Clopper-Pearson)", "run layer (LR)", "shown (hull)"],
                          [["ratio", fmt_ci(o["ratio_ci_exact"]), fmt_ci(o["ratio_ci_lr"]), fmt_ci(o["ratio_ci"])],
                           ["Δ (pp)", fmt_ci(o["delta_ci_exact"]), fmt_ci(o["delta_ci_lr"]), fmt_ci(o["delta_ci"])]]))
        L.append("")
    # V5
    c = cases["V5"]
    nz = c["outputs"]["noise"]
    md = nz["moderation"]
    L.append(f"**V5**, moderation, old1 old2 vs new1 new2 (d = 2): |U| = {md['symbols']}, "
             f"r̂ = {fmt(md['trend_r'])}, ĉ = {fmt(md['trend_c'])}, "
             f"[T_lo, T_hi] = [{fmt(md['trend_lo'])}, {fmt(md['trend_hi'])}], d0 = {fmt(md['prior_df'])}, "
             f"d_c = {fmt(md['prior_df_cap'])}; {nz['tested']} tested, R = {nz['marked']}, "
             f"t = {fmt(nz['t'])}.\n")
    rows = c["outputs"]["rows"]
    L.append(md_table(["symbol", "μ̄", "s²", "s0²", "d0_i", "φ", "ν"],
                      [[s] + [fmt(r[f]) for f in ("mubar", "s2", "s0sq", "d0i", "phi", "nu")]
                       for s, r in rows.items()]))
    L.append("")
    L.append(md_table(["symbol", "LR", "p_exact", "p_ql", "p", "q", "mark", "ratio interval", "Δ interval (pp)"],
                      [[s] + [fmt(r[f]) for f in ("lr", "p_exact", "p_ql", "p", "q")]
                       + [r["mark"] or " ", fmt_ci(r["ratio_ci"]), fmt_ci(r["delta_ci"])]
                       for s, r in rows.items()]))
    L.append("")
    # V6, V6b
    for name, lab in (("V6", "old1 vs new1"),
                      ("V6b", "old2 vs new1 (an extra case, not in the list above: V6's κ̂ is 0)")):
        c = cases[name]
        nz = c["outputs"]["noise"]
        orun = nz["one_run"]
        L.append(f"**{name}**, one run per side, {lab}: |U1| = {orun['symbols']}, m̂ = {fmt(orun['shift'])}, "
                 f"κ̂ = {fmt(orun['kappa'])} (ν = 3); {nz['tested']} tested, R = {nz['marked']}, "
                 f"t = {fmt(nz['t'])}.\n")
        rows = c["outputs"]["rows"]
        L.append(md_table(["symbol", "φ", "ν", "p", "q", "mark", "ratio interval", "Δ interval (pp)"],
                          [[s] + [fmt(r[f]) for f in ("phi", "nu", "p", "q")]
                           + [r["mark"] or " ", fmt_ci(r["ratio_ci"]), fmt_ci(r["delta_ci"])]
                           for s, r in rows.items()]))
        L.append("")
    # V7
    c = cases["V7"]
    pr = c["model"]["outputs"]["prior"]
    L.append(f"**V7**, noise model from rep1 rep2 rep3: d_m = {pr['residual_df']}, |U| = {pr['symbols']}, "
             f"r̂ = {fmt(pr.get('trend_r'))}, ĉ = {fmt(pr.get('trend_c'))}, "
             f"[T_lo, T_hi] = [{fmt(pr.get('trend_lo'))}, {fmt(pr.get('trend_hi'))}], d0 = {fmt(pr.get('prior_df'))}, "
             f"d_c = {fmt(pr.get('prior_df_cap'))}.\n")
    L.append(md_table(["symbol", "μ", "s²", "φ", "ν", "κ"],
                      [[s] + [fmt(r[f]) for f in ("mean_count", "s2", "dispersion", "df", "kappa")]
                       for s, r in c["model"]["outputs"]["symbols"].items()]))
    L.append("")
    for cname, lab in (("1v1", "old1 vs new1 with the model (d = 0; old1 joins it, §5.3)"),
                       ("2v2", "old1 old2 vs new1 new2 with the model (d = 2 joins it)")):
        cc = c["comparisons"][cname]
        nz = cc["outputs"]["noise"]
        L.append(f"V7, {lab}: {nz['tested']} tested, R = {nz['marked']}, t = {fmt(nz['t'])}.\n")
        L.append(md_table(["symbol", "φ", "ν", "p", "q", "mark"],
                          [[s] + [fmt(r[f]) for f in ("phi", "nu", "p", "q")] + [r["mark"] or " "]
                           for s, r in cc["outputs"]["rows"].items()]))
        L.append("")
    # V9
    c = cases["V9"]
    nz = c["outputs"]["noise"]
    L.append(f"**V9**, V5's runs with `--include '{c['include']}'`: the noise as V5's; {nz['tested']} tested "
             f"(the rows shown), R = {nz['marked']}, t = {fmt(nz['t'])}.\n")
    L.append(md_table(["symbol", "p", "q", "mark", "ratio interval", "Δ interval (pp)"],
                      [[s] + [fmt(r[f]) for f in ("p", "q")] + [r["mark"] or " ", fmt_ci(r["ratio_ci"]),
                                                                 fmt_ci(r["delta_ci"])]
                       for s, r in c["outputs"]["rows"].items()]))
    L.append("")
    # V11
    c = cases["V11"]
    nz = c["outputs"]["noise"]
    L.append(f"**V11**, separated rows (section 7.1), old1 old2 vs sep-new1 sep-new2 (d = 2): "
             f"{nz['tested']} tested, R = {nz['marked']}, t = {fmt(nz['t'])}; the separated rows, with the "
             f"moderated test's p (`p_mod`, at φ, ν), the own test's and the log test's (on d df).\n")
    sep = [(s, r) for s, r in c["outputs"]["rows"].items() if "p_log" in r]
    L.append(md_table(["symbol", "φ", "ν", "p_mod", "p_own", "log diff", "log var", "p_log", "p", "q", "mark",
                       "ratio (run layer)", "ratio interval", "Δ interval (pp)"],
                      [[s, fmt(r["phi"]), fmt(r["nu"]), fmt(f1_sf(r["lr"] / r["phi"], r["nu"])), fmt(r["p_own"]),
                        fmt(r["log_diff"]), fmt(r["log_var"]), fmt(r["p_log"]), fmt(r["p"]), fmt(r["q"]),
                        r["mark"] or " ", fmt_ci(r["ratio_ci_lr"]), fmt_ci(r["ratio_ci"]), fmt_ci(r["delta_ci"])]
                       for s, r in sep]))
    L.append("")
    # V8
    c = cases["V8"]
    ps = c["inputs"]["p"]
    head = ["p"] + [lab for lab in c["outputs"]]
    body = [[fmt(p)] + [fmt(c["outputs"][lab]["q"][i]) for lab in c["outputs"]] for i, p in enumerate(ps)]
    body.append(["R"] + [str(c["outputs"][lab]["marked"]) for lab in c["outputs"]])
    body.append(["t"] + [fmt(c["outputs"][lab]["t"]) for lab in c["outputs"]])
    L.append("**V8**, multiple testing, m = 10, α = 0.05: q per procedure, R marked, interval t.\n")
    L.append(md_table(head, body))
    return "\n".join(L)


def vectors_plain(cases):
    return json.dumps(vectors_json(cases), indent=1, ensure_ascii=False)


# ---------------------------------------------------------------- mpmath self-check


def selfcheck(cases):
    """Recompute the per-row layer of every vector with mpmath at 40 digits."""
    import mpmath as mp

    mp.mp.dps = 40

    def mbetainc(a, b, z):
        """Regularised I_z(a, b) by a series of positive terms (with symmetry)."""
        a, b, z = mp.mpf(a), mp.mpf(b), mp.mpf(z)
        if z <= 0:
            return mp.mpf(0)
        if z >= 1:
            return mp.mpf(1)
        if z > a / (a + b):
            return 1 - mbetainc(b, a, 1 - z)
        lead = mp.exp(a * mp.log(z) + b * mp.log1p(-z) - mp.log(a) - mp.log(mp.beta(a, b)))
        return lead * mp.hyp2f1(a + b, 1, a + 1, z)

    def mbetaincc(a, b, z):
        return mbetainc(b, a, 1 - mp.mpf(z))

    def mdev(c, mu):
        c, mu = mp.mpf(c), mp.mpf(mu)
        return mu if c == 0 else c * mp.log(c / mu) - c + mu

    def mf1_isf(t, nu):
        t = mp.mpf(t)
        if nu == INF:
            return mp.findroot(lambda f: mp.erfc(mp.sqrt(f / 2)) - t, mp.mpf(f1_isf(float(t), nu)))
        nu = mp.mpf(nu)
        return mp.findroot(lambda f: mbetainc(nu / 2, 0.5, nu / (nu + f)) - t,
                           mp.mpf(f1_isf(float(t), float(nu))))

    def mrow(x, y, mo, mn, phi, nu, t):
        x, y, mo, mn, phi = (mp.mpf(v) for v in (x, y, mo, mn, phi))
        k, m = x + y, mo + mn
        pi0 = mn / m
        pge = mp.mpf(1) if y == 0 else mbetainc(y, k - y + 1, pi0)
        ple = mp.mpf(1) if y == k else mbetainc(k - y, y + 1, 1 - pi0)
        pex = min(1, 2 * min(ple, pge))
        lr = 2 * (mdev(x, k * mo / m) + mdev(y, k * mn / m))
        f = lr / phi
        pql = mp.erfc(mp.sqrt(f / 2)) if nu == INF else \
            mbetainc(mp.mpf(nu) / 2, 0.5, mp.mpf(nu) / (nu + f))
        out = {"p_exact": pex, "lr": lr, "p_ql": pql}
        if t is None:
            return out
        chi = phi * mf1_isf(t, nu)
        r = mo / mn

        def G(th):
            pi = th * mn / (mo + th * mn)
            return 2 * (mdev(y, k * pi) + mdev(x, k * (1 - pi)))

        def Dd(dl):
            q = k - m * dl
            a = (q + mp.sqrt(q * q + 4 * m * x * dl)) / (2 * m)
            b = a + dl
            return 2 * (mdev(x, mo * a) + mdev(y, mn * b))

        th = []
        for lo_hi in (0, 1):
            if y == 0 and lo_hi == 0:
                th.append(mp.mpf(0))
            elif x == 0 and lo_hi == 1:
                th.append(mp.inf)
            else:
                guess = mp.mpf(cases_cache["ratio_lr"][lo_hi])
                th.append(mp.findroot(lambda z: G(z) - chi, guess))
        dl = [mp.findroot(lambda z: Dd(z) - chi, mp.mpf(cases_cache["delta_lr"][j] / 100)) for j in (0, 1)]
        t2 = mp.mpf(t) / 2
        cp = []
        cp.append(mp.mpf(0) if y == 0 else
                  mp.findroot(lambda z: mbetainc(y, x + 1, z) - t2,
                              mp.mpf(cases_cache["pi_l"])))
        cp.append(mp.mpf(1) if x == 0 else
                  mp.findroot(lambda z: mbetaincc(y + 1, x, z) - t2,
                              mp.mpf(cases_cache["pi_u"])))
        out.update(ratio_lr=th, delta_lr=[v * 100 for v in dl],
                   ratio_cp=[p / (1 - p) * r if p < 1 else mp.inf for p in cp])
        return out

    worst = {}

    def upd(name, a, b):
        a, b = float(a), float(b)
        if a == b:
            e = 0.0
        elif math.isinf(a) or math.isinf(b):
            e = INF
        else:
            e = abs(a - b) / max(abs(a), abs(b), 1e-300)
        worst[name] = max(worst.get(name, 0.0), e)

    cases_cache = {}

    def check(o, x, y, mo, mn, t):
        nonlocal cases_cache
        if o["ratio_ci_lr"] is not None:
            # bracketing guesses for mpmath: this script's float answers
            num_ = lambda v: INF if v == "inf" else v  # noqa: E731
            lo, hi = (num_(v) for v in o["ratio_ci_exact"])
            cases_cache = {"ratio_lr": [num_(v) for v in o["ratio_ci_lr"]], "delta_lr": o["delta_ci_lr"],
                           "pi_l": lo / (lo + mo / mn), "pi_u": 1.0 if hi == INF else hi / (hi + mo / mn)}
        # a separated row (section 7.1) takes the smallest of three run-layer
        # tests: only its exact layer and LR are the single-(phi, nu) ones
        sep = "p_own" in o
        res = mrow(x, y, mo, mn, o["phi"], INF if o["nu"] == "inf" else o["nu"],
                   t if o["ratio_ci_lr"] is not None and not sep else None)
        upd("p_exact", o["p_exact"], res["p_exact"])
        upd("lr", o["lr"], res["lr"])
        if sep:
            return
        upd("p_ql", o["p_ql"], res["p_ql"])
        if "ratio_lr" in res:
            for j in (0, 1):
                for nm_, key in (("ratio_lr", "ratio_ci_lr"), ("delta_lr", "delta_ci_lr"),
                                 ("ratio_cp", "ratio_ci_exact")):
                    v = o[key][j]
                    v = INF if v == "inf" else v
                    upd(nm_, v, res[nm_][j])

    for name in ("V2", "V3", "V4"):
        c = cases[name]
        i = c["inputs"]
        check(c["outputs"], sum(i["old_counts"]), sum(i["new_counts"]), sum(i["exposures_old"]),
              sum(i["exposures_new"]), c["outputs"]["t"])
    for name, cc in (("V5", cases["V5"]), ("V6", cases["V6"]), ("V6b", cases["V6b"]), ("V7/1v1", cases["V7"]["comparisons"]["1v1"]),
                     ("V7/2v2", cases["V7"]["comparisons"]["2v2"])):
        i = cc["inputs"]
        t = cc["outputs"]["noise"]["t"]
        for s, o in cc["outputs"]["rows"].items():
            check(o, o["x"], o["y"], sum(i["exposures_old"]), sum(i["exposures_new"]), t)
    # moderation special functions
    for dval in (1.0, 2.0, 4.0):
        upd("digamma", sp.digamma(dval / 2), mp.digamma(mp.mpf(dval) / 2))
        upd("trigamma", sp.polygamma(1, dval / 2), mp.psi(1, mp.mpf(dval) / 2))
    for ev in (1e-7, 0.01, 0.3, 2.0, 50.0, 1e6):
        y = trigamma_inv(ev)
        upd("trigamma_inv", y, mp.findroot(lambda z: mp.psi(1, z) - ev, mp.mpf(y)))
    return worst


# =====================================================================
# Check mode
# =====================================================================

REL = 1e-6
FLOOR = 1e-12

# diffprofile options (from its --help); refreshed from `--help` at run time
VALUE_OPTS = {"--format", "--normalize", "--jobs", "--event", "--run-info", "--weight", "--comm", "--dso",
              "--include", "--exclude", "--percentage", "--alias", "--group-by", "--map", "--old-map",
              "--new-map", "--kallsyms", "--output", "--sort", "--top", "--min-delta", "--alpha", "--adjust",
              "--noise-cv", "--noise-model", "--color"}
MULTI_OPTS = {"--old", "--new", "--noise-from"}
SHORT = {"-f": "--format", "-n": "--normalize", "-j": "--jobs", "-o": "--output", "-h": "--help",
         "-V": "--version"}
# options that shape the per-run counts (passed on when diffprofile is used as a parser)
INPUT_OPTS = {"--format", "--normalize", "--jobs", "--event", "--run-info", "--weight", "--inclusive",
              "--kernel-only", "--comm", "--dso", "--lenient", "--include", "--exclude", "--exclude-idle",
              "--percentage", "--keep-suffixes", "--alias", "--group-by", "--map", "--kallsyms"}


def refresh_opts(binp):
    try:
        h = subprocess.run([binp, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return
    for mm in re.finditer(r"^\s+(?:(-\w), )?(--[\w-]+)(?: <[^>]+>(\.\.\.)?)?", h, re.M):
        short, long_, multi = mm.group(1), mm.group(2), mm.group(3)
        has_val = "<" in mm.group(0)
        if short:
            SHORT[short] = long_
        if multi:
            MULTI_OPTS.add(long_)
        elif has_val:
            VALUE_OPTS.add(long_)


def split_args(args):
    """diffprofile args -> (list of (long, [values]) options, positional list)."""
    opts, pos = [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            pos.extend(args[i + 1:])
            break
        if a.startswith("--") and "=" in a:
            nm, v = a.split("=", 1)
            opts.append((nm, [v]))
            i += 1
            continue
        nm = SHORT.get(a, a) if a.startswith("-") and a != "-" else None
        if nm is None:
            pos.append(a)
            i += 1
        elif nm in MULTI_OPTS:
            j = i + 1
            while j < len(args) and (args[j] == "-" or not args[j].startswith("-")):
                j += 1
            opts.append((nm, args[i + 1:j]))
            i = j
        elif nm in VALUE_OPTS:
            opts.append((nm, args[i + 1:i + 2]))
            i += 2
        else:
            opts.append((nm, []))
            i += 1
    return opts, pos


def opt_value(opts, name):
    for nm, vals in opts:
        if nm == name:
            return vals
    return None


def input_opt_args(opts):
    out = []
    for nm, vals in opts:
        if nm in INPUT_OPTS:
            out.append(nm)
            out.extend(vals)
    return out


def run_json(cmd):
    pr = subprocess.run(cmd, capture_output=True, text=True)
    if pr.returncode not in (0, 1) or not pr.stdout.strip():
        sys.stderr.write(pr.stderr)
        raise RuntimeError(f"{' '.join(cmd)} failed ({pr.returncode})")
    return json.loads(pr.stdout)


def row_key(r):
    return (r["symbol"], r.get("dso"))


def learn_model_with_binary(binp, opts, runs):
    """Per-run counts of the noise runs (diffprofile as a parser), then section 5.3."""
    # every noise run on the old side (files, directories or archives alike);
    # the new side is a dummy, ignored
    cmd = [binp] + input_opt_args(opts) + ["--old"] + runs + ["--new", runs[0], "-o", "json"]
    doc = run_json(cmd)
    exps = [r["exposure"] for r in doc["sides"][0]["runs"]]
    keys, counts = [], []
    for r in doc["rows"]:
        keys.append(row_key(r))
        counts.append(list(r["old_counts"]))
    return NoiseModel.learn(keys, counts, exps, source=" ".join(runs)), doc.get("normalize")


def mean_exposure(doc):
    """The mean exposure of a model file's runs (None without runs)."""
    ex = [float(r["exposure"]) for r in doc.get("runs", []) if r.get("exposure") is not None]
    return math.fsum(ex) / len(ex) if ex else None


def num(v, null=None):
    """JSON number -> float; null -> `null` argument (e.g. INF)."""
    if v is None:
        return null
    if isinstance(v, str):
        return {"inf": INF, "-inf": -INF, "Infinity": INF, "-Infinity": -INF}.get(v, float(v))
    return float(v)


class Checker:
    def __init__(self, label):
        self.label = label
        self.maxerr = {}
        self.mism = []
        self.notes = []
        self.rows = 0
        self.untested = 0
        self.sig = [0, 0]
        self.method = "?"

    def err(self, field, mine, theirs, where, rel_tol=REL, tail=False):
        """Compare numbers (None = infinite or absent as the caller decides)."""
        e = relerr(mine, theirs, tail)
        self.maxerr[field] = max(self.maxerr.get(field, 0.0), e)
        if e > rel_tol:
            self.mism.append(f"{where}: {field} mine={fmtv(mine)} theirs={fmtv(theirs)} (rel {e:.2e})")
            return False
        return True

    def fail(self, msg):
        self.mism.append(msg)


def relerr(a, b, tail=False):
    if a is None or b is None:
        return 0.0 if a is None and b is None else INF
    a, b = float(a), float(b)
    if a == b:
        return 0.0
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return INF
    e = abs(a - b) / max(abs(a), abs(b), FLOOR / REL)
    if tail and min(abs(a), abs(b)) > 1e-300:
        e = max(e, abs(a - b) / max(abs(a), abs(b)))
    return e


def fmtv(v):
    return "null" if v is None else (f"{v:.10g}" if isinstance(v, float) else str(v))


def check_model_doc(ck, mdoc, mine, where):
    """Compare a noise-model file with a model computed here."""
    ck.err("model.residual_df", mine.dm, mdoc.get("residual_df"), where)
    if mdoc.get("runs") is not None and mine.runs:
        ck.err("model.runs", mine.runs, len(mdoc["runs"]), where)
    mo = mdoc.get("moderation")
    if (mo is None) != (mine.moderation is None):
        ck.fail(f"{where}: moderation {'absent' if mo is None else 'present'} in the file, "
                f"{'absent' if mine.moderation is None else 'present'} here (|U| = {mine.U})")
    elif mo is not None:
        m = mine.moderation
        ck.err("model.symbols(|U|)", m["U"], mo.get("symbols"), where)
        ck.err("model.trend_c", m["chat"], mo.get("trend_c"), where)
        ck.err("model.trend_r", m["rhat"], mo.get("trend_r"), where)
        ck.err("model.trend_lo", m["tlo"], mo.get("trend_lo"), where)
        ck.err("model.trend_hi", m["thi"], mo.get("trend_hi"), where)
        ck.err("model.prior_df", None if m["d0"] == INF else m["d0"], mo.get("prior_df"), where)
        ck.err("model.prior_df_cap", m["dc"], mo.get("prior_df_cap"), where)
    fsyms = {(s["symbol"], s.get("dso")): s for s in mdoc.get("symbols", [])}
    if set(fsyms) != set(mine.symbols):
        ck.fail(f"{where}: symbol sets differ: only in file {sorted(set(fsyms) - set(mine.symbols))[:5]}, "
                f"only here {sorted(set(mine.symbols) - set(fsyms))[:5]}")
    for key in set(fsyms) & set(mine.symbols):
        s, me = fsyms[key], mine.symbols[key]
        w = f"{where} {key[0]}"
        ck.err("model.mean_count", me["mu"], s.get("mean_count"), w)
        if s.get("s2") is not None and me.get("s2") is not None:
            ck.err("model.s2", me["s2"], s["s2"], w)
        ck.err("model.dispersion", me["phi"], s.get("dispersion"), w)
        ck.err("model.df", None if me["nu"] == INF else me["nu"], s.get("df"), w)
        ck.err("model.kappa", me["kappa"], s.get("kappa"), w)


def model_self_consistency(ck, mdoc, where):
    """Section 5.2 recomputed from the file's own mean_count and s2."""
    syms = mdoc.get("symbols", [])
    if not syms or any(s.get("s2") is None for s in syms):
        ck.notes.append("model file has no s2: its moderation not recomputed")
        return
    dm = mdoc["residual_df"]
    keys = [(s["symbol"], s.get("dso")) for s in syms]
    mus = [float(s["mean_count"]) for s in syms]
    s2 = [float(s["s2"]) for s in syms]
    mod = moderate(s2, mus, dm)
    ss = {}
    for j, key in enumerate(keys):
        ss[key] = dict(mu=mus[j], s2=s2[j], phi=mod["phi"][j], nu=mod["nu"][j],
                       kappa=(mod["phi"][j] - 1) / mus[j])
    prior = None
    if mod["moderated"]:
        prior = dict(U=mod["U"], chat=mod["chat"], rhat=mod["rhat"], tlo=mod["tlo"], thi=mod["thi"],
                     d0=mod["d0"], dc=mod["dc"])
    nm = NoiseModel("file", len(mdoc.get("runs", [])), dm, prior, ss, per_run=mean_exposure(mdoc))
    nm.U = mod["U"]
    check_model_doc(ck, mdoc, nm, where)


def check_comparison(ck, doc, sides, rows_in, alpha, adjust, model, noise_cv, noise_obj, scale, check_noise=True):
    """Recompute one two-side comparison and compare with diffprofile's rows."""
    on = [float(r["exposure"]) for r in sides[0]["runs"]]
    nn = [float(r["exposure"]) for r in sides[1]["runs"]]
    keep = [r for r in rows_in if sum(r["old_counts"]) + sum(r["new_counts"]) > 0]
    for r in rows_in:
        if sum(r["old_counts"]) + sum(r["new_counts"]) == 0 and r.get("p") is not None:
            ck.fail(f"{r['symbol']}: all-zero counts but tested")
    for r in keep:
        if len(r["old_counts"]) != len(on) or len(r["new_counts"]) != len(nn):
            raise RuntimeError(f"{r['symbol']}: counts per run don't match the runs")
    keys = [row_key(r) for r in keep]
    mine, nz = analyse(keys, [r["old_counts"] for r in keep], [r["new_counts"] for r in keep], on, nn,
                       alpha, adjust, model, noise_cv, shares=doc.get("normalize", "share") == "share")
    ck.method = nz["method"]
    ck.rows += len(keep)
    t = nz["t"]
    for me, th in zip(mine, keep):
        w = th["symbol"] + (f" [{th['dso']}]" if th.get("dso") else "")
        their_tested = th.get("p") is not None
        if me["tested"] != their_tested:
            if abs(me["min_p"] - alpha) <= 1e-9 * alpha:
                ck.notes.append(f"{w}: tested differs at the boundary min_p = alpha")
            else:
                ck.fail(f"{w}: tested mine={me['tested']} theirs={their_tested} (k={me['k']}, "
                        f"min_p={me['min_p']:.3g})")
            continue
        # values
        if scale is not None:
            ck.err("old", me["rho_old"] * scale, th.get("old"), w)
            ck.err("new", me["rho_new"] * scale, th.get("new"), w)
            ck.err("delta", me["delta"] * scale, th.get("delta"), w)
        if me["x"] > 0 or th.get("ratio") is not None:
            ck.err("ratio", None if me["ratio"] == INF else me["ratio"], th.get("ratio"), w)
        # dispersion
        if th.get("dispersion") is not None:
            ck.err("dispersion", me["phi"], th["dispersion"], w)
            ck.err("df", None if me["nu"] == INF else me["nu"], th.get("df"), w)
        elif me["tested"]:
            ck.fail(f"{w}: tested row without dispersion")
        if not me["tested"]:
            ck.untested += 1
            for f in ("q", "ratio_ci", "delta_ci"):
                if th.get(f) is not None:
                    ck.fail(f"{w}: untested row has {f}")
            if th.get("significant"):
                ck.fail(f"{w}: untested row marked significant")
            continue
        ck.err("p", me["p"], th["p"], w, tail=True)
        ck.err("q", me["q"], th.get("q"), w, tail=True)
        if bool(th.get("significant")) != me["significant"]:
            if abs(me["q"] - alpha) <= 1e-6 * alpha:
                ck.notes.append(f"{w}: mark differs at the boundary q = alpha")
            else:
                ck.fail(f"{w}: significant mine={me['significant']} theirs={th.get('significant')} "
                        f"(q={me['q']:.6g})")
        if th.get("significant"):
            ck.sig[0 if me["delta"] > 0 else 1] += 1
        rc, dc = th.get("ratio_ci"), th.get("delta_ci")
        if rc is None or dc is None:
            ck.fail(f"{w}: tested row without intervals")
            continue
        lo, hi = me["ratio_ci"]
        ck.err("ratio_ci.lo", lo, num(rc[0], 0.0), w)
        ck.err("ratio_ci.hi", None if hi == INF else hi, rc[1], w)
        if scale is not None:
            dlo, dhi = (v * scale for v in me["delta_ci"])
            ck.err("delta_ci.lo", dlo, num(dc[0], None), w)
            ck.err("delta_ci.hi", dhi, num(dc[1], None), w)
        # section 9 consistency, on diffprofile's own numbers
        rlo, rhi = num(rc[0], 0.0), num(rc[1], INF)
        dlo_, dhi_ = num(dc[0], -INF), num(dc[1], INF)
        ex_r = rlo > 1 or rhi < 1
        ex_d = dlo_ > 0 or dhi_ < 0
        sig = bool(th.get("significant"))
        if not (sig == ex_r == ex_d):
            if t is not None and abs(me["p"] - t) <= 1e-9 * t:
                ck.notes.append(f"{w}: section 9 consistency at the boundary p = t")
            else:
                ck.fail(f"{w}: section 9 consistency: significant={sig}, ratio interval excludes 1: {ex_r}, "
                        f"delta interval excludes 0: {ex_d} (p={me['p']:.6g}, t={t})")
        ck.maxerr.setdefault("consistency", 0.0)
    if check_noise and noise_obj is not None:
        check_noise_obj(ck, noise_obj, nz)
    return mine, nz


def check_noise_obj(ck, no, nz):
    w = "noise"
    if no.get("method") != nz["method"]:
        ck.fail(f"noise.method mine={nz['method']} theirs={no.get('method')}")
        return
    ck.err("noise.residual_df", nz["residual_df"], no.get("residual_df"), w)
    if nz["interval_level"] is not None:
        ck.err("noise.interval_level", nz["interval_level"], no.get("interval_level"), w, tail=False)
    else:
        ck.notes.append(f"no tested row: interval_level not checked (theirs {no.get('interval_level')})")
    mod = no.get("moderation")
    if nz["moderation"] is not None:
        if mod is None:
            ck.fail("noise.moderation missing")
        else:
            m = nz["moderation"]
            ck.err("noise.moderation.symbols", m["symbols"], mod.get("symbols"), w)
            ck.err("noise.moderation.trend_c", m["trend_c"], mod.get("trend_c"), w)
            ck.err("noise.moderation.trend_r", m["trend_r"], mod.get("trend_r"), w)
            ck.err("noise.moderation.prior_df", None if m["prior_df"] == INF else m["prior_df"],
                   mod.get("prior_df"), w)
            ck.err("noise.moderation.prior_df_cap", m["prior_df_cap"], mod.get("prior_df_cap"), w)
    elif mod is not None:
        # READING: "moderation: none" may be null or an object with |U| < 10
        if nz["method"] == "runs" and mod.get("symbols") == nz.get("U") and (mod.get("symbols") or 0) < 10:
            ck.notes.append("moderation none reported as an object with |U| < 10")
        else:
            ck.fail(f"noise.moderation present ({mod}) where this script has none (|U| = {nz.get('U')})")
    orun = no.get("one_run")
    if nz["one_run"] is not None:
        if orun is None:
            ck.fail("noise.one_run missing")
        else:
            o = nz["one_run"]
            ck.err("noise.one_run.symbols", o["symbols"], orun.get("symbols"), w)
            ck.err("noise.one_run.shift", o["shift"], orun.get("shift"), w)
            ck.err("noise.one_run.kappa", o["kappa"], orun.get("kappa"), w)
            ck.err("noise.one_run.reference_df", 3, orun.get("reference_df"), w)
    elif orun is not None and orun.get("symbols") != nz.get("U1"):
        ck.fail(f"noise.one_run {orun} (|U1| here {nz.get('U1')})")
    if nz["model"] is not None:
        mm = no.get("model")
        if mm is None:
            ck.fail("noise.model missing")
        else:
            if nz["model"]["runs"]:
                ck.err("noise.model.runs", nz["model"]["runs"], mm.get("runs"), w)
            ck.err("noise.model.residual_df", nz["model"]["residual_df"], mm.get("residual_df"), w)
    if nz["method"] == "one-run-assumed":
        ck.err("noise.noise_cv", nz["noise_cv"], no.get("noise_cv"), w)


def verify_doc(doc, label, model, noise_cv, alpha_override=None):
    ck = Checker(label)
    norm = doc.get("normalize", "share")
    scale = {"share": 100.0, "ticks": 1.0}.get(norm)
    if scale is None:
        ck.notes.append(f"normalize={norm}: values in the output unit (old/new/delta/delta_ci) not checked")
    alpha = alpha_override if alpha_override is not None else float(doc.get("alpha", 0.05))
    adjust = ADJ_NAMES.get(doc.get("adjust", "Benjamini-Hochberg"))
    if adjust is None:
        raise RuntimeError(f"unknown adjust {doc.get('adjust')}")
    noise_obj = doc.get("noise")
    if isinstance(noise_obj, dict) and noise_obj.get("method") == "not-tested":
        ck.method = "not-tested"
        for r in doc["rows"]:
            if r.get("p") is not None:
                ck.fail(f"{r['symbol']}: method not-tested but p given")
        ck.rows = len(doc["rows"])
        ck.notes.append("method not-tested: only the absence of p checked")
        return ck
    sides = doc["sides"]
    rows = doc["rows"]
    if isinstance(noise_obj, dict) and noise_obj.get("method") == "noise-model" and model is None:
        raise RuntimeError("the comparison used a noise model: give the model (--noise-model FILE)")
    if len(sides) == 2:
        check_comparison(ck, doc, sides, rows, alpha, adjust, model, noise_cv, noise_obj, scale)
        if doc.get("untested") is not None:
            ck.err("untested", ck.untested, doc["untested"], "top level")
        return ck
    # more than two sides: READING of the README's `vs` shape
    ck.method = "multi-side"
    if not rows or "vs" not in rows[0]:
        ck.notes.append("multi-side JSON without rows[].vs: not checked (SKIPPED)")
        ck.skipped = True
        return ck
    comps = doc.get("comparisons") or []
    for j in range(len(sides) - 1):
        sub_rows = []
        side_ix = None
        want = sides[j + 1].get("name")
        for r in rows:
            # a row's `vs` lists only the comparisons whose rows hold it
            v = next((x for x in r["vs"] if x.get("side") in (want, j + 1)), None)
            if v is None:
                continue
            sv = v.get("side")
            if isinstance(sv, int):
                side_ix = sv
            elif isinstance(sv, str):
                names = [s.get("name") for s in sides]
                side_ix = names.index(sv) if sv in names else None
            merged = dict(v)
            merged["symbol"] = r["symbol"]
            if r.get("dso") is not None:
                merged["dso"] = r["dso"]
            if "old_counts" not in merged:
                merged["old_counts"] = r["old_counts"]
            sub_rows.append(merged)
        if side_ix is None:
            side_ix = j + 1
        sub = Checker(f"{label} [old vs {sides[side_ix].get('name')}]")
        _, nz = check_comparison(sub, doc, [sides[0], sides[side_ix]], sub_rows, alpha, adjust, model,
                                 noise_cv, noise_obj if j == 0 else None, scale)
        if j < len(comps) and isinstance(comps[j], dict) and comps[j].get("noise_method") is not None:
            theirs = comps[j]["noise_method"]
            theirs = theirs.get("method") if isinstance(theirs, dict) else theirs
            if theirs != nz["method"]:
                sub.fail(f"comparisons[{j}].noise_method mine={nz['method']} theirs={theirs}")
        ck.rows += sub.rows
        ck.untested += sub.untested
        ck.sig = [ck.sig[0] + sub.sig[0], ck.sig[1] + sub.sig[1]]
        for k2, v2 in sub.maxerr.items():
            ck.maxerr[k2] = max(ck.maxerr.get(k2, 0.0), v2)
        ck.mism += [f"[vs {sides[side_ix].get('name')}] {m}" for m in sub.mism]
        ck.notes += sub.notes
    return ck


def summary_line(ck):
    worst = max(ck.maxerr.values()) if ck.maxerr else 0.0
    status = "MISMATCH" if ck.mism else ("SKIP" if getattr(ck, "skipped", False) else "ok")
    return (f"{status} {ck.label}: method={ck.method} rows={ck.rows} untested={ck.untested} "
            f"sig+={ck.sig[0]} sig-={ck.sig[1]} maxrel={worst:.2e} mismatches={len(ck.mism)}")


def report(ck, verbose):
    print(summary_line(ck))
    if verbose or ck.mism:
        fields = sorted(ck.maxerr.items(), key=lambda kv: -kv[1])
        if not verbose:
            fields = [kv for kv in fields if kv[1] > 0][:10] or fields[:3]
        print("   max relative error per field: " + ", ".join(f"{k}={v:.1e}" for k, v in fields))
    for m in ck.mism[:25]:
        print("   MISMATCH", m)
    if len(ck.mism) > 25:
        print(f"   ... {len(ck.mism) - 25} more")
    for n in ck.notes[: (50 if verbose else 5)]:
        print("   note:", n)


# =====================================================================
# main
# =====================================================================



# =====================================================================
# Section 14: steps along a series of kernels (`diffprofile history --history`)
# =====================================================================
# Written from section 14 of docs/statistics.md alone.  The series is read
# from a tree DIR/<kernel>/<bench>/*.folded (a run's total is the sum of its
# lines; share mode); kernels in version order (numbers compared, -rcN
# before its release), READING: every kernel name of a vector tree is a
# version, so the other names' order is not needed here.


def h_version_key(name):
    m = re.match(r"^v?(\d+(?:\.\d+)+)(?:-rc(\d+))?$", name)
    if not m:
        raise ValueError(f"{name}: the --history tree's kernels must be versions")
    nums = [int(x) for x in m.group(1).split(".")]
    while len(nums) > 2 and nums[-1] == 0:
        nums.pop()
    nums += [0] * (6 - len(nums))
    rc = m.group(2)
    return (nums, 0 if rc is not None else 1, int(rc or 0))


def h_chi2_median(g):
    return 2.0 * float(sp.gammaincinv(g / 2.0, 0.5))


def h_pearson(pairs):
    """Pearson's X^2 of (count, exposure) runs around their pooled rate."""
    c = sum(x for x, _ in pairs)
    e = sum(n for _, n in pairs)
    rho = c / e
    out = 0.0
    for x, n in pairs:
        mu = n * rho
        if mu > 0:
            out += (x - mu) ** 2 / mu
    return out


def h_trend_deviance(C, E):
    """Deviance of the Poisson log-linear trend in the kernel's place.

    READING: fitted here by scipy's minimiser on the deviance (polished by
    Newton steps), not by the document's iteration; only its value matters."""
    L = len(C)
    t = [k - (L - 1) / 2.0 for k in range(L)]

    def deviance(b):
        return 2.0 * math.fsum(dev(c, e * math.exp(b[0] + b[1] * tk)) for c, e, tk in zip(C, E, t))

    b0 = math.log(sum(C) / sum(E))
    best = so.minimize(deviance, [b0, 0.0], method="Nelder-Mead",
                       options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 20000})
    b = list(best.x)
    for _ in range(50):
        mu = [e * math.exp(b[0] + b[1] * tk) for e, tk in zip(E, t)]
        g0 = sum(c - m for c, m in zip(C, mu))
        g1 = sum((c - m) * tk for c, m, tk in zip(C, mu, t))
        h00, h01 = sum(mu), sum(m * tk for m, tk in zip(mu, t))
        h11 = sum(m * tk * tk for m, tk in zip(mu, t))
        det = h00 * h11 - h01 * h01
        if not det > 0:
            break
        nb = [b[0] + (h11 * g0 - h01 * g1) / det, b[1] + (h00 * g1 - h01 * g0) / det]
        if deviance(nb) <= deviance(b):
            b = nb
        else:
            break
    return min(deviance(b), best.fun)


def h_enter(z, rho):
    """P(|Z_j| >= z, |Z_{j-1}| < z) for standard normals correlated by rho.

    READING: the document's integral, by scipy's adaptive quadrature (split
    at z + 0.5) instead of its fixed Gauss-Legendre rule."""
    from scipy.integrate import quad
    from scipy.stats import norm
    s = math.sqrt(max(0.0, 1.0 - rho * rho))
    if s < 1e-12:
        return 0.0
    f = lambda x: norm.pdf(x) * (norm.cdf((z - rho * x) / s) - norm.cdf((-z - rho * x) / s))
    a = quad(f, z, z + 0.5, epsabs=0, epsrel=1e-12, limit=200)[0]
    b = quad(f, z + 0.5, z + 40.0, epsabs=0, epsrel=1e-12, limit=200)[0]
    return 2.0 * (a + b)


def h_max_p(p_point, shares):
    """Section 14.1: Worsley's bound along the chain of the segment's splits."""
    if p_point <= 0:
        return 0.0
    if p_point >= 1 or len(shares) <= 1:
        return min(1.0, p_point)
    z = float(sp.erfcinv(p_point)) * math.sqrt(2.0)
    u = [f / (1.0 - f) for f in shares]
    p = p_point + math.fsum(h_enter(z, math.sqrt(u[j - 1] / u[j])) for j in range(1, len(u)))
    return min(1.0, p)


def h_level_for(t, shares):
    """Section 14.4: the per-split level whose bound is t (brentq on log level)."""
    if t <= 0 or t >= 1 or h_max_p(t, shares) <= t:
        return t
    lo = math.log(t / len(shares))
    g = lambda l: h_max_p(math.exp(l), shares) - t
    return math.exp(so.brentq(g, lo, math.log(t), xtol=1e-14, rtol=1e-13))


def h_shares(E, N, a, b):
    """The exposure shares before each split of [a, b) with two runs on each side."""
    te, tn = math.fsum(E[a:b]), sum(N[a:b])
    return [math.fsum(E[a:tau]) / te for tau in range(a + 1, b)
            if sum(N[a:tau]) >= 2 and tn - sum(N[a:tau]) >= 2]


def h_candidate(C, E, N, a, b, phi, nu, alpha, phi0):
    """Section 14.1: the best split of kernels [a, b) and its test."""
    L = b - a
    if L < 2:
        return None
    tc, te = math.fsum(C[a:b]), math.fsum(E[a:b])
    if tc <= 0:
        return None
    best = None
    for tau in range(a + 1, b):
        if sum(N[a:tau]) < 2 or sum(N[tau:b]) < 2:
            continue  # each side of a split needs two runs
        x, mx = math.fsum(C[a:tau]), math.fsum(E[a:tau])
        y, my = math.fsum(C[tau:b]), math.fsum(E[tau:b])
        lr = lr_stat(x, y, mx, my)
        if best is None or lr > best[1] * (1 + 1e-12):
            best = (tau, lr, x, mx, y, my)
    if best is None:
        return None
    tau, lr, x, mx, y, my = best
    shares = h_shares(E, N, a, b)
    if h_max_p(min_reachable_p(tc, mx, my), shares) > alpha:
        return None
    p_point = max(exact_test(x, y, mx, my)[0], f1_sf(lr / phi, nu))
    drift = False
    if L >= 3:
        left, right = x / mx, y / my
        dstep = 2.0 * math.fsum(dev(C[k], E[k] * (left if k < tau else right)) for k in range(a, b))
        dtrend = h_trend_deviance(C[a:b], E[a:b])
        drift = dtrend < dstep * (1 - 1e-9) - 1e-9 and f1_sf((dstep - dtrend) / phi0, INF) <= alpha
    p = 1.0 if drift else h_max_p(p_point, shares)
    return dict(start=a, end=b, at=tau, lr=lr, p_point=p_point, p=p, drift=drift,
                split=(not drift) and p <= alpha)


def h_bench_candidate(C, E, N, a, b, phi, nu, alpha, phi0, SK):
    """Section 14.5: the best split of [a, b) at a step kernel, and its test."""
    tc, te = math.fsum(C[a:b]), math.fsum(E[a:b])
    if tc <= 0:
        return None
    el = [tau for tau in range(a + 1, b) if tau in SK and sum(N[a:tau]) >= 2 and sum(N[tau:b]) >= 2]
    if not el:
        return None
    best = None
    for tau in el:
        x, mx = math.fsum(C[a:tau]), math.fsum(E[a:tau])
        y, my = tc - x, te - mx
        lr = lr_stat(x, y, mx, my)
        if best is None or lr > best[1] * (1 + 1e-12):
            best = (tau, lr, x, mx, y, my)
    tau, lr, x, mx, y, my = best
    shares = [math.fsum(E[a:t]) / te for t in el]
    if h_max_p(min_reachable_p(tc, mx, my), shares) > alpha:
        return None
    p_point = max(exact_test(x, y, mx, my)[0], f1_sf(lr / phi, nu))
    drift = False
    if b - a >= 3:
        left, right = x / mx, y / my
        dstep = 2.0 * math.fsum(dev(C[k], E[k] * (left if k < tau else right)) for k in range(a, b))
        dtrend = h_trend_deviance(C[a:b], E[a:b])
        drift = dtrend < dstep * (1 - 1e-9) - 1e-9 and f1_sf((dstep - dtrend) / phi0, INF) <= alpha
    p = 1.0 if drift else h_max_p(p_point, shares)
    return dict(start=a, end=b, at=tau, lr=lr, p_point=p_point, p=p, drift=drift,
                split=(not drift) and p <= alpha, found="benchmark", shares=shares)


def h_segment(C, E, N, phi, nu, alpha, phi0):
    """Section 14.2: every segment's candidate met by binary segmentation."""
    out, todo = [], [(0, len(C))]
    while todo:
        a, b = todo.pop()
        c = h_candidate(C, E, N, a, b, phi, nu, alpha, phi0)
        if c is None:
            continue
        out.append(c)
        if c["split"]:
            todo += [(a, c["at"]), (c["at"], b)]
    return sorted(out, key=lambda c: (c["start"], c["at"]))


def h_posterior(s2, mu, d, chat, rhat, d0, tlo=-INF, thi=INF):
    """Section 5.2 steps 4-7 with a prior already fitted, for own df d
    (the trend held in [tlo, thi], as version 3 holds it)."""
    n = len(s2)
    uidx = [i for i in range(n) if mu[i] >= 5]
    s0sq = [s0sq_at(m, chat, rhat, d0, tlo, thi) for m in mu]
    dc = min(d0, 2.0 * d)
    F = [s2[i] / s0sq[i] for i in range(n)]
    tail = [fdist_sf(f, d, d0) for f in F]
    fu = sorted(F[i] for i in uidx)
    inu = set(uidx)
    d0i = []
    for i in range(n):
        lo, hi = bisect.bisect_left(fu, F[i]), bisect.bisect_right(fu, F[i])
        em = (len(fu) - hi + 0.5 * ((hi - lo) + (0 if i in inu else 1))) / len(fu)
        d0i.append(min(1.0, tail[i] / em) * dc)
    run, d0r = -INF, [0.0] * n
    for i in sorted(range(n), key=lambda i: tail[i]):
        run = max(run, d0i[i])
        d0r[i] = run
    phi = [max(1.0, (d * s2[i] + d0r[i] * s0sq[i]) / (d + d0r[i])) for i in range(n)]
    return phi, [d + v for v in d0r]


def h_rounds(allc, K, alpha, adjust):
    """Section 14.4: the candidates tested in rounds of families; returns
    (candidates tested, drifts among them, round 1's t or None)."""
    for c in allc:
        c["q"], c["significant"], c["t"], c["round"] = 1.0, False, alpha, 0
    opened = {(c["i"], 0, K) for c in allc}
    m, ndrift, t, rnd = 0, 0, None, 0
    while opened:
        fam = [c for c in allc if (c["i"], c["start"], c["end"]) in opened]
        rnd += 1
        for c in fam:
            c["round"] = rnd
        opened = set()
        if not fam:
            break
        qs = adjust_q([c["p"] for c in fam], adjust)
        for c, q in zip(fam, qs):
            c["q"] = q
            c["significant"] = c["split"] and q <= alpha
            if c["significant"]:
                opened |= {(c["i"], c["start"], c["at"]), (c["i"], c["at"], c["end"])}
        tr = interval_t(sum(c["significant"] for c in fam), len(fam), adjust, alpha)
        for c in fam:
            c["t"] = tr
        t = tr if t is None else t
        m += len(fam)
        ndrift += sum(c["drift"] for c in fam)
    return m, ndrift, t


def h_analyse(kernels, runs_of, alpha=0.05, adjust="bh"):
    """One benchmark: kernels in order; runs_of[k] = list of {symbol: count}."""
    syms = sorted(set().union(*[set(r) for k in kernels for r in runs_of[k]]))
    kern_of, expo = [], []
    for ki, k in enumerate(kernels):
        for r in runs_of[k]:
            kern_of.append(ki)
            expo.append(float(sum(r.values())))
    R, K = len(expo), len(kernels)
    counts = {s: [float(r.get(s, 0)) for k in kernels for r in runs_of[k]] for s in syms}
    runs_idx = [[j for j in range(R) if kern_of[j] == ki] for ki in range(K)]
    nk = [len(r) for r in runs_idx]

    def pooled(cs):
        return ([math.fsum(cs[j] for j in runs_idx[k]) for k in range(K)],
                [math.fsum(expo[j] for j in runs_idx[k]) for k in range(K)])

    # 14.3.1 pilot
    s2, mu, ds, phi0s = [], [], [], []
    for s in syms:
        cs = counts[s]
        C, E = pooled(cs)
        terms = []
        for k in range(K - 1):
            pairs = [(cs[j], expo[j]) for j in runs_idx[k] + runs_idx[k + 1]]
            g = len(pairs) - 1
            terms.append(h_pearson(pairs) / h_chi2_median(g))
        phi0 = max(1.0, median(terms))
        phi0s.append(phi0)
        cands = h_segment(C, E, nk, phi0, INF, alpha, phi0)
        bounds = sorted({0, K} | {c["at"] for c in cands if c["split"]})
        if len(bounds) - 1 >= R:
            bounds = [0, K]
        # 14.3.2 residuals
        x2 = 0.0
        for a, b in zip(bounds, bounds[1:]):
            x2 += h_pearson([(cs[j], expo[j]) for k in range(a, b) for j in runs_idx[k]])
        d = R - (len(bounds) - 1)
        s2.append(x2 / d)
        ds.append(float(d))
        mu.append(math.fsum(cs) / R)
    # 14.3.3 moderation
    dmode = max(set(ds), key=lambda d: (ds.count(d), d))
    mod = moderate(s2, mu, dmode)
    phi, nu = [0.0] * len(syms), [0.0] * len(syms)
    if mod["moderated"]:
        for d in sorted(set(ds)):
            ph, nn = h_posterior(s2, mu, d, mod["chat"], mod["rhat"], mod["d0"],
                                 mod["tlo"], mod["thi"])
            for i in range(len(syms)):
                if ds[i] == d:
                    phi[i], nu[i] = ph[i], nn[i]
    else:
        phi = [max(1.0, v) for v in s2]
        nu = list(ds)
    # 14.4
    allc = []
    for i, s in enumerate(syms):
        C, E = pooled(counts[s])
        for c in h_segment(C, E, nk, phi[i], nu[i], alpha, phi0s[i]):
            c["symbol"] = s
            c["i"] = i
            allc.append(c)
    # 14.4: rounds of families; round 1 the whole series' candidates, then
    # the segments opened by the previous round's significant steps.
    m, ndrift, t = h_rounds(allc, K, alpha, adjust)
    if t is None:
        t = alpha
    # 14.5: the step kernels (significant steps of two symbols or more)
    nat = [0] * K
    for c in allc:
        c["found"], c["own_at"] = "own", c["at"]
        if c["significant"]:
            nat[c["at"]] += 1
    moved = 0
    bench = []
    last = max((c["round"] for c in allc), default=0)
    if max(nat, default=0) >= 2:
        # placement: the best-supported step kernel in the step's confidence set
        for i, s in enumerate(syms):
            C, E = pooled(counts[s])
            crit = phi[i] * f1_isf(alpha, nu[i])
            sig = sorted((c for c in allc if c["i"] == i and c["significant"]), key=lambda c: c["at"])
            frm = 0
            for j, c in enumerate(sig):
                to = sig[j + 1]["at"] if j + 1 < len(sig) else K
                own = c["at"]
                el = [tau for tau in range(frm + 1, to) if sum(nk[frm:tau]) >= 2 and sum(nk[tau:to]) >= 2]
                tc, te = math.fsum(C[frm:to]), math.fsum(E[frm:to])

                def LR(tau):
                    x, mx = math.fsum(C[frm:tau]), math.fsum(E[frm:tau])
                    return lr_stat(x, tc - x, mx, te - mx)

                def others(tau):
                    return nat[tau] - (1 if tau == own else 0)
                best = max((LR(tau) for tau in el), default=-INF)
                pick = (own, others(own), LR(own))
                for tau in el:
                    if tau != own and others(tau) >= 2 and best - LR(tau) <= crit \
                            and (others(tau), LR(tau)) > (pick[1], pick[2]):
                        pick = (tau, others(tau), LR(tau))
                if pick[0] != own:
                    c["at"], c["found"] = pick[0], "moved"
                    moved += 1
                frm = c["at"]
    # the step kernels after placement, for the benchmark round
    nat2 = {}
    for c in allc:
        if c["significant"]:
            nat2[c["at"]] = nat2.get(c["at"], 0) + 1
    SK = sorted(k for k, v in nat2.items() if v >= 2)
    if SK:
        for i, s in enumerate(syms):
            C, E = pooled(counts[s])
            sigb = sorted({0, K} | {c["at"] for c in allc if c["i"] == i and c["significant"]})
            for a, b in zip(sigb, sigb[1:]):
                c = h_bench_candidate(C, E, nk, a, b, phi[i], nu[i], alpha, phi0s[i], SK)
                if c is not None:
                    c["symbol"], c["i"] = s, i
                    bench.append(c)
        qs = adjust_q([c["p"] for c in bench], adjust)
        for c, q in zip(bench, qs):
            c["q"] = q
            c["significant"] = c["split"] and q <= alpha
            c["split"] = c["significant"]
            c["round"] = last + 1
        tb = interval_t(sum(c["significant"] for c in bench), len(bench), adjust, alpha)
        for c in bench:
            c["t"] = tb
        m += len(bench)
        ndrift += sum(c["drift"] for c in bench)
        allc += bench
    steps = []
    for i, s in enumerate(syms):
        mine = [c for c in allc if c["i"] == i]
        sig = sorted({c["at"] for c in mine if c["significant"]})
        C, E = pooled(counts[s])
        for c in sorted((c for c in mine if c["split"]), key=lambda c: c["at"]):
            frm = max([b for b in sig if b < c["at"]], default=0)
            to = min([b for b in sig if b > c["at"]], default=K)
            x, mx = math.fsum(C[frm:c["at"]]), math.fsum(E[frm:c["at"]])
            y, my = math.fsum(C[c["at"]:to]), math.fsum(E[c["at"]:to])
            sh = c["shares"] if c["found"] == "benchmark" else h_shares(E, nk, c["start"], c["end"])
            tl = h_level_for(c["t"], sh)
            chi = phi[i] * f1_isf(tl, nu[i])
            lr_lo, lr_hi = lr_delta_interval(x, y, mx, my, chi)
            cp_lo, cp_hi = cp_ratio(x, y, mx, my, tl)
            lo = min(lr_lo, delta_of_theta(cp_lo, x + y, mx, my))
            hi = max(lr_hi, delta_of_theta(cp_hi, x + y, mx, my))
            lb, la = 100.0 * x / mx, 100.0 * y / my
            steps.append(dict(symbol=s, before=kernels[c["at"] - 1], at=kernels[c["at"]],
                              level_before=lb, level_after=la, delta=la - lb,
                              delta_pct=(100.0 * (la - lb) / lb) if lb > 0 else None,
                              delta_ci=[100.0 * lo, 100.0 * hi], p=c["p"], q=c["q"],
                              significant=c["significant"], placed=c["found"], round=c["round"]))
    steps.sort(key=lambda st: (-abs(st["delta"]), st["symbol"], kernels.index(st["at"])))
    noise = dict(tested=m, drifts=ndrift, interval_level=1.0 - t,
                 step_kernels=[kernels[k] for k in SK], moved=moved,
                 d0=mod.get("d0") if mod["moderated"] else None)
    return steps, noise


def h_read_tree(root):
    """{bench: (kernels in order, {kernel: [runs]})} of DIR/<kernel>/<bench>/*.folded."""
    benches = {}
    for k in sorted(os.listdir(root)):
        kd = os.path.join(root, k)
        if not os.path.isdir(kd):
            continue
        for b in sorted(os.listdir(kd)):
            bd = os.path.join(kd, b)
            runs = [read_folded(os.path.join(bd, f)) for f in sorted(os.listdir(bd)) if f.endswith(".folded")]
            if runs:
                benches.setdefault(b, {})[k] = runs
    out = {}
    for b, by in sorted(benches.items()):
        out[b] = (sorted(by, key=h_version_key), by)
    return out


def h_close(a, b, rel=1e-6):
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    if a == b:
        return True
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def h_main(root, check, json_out):
    """Compute every benchmark of the tree; write vectors; check a history -o json."""
    mine = {}
    for b, (kernels, by) in h_read_tree(root).items():
        steps, noise = h_analyse(kernels, by)
        mine[b] = dict(kernels=kernels, steps=steps, noise=noise)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(jnum_tree(mine), f, indent=1, ensure_ascii=False)
            f.write("\n")
    if not check:
        for b, v in mine.items():
            print(f"benchmark {b}: {len(v['steps'])} step(s), {v['noise']['tested']} tested, "
                  f"{v['noise']['drifts']} drift(s), level {v['noise']['interval_level']:.6g}, "
                  f"step kernels {' '.join(v['noise']['step_kernels']) or '-'}, {v['noise']['moved']} moved")
            for st in v["steps"]:
                print(f"  {'*' if st['significant'] else '~'} {st['symbol']} {st['before']} -> {st['at']} "
                      f"{st['level_before']:.6g} -> {st['level_after']:.6g} delta {st['delta']:+.6g} "
                      f"[{st['delta_ci'][0]:.6g}, {st['delta_ci'][1]:.6g}] p {st['p']:.6g} q {st['q']:.6g} "
                      f"({st['placed']}, round {st['round']})")
        return 0
    doc = json.load(sys.stdin if check == "-" else open(check))
    bad = []
    theirs = {b["name"]: b for b in doc["benchmarks"]}
    for name, v in mine.items():
        t = theirs.get(name)
        if t is None:
            bad.append(f"{name}: missing from the JSON")
            continue
        if t["kernels"] != v["kernels"]:
            bad.append(f"{name}: kernels {t['kernels']} != {v['kernels']}")
        if t["noise"].get("step_kernels") != v["noise"]["step_kernels"]:
            bad.append(f"{name}: noise.step_kernels {t['noise'].get('step_kernels')} != {v['noise']['step_kernels']}")
        for key in ("tested", "drifts", "interval_level", "moved"):
            if not h_close(t["noise"][key], v["noise"][key]):
                bad.append(f"{name}: noise.{key} {t['noise'][key]} != {v['noise'][key]}")
        if len(t["steps"]) != len(v["steps"]):
            bad.append(f"{name}: {len(t['steps'])} steps != {len(v['steps'])}")
        for a, b in zip(t["steps"], v["steps"]):
            for key in ("symbol", "before", "at", "significant", "placed", "round"):
                if a[key] != b[key]:
                    bad.append(f"{name}: step {b['symbol']}: {key} {a[key]} != {b[key]}")
            for key in ("level_before", "level_after", "delta", "delta_pct", "p", "q"):
                if not h_close(a[key], b[key]):
                    bad.append(f"{name}: step {b['symbol']}: {key} {a[key]} != {b[key]}")
            for j in (0, 1):
                if not h_close(a["delta_ci"][j], b["delta_ci"][j], 1e-5):
                    bad.append(f"{name}: step {b['symbol']}: delta_ci[{j}] {a['delta_ci'][j]} != {b['delta_ci'][j]}")
    for m in bad:
        print("MISMATCH", m)
    n = sum(len(v["steps"]) for v in mine.values())
    print(f"history: {len(mine)} benchmark(s), {n} step(s): {'OK' if not bad else f'{len(bad)} mismatch(es)'}")
    return 1 if bad else 0


def jnum_tree(v):
    if isinstance(v, dict):
        return {k: jnum_tree(u) for k, u in v.items()}
    if isinstance(v, list):
        return [jnum_tree(u) for u in v]
    return jnum(v)


def main():
    ap = argparse.ArgumentParser(
        description="Independent check of diffprofile's statistics (docs/statistics.md v2)",
        usage="%(prog)s --vectors [--markdown] [--json-out PATH] [--selfcheck]\n"
              "       %(prog)s [--bin DIFFPROFILE] [--label L] -- DIFFPROFILE_ARGS...\n"
              "       %(prog)s --json FILE [--noise-model FILE] [--noise-cv C]\n"
              "       %(prog)s --history DIR [--check HISTORY.json] [--json-out PATH]")
    ap.add_argument("--vectors", action="store_true", help="compute the test vectors of section 13")
    ap.add_argument("--markdown", action="store_true", help="with --vectors: markdown tables")
    ap.add_argument("--json-out", help="with --vectors: write them as JSON to this path")
    ap.add_argument("--selfcheck", action="store_true", help="with --vectors: cross-check with mpmath")
    ap.add_argument("--json", help="diffprofile -o json output to check ('-' = stdin)")
    ap.add_argument("--bin", default=None, help="diffprofile binary (default: target/release/diffprofile)")
    ap.add_argument("--noise-model", help="with --json: the noise model file the comparison used")
    ap.add_argument("--noise-cv", type=float, default=None, help="with --json: the --noise-cv given")
    ap.add_argument("--alpha", type=float, default=None, help="override the JSON's alpha")
    ap.add_argument("--label", default=None, help="label for the summary line")
    ap.add_argument("--quiet", action="store_true", help="only the summary line (and mismatches)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--history", metavar="DIR", help="section 14 on the folded tree DIR/<kernel>/<bench>/*.folded")
    ap.add_argument("--check", metavar="JSON", help="with --history: compare `diffprofile history DIR -o json`")
    ap.add_argument("args", nargs="*", help="arguments for diffprofile (after --)")
    a = ap.parse_args()

    if a.history:
        sys.exit(h_main(a.history, a.check, a.json_out))

    if a.vectors:
        cases, _ = compute_vectors()
        if a.json_out:
            with open(a.json_out, "w") as f:
                json.dump(vectors_json(cases), f, indent=1, ensure_ascii=False)
                f.write("\n")
        if a.markdown:
            print(vectors_markdown(cases))
        elif not a.json_out and not a.selfcheck:
            print(vectors_plain(cases))
        if a.selfcheck:
            worst = selfcheck(cases)
            print("mpmath self-check, max relative difference: "
                  + ", ".join(f"{k}={v:.1e}" for k, v in worst.items()), file=sys.stderr)
            if max(worst.values()) > 1e-10:
                sys.exit(1)
        return

    model = None
    noise_cv = a.noise_cv
    extra = []
    try:
        if a.json:
            doc = json.load(sys.stdin if a.json == "-" else open(a.json))
            label = a.label or a.json
            if a.noise_model:
                mdoc = json.load(open(a.noise_model))
                model = NoiseModel.from_json(mdoc, a.noise_model)
                extra.append(("model-file", mdoc, None))
        elif a.args:
            binp = a.bin or os.path.join(ROOT, "target", "release", "diffprofile")
            refresh_opts(binp)
            opts, pos = split_args(a.args)
            if opt_value(opts, "--top") is not None or opt_value(opts, "--min-delta") is not None:
                print("verify-stats.py: don't use --top/--min-delta (q is over all tested rows)", file=sys.stderr)
                sys.exit(2)
            cv = opt_value(opts, "--noise-cv")
            if cv:
                noise_cv = float(cv[0])
            nm_file = opt_value(opts, "--noise-model")
            nf = opt_value(opts, "--noise-from")
            if nm_file:
                mdoc = json.load(open(nm_file[0]))
                model = NoiseModel.from_json(mdoc, nm_file[0])
                extra.append(("model-file", mdoc, None))
            elif nf:
                model, _ = learn_model_with_binary(binp, opts, nf)
                with tempfile.TemporaryDirectory() as td:
                    out = os.path.join(td, "model.json")
                    cmd = [binp, "noise-model"] + input_opt_args(opts) + nf + ["-o", out]
                    pr = subprocess.run(cmd, capture_output=True, text=True)
                    if pr.returncode == 0 and os.path.exists(out):
                        extra.append(("noise-model", json.load(open(out)), model))
                    else:
                        extra.append(("noise-model-failed", pr.stderr.strip().splitlines()[:1], None))
            doc = run_json([binp] + a.args + ["-o", "json"])
            label = a.label or " ".join(a.args)
        else:
            ap.print_usage(sys.stderr)
            sys.exit(2)
        if noise_cv is None and isinstance(doc.get("noise"), dict) and doc["noise"].get("noise_cv") is not None:
            noise_cv = float(doc["noise"]["noise_cv"])
        ck = verify_doc(doc, label, model, noise_cv, a.alpha)
    except (RuntimeError, OSError, KeyError, ValueError, json.JSONDecodeError) as e:
        print(f"verify-stats.py: {e}", file=sys.stderr)
        sys.exit(2)
    for kind, mdoc, mine in extra:
        if kind == "model-file":
            model_self_consistency(ck, mdoc, "model file")
        elif kind == "noise-model":
            check_model_doc(ck, mdoc, mine, "diffprofile noise-model")
        else:
            ck.notes.append(f"diffprofile noise-model failed ({mdoc}); its file not checked")
    if a.quiet:
        print(summary_line(ck))
        for m in ck.mism[:10]:
            print("   MISMATCH", m)
    else:
        report(ck, a.verbose)
    sys.exit(1 if ck.mism else 0)


if __name__ == "__main__":
    main()
