//! Multiple testing over the tested symbols (statistics.md, "Many symbols
//! at once"). Input: one p per symbol; output: adjusted p-values (q) in the
//! same order, to compare with α.

/// Multiple-testing procedure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjust {
    /// Benjamini-Hochberg (1995): false discovery rate, independent or
    /// positively dependent tests.
    Bh,
    /// Benjamini-Yekutieli (2001): false discovery rate under any dependence.
    By,
    /// Holm (1979): family-wise error rate, step-down.
    Holm,
}

/// Adjusted p-values (q) in the input order; input p in [0, 1] (values
/// outside are clamped, NaN counts as 1), output in [0, 1], NaN-free.
///
/// With the m p-values sorted ascending, `p_(1) ≤ … ≤ p_(m)`:
/// * BH: `q_(j) = min_(l≥j) min(1, m·p_(l)/l)`;
/// * BY: the same with `m·c(m)` for m, `c(m) = Σ_(i=1..m) 1/i`;
/// * Holm: `q_(j) = max_(l≤j) min(1, (m − l + 1)·p_(l))`.
///
/// Ties are sorted stably, and the running min/max gives tied p-values the
/// same q.
pub fn adjust(p: &[f64], method: Adjust) -> Vec<f64> {
    let m = p.len();
    let clean: Vec<f64> = p
        .iter()
        .map(|&v| if v.is_nan() { 1.0 } else { v.clamp(0.0, 1.0) })
        .collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| clean[a].total_cmp(&clean[b]));
    let mf = m as f64;
    let mut q = vec![0.0; m];
    match method {
        Adjust::Bh | Adjust::By => {
            let c = if method == Adjust::By {
                (1..=m).map(|i| 1.0 / i as f64).sum()
            } else {
                1.0
            };
            let mut running = 1.0_f64;
            for (j, &idx) in order.iter().enumerate().rev() {
                let rank = (j + 1) as f64;
                running = running.min((mf * c * clean[idx] / rank).min(1.0));
                q[idx] = running;
            }
        }
        Adjust::Holm => {
            let mut running = 0.0_f64;
            for (j, &idx) in order.iter().enumerate() {
                running = running.max(((mf - j as f64) * clean[idx]).min(1.0));
                q[idx] = running;
            }
        }
    }
    q
}

/// The marginal level t of the intervals shown (docs/statistics.md §8):
/// with m tested rows of which r are significant, BH `max(r,1)·α/m`, BY
/// `max(r,1)·α/(m·c(m))`, Holm `α/(m − max(r,1) + 1)`. For each procedure a
/// row is significant exactly when its p ≤ t, so intervals at level 1 − t
/// exclude "no change" exactly for the significant rows (Benjamini &
/// Yekutieli 2005 for BH). α itself when nothing is tested.
pub fn interval_level(method: Adjust, alpha: f64, m: usize, r: usize) -> f64 {
    if m == 0 {
        return alpha;
    }
    let (mf, rf) = (m as f64, r.clamp(1, m) as f64);
    match method {
        Adjust::Bh => rf * alpha / mf,
        Adjust::By => rf * alpha / (mf * (1..=m).map(|i| 1.0 / i as f64).sum::<f64>()),
        Adjust::Holm => alpha / (mf - rf + 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: [f64; 10] = [
        0.0001, 0.0008, 0.0021, 0.0039, 0.012, 0.028, 0.041, 0.09, 0.3, 0.8,
    ];

    fn check(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 5e-4 * w.abs(), "{got:?} vs {want:?}");
        }
    }

    fn rejected(q: &[f64]) -> usize {
        q.iter().filter(|&&q| q <= 0.05).count()
    }

    /// statistics.md BH vector: six rejected at 0.05.
    #[test]
    fn bh_vector() {
        let q = adjust(&P, Adjust::Bh);
        let want = [
            0.001, 0.004, 0.007, 0.00975, 0.024, 0.04667, 0.05857, 0.1125, 0.3333, 0.8,
        ];
        check(&q, &want);
        assert_eq!(rejected(&q), 6);
    }

    /// BY: c(10) = 1 + 1/2 + … + 1/10 = 2.928968; each BH q times c(10)
    /// (the BH raw values already increase, so the running min changes
    /// nothing): 0.001·c = 0.002929, 0.004·c = 0.011716, 0.007·c = 0.020503,
    /// 0.00975·c = 0.028557, 0.024·c = 0.070295, 0.046667·c = 0.136685,
    /// 0.058571·c = 0.171554, 0.1125·c = 0.329509, 0.33333·c = 0.976323,
    /// 0.8·c = 2.34 → capped at 1. Four rejected (scipy agrees).
    #[test]
    fn by_vector() {
        let q = adjust(&P, Adjust::By);
        let want = [
            0.002929, 0.011716, 0.020503, 0.028557, 0.070295, 0.136685, 0.171554, 0.329509,
            0.976323, 1.0,
        ];
        check(&q, &want);
        assert_eq!(rejected(&q), 4);
    }

    /// Holm: (m − l + 1)·p_(l) = 10·0.0001 = 0.001, 9·0.0008 = 0.0072,
    /// 8·0.0021 = 0.0168, 7·0.0039 = 0.0273, 6·0.012 = 0.072, 5·0.028 = 0.14,
    /// 4·0.041 = 0.164, 3·0.09 = 0.27, 2·0.3 = 0.6, 1·0.8 = 0.8; already
    /// increasing, so the running max changes nothing. Four rejected.
    #[test]
    fn holm_vector() {
        let q = adjust(&P, Adjust::Holm);
        let want = [
            0.001, 0.0072, 0.0168, 0.0273, 0.072, 0.14, 0.164, 0.27, 0.6, 0.8,
        ];
        check(&q, &want);
        assert_eq!(rejected(&q), 4);
    }

    #[test]
    fn input_order_ties_and_edges() {
        // Shuffled input gives the same q per p.
        let shuffled = [P[7], P[0], P[9], P[3], P[5], P[1], P[8], P[2], P[6], P[4]];
        let q = adjust(&shuffled, Adjust::Bh);
        assert!((q[1] - 0.001).abs() < 1e-12 && (q[2] - 0.8).abs() < 1e-12);
        for method in [Adjust::Bh, Adjust::By, Adjust::Holm] {
            let q = adjust(&[0.01, 0.01, 0.01], method);
            assert!(q[0] == q[1] && q[1] == q[2], "{method:?} {q:?}");
            assert!(adjust(&[], method).is_empty());
            let q = adjust(&[f64::NAN, -1.0, 2.0, 0.0], method);
            assert!(q.iter().all(|q| (0.0..=1.0).contains(q)), "{q:?}");
            // q ≥ p always.
            let q = adjust(&P, method);
            assert!(q.iter().zip(&P).all(|(q, p)| q >= p));
        }
        // BH of three ties 0.01: m·p/l at l = 3 is 0.01 for all.
        assert_eq!(adjust(&[0.01, 0.01, 0.01], Adjust::Bh), vec![0.01; 3]);
    }

    /// For each procedure, p ≤ t exactly for the rows with q ≤ α.
    #[test]
    fn interval_level_separates_marked_rows() {
        let sets: [&[f64]; 4] = [
            &P,
            &[0.2, 0.5, 0.9],
            &[1e-9, 1e-8, 0.04, 0.049, 0.051],
            &[0.01, 0.01, 0.01, 0.2],
        ];
        for method in [Adjust::Bh, Adjust::By, Adjust::Holm] {
            for p in sets {
                let q = adjust(p, method);
                let r = rejected(&q);
                let t = interval_level(method, 0.05, p.len(), r);
                for (p, q) in p.iter().zip(&q) {
                    assert_eq!(*p <= t, *q <= 0.05, "{method:?} p {p} q {q} t {t}");
                }
            }
        }
        assert!((interval_level(Adjust::Bh, 0.05, 10, 6) - 0.03).abs() < 1e-15);
        assert_eq!(interval_level(Adjust::Holm, 0.05, 10, 0), 0.005);
        assert_eq!(interval_level(Adjust::Bh, 0.05, 0, 0), 0.05);
    }
}
