//! Presented-frame jitter: how far apart two pictures reached the screen against how far apart
//! their vertical blanks are (a picture every vblank at 60 fps, every second at 30 fps). The
//! window records each present's host time and the vblank of its picture; fast-forward, pause
//! and frame advance break the sequence (their gaps are not pacing).

use crate::pacing::NTSC_PERIOD_NS;

/// The errors of the intervals between presented pictures, grouped by how many vblanks apart
/// the pictures are (1: 60 fps, 2: 30 fps).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Jitter {
    last: Option<(u64, u64)>,
    /// (vblanks apart, interval minus its nominal length in ns).
    errors: Vec<(u64, i64)>,
}

/// One group's figures, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JitterFigures {
    /// Vblanks between the pictures (1: 60 fps, 2: 30 fps).
    pub vblanks: u64,
    /// Intervals measured.
    pub count: usize,
    /// Mean interval error.
    pub mean_ms: f64,
    /// Standard deviation of the interval errors.
    pub sd_ms: f64,
    /// The 99th percentile of the absolute errors.
    pub p99_ms: f64,
    /// The largest absolute error.
    pub max_ms: f64,
}

impl Jitter {
    /// A picture of vertical blank `vblank` reached the screen at `now_ns`.
    pub fn presented(&mut self, vblank: u64, now_ns: u64) {
        if let Some((v0, t0)) = self.last
            && vblank > v0
            && vblank - v0 <= 4
        {
            let nominal = (vblank - v0) * NTSC_PERIOD_NS.0 / NTSC_PERIOD_NS.1;
            let err = now_ns.saturating_sub(t0) as i64 - nominal as i64;
            self.errors.push((vblank - v0, err));
        }
        self.last = Some((vblank, now_ns));
    }

    /// The sequence is broken (fast-forward, pause, frame advance): the next present starts a
    /// new one.
    pub fn break_sequence(&mut self) {
        self.last = None;
    }

    /// The figures for pictures `vblanks` apart, if any were measured.
    pub fn figures(&self, vblanks: u64) -> Option<JitterFigures> {
        let mut e: Vec<f64> = self
            .errors
            .iter()
            .filter(|(v, _)| *v == vblanks)
            .map(|(_, e)| *e as f64 / 1e6)
            .collect();
        if e.is_empty() {
            return None;
        }
        let n = e.len() as f64;
        let mean = e.iter().sum::<f64>() / n;
        let sd = (e.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        e.iter_mut().for_each(|x| *x = x.abs());
        e.sort_by(f64::total_cmp);
        let p99 = e[((e.len() as f64 * 0.99).ceil() as usize).clamp(1, e.len()) - 1];
        Some(JitterFigures {
            vblanks,
            count: e.len(),
            mean_ms: mean,
            sd_ms: sd,
            p99_ms: p99,
            max_ms: e[e.len() - 1],
        })
    }

    /// One line: the figures at 60 and at 30 fps.
    pub fn line(&self) -> String {
        self.named_line("presented-frame jitter")
    }

    /// [`Jitter::line`] under another name.
    pub fn named_line(&self, name: &str) -> String {
        let mut parts = Vec::new();
        for (v, fps) in [(1, "60 fps"), (2, "30 fps")] {
            if let Some(f) = self.figures(v) {
                parts.push(format!(
                    "{fps}: {} intervals, error mean {:+.3} ms, sd {:.3} ms, p99 {:.3} ms, max {:.3} ms",
                    f.count, f.mean_ms, f.sd_ms, f.p99_ms, f.max_ms
                ));
            }
        }
        if parts.is_empty() {
            format!("{name}: no intervals measured")
        } else {
            format!("{name}: {}", parts.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_against_the_vblanks_apart() {
        let mut j = Jitter::default();
        let p = NTSC_PERIOD_NS.0 / NTSC_PERIOD_NS.1; // 16,683,333 ns
        // 60 fps, exact; then one picture 2 ms late (its interval +2, the next -2).
        j.presented(1, 0);
        j.presented(2, p);
        j.presented(3, 2 * p + 2_000_000);
        j.presented(4, 3 * p);
        // 30 fps, exact.
        j.presented(6, 5 * p);
        j.presented(8, 7 * p);
        let f = j.figures(1).unwrap();
        assert_eq!(f.count, 3);
        assert!((f.max_ms - 2.0).abs() < 1e-6 && f.mean_ms.abs() < 1e-6);
        let f = j.figures(2).unwrap();
        assert_eq!((f.count, f.max_ms), (2, 0.0));
        // A pause breaks the sequence: no interval across it.
        j.break_sequence();
        j.presented(100, 1_000 * p);
        assert_eq!(j.figures(1).unwrap().count, 3);
        assert!(j.line().contains("60 fps: 3 intervals"), "{}", j.line());
    }
}
