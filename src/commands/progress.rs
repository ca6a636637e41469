//! `checked N of M ticks` on stderr while a check runs: the one progress line of `attest verify`
//! and `attest export`.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `checked N of M ticks` on stderr, redrawn in place, once a check has run for a second; only
/// when stderr is a terminal (indicatif draws nothing elsewhere either).
pub(super) struct Progress {
    /// The line, when stderr is a terminal.
    bar: Option<ProgressBar>,
    /// When the command started.
    started: Instant,
    /// How long the check runs before the line is drawn.
    after: Duration,
    /// The line is drawn.
    shown: bool,
    /// The run began its report.
    begun: bool,
}

/// How long a check runs before its progress is shown, unless [`PROGRESS_AFTER_ENV`] says.
const PROGRESS_AFTER: Duration = Duration::from_secs(1);

/// The environment variable that sets how many milliseconds a check runs before its progress is
/// shown (`0`: at once), for a terminal that wants it sooner or later and for tests, which
/// cannot tell from outside how long a run took inside.
const PROGRESS_AFTER_ENV: &str = "SPECCODER_PROGRESS_AFTER_MS";

/// [`PROGRESS_AFTER`], or the milliseconds [`PROGRESS_AFTER_ENV`] gives (a value that is not a
/// number is ignored).
fn progress_after() -> Duration {
    std::env::var(PROGRESS_AFTER_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse().ok())
        .map_or(PROGRESS_AFTER, Duration::from_millis)
}

impl Progress {
    pub(super) fn new(started: Instant) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            if let Ok(style) = ProgressStyle::with_template("checked {pos} of {len} ticks") {
                bar.set_style(style);
            }
            bar
        });
        Progress { bar, started, after: progress_after(), shown: false, begun: false }
    }

    /// The run checks `ticks` ticks.
    pub(super) fn begin(&mut self, ticks: usize) {
        self.begun = true;
        if let Some(bar) = &self.bar {
            bar.set_length(ticks as u64);
        }
        self.row_at(0);
    }

    /// A row was decided (the rows after the ticks, skips and bug tasks, leave it at M).
    pub(super) fn row(&mut self) {
        self.row_at(1);
    }

    fn row_at(&mut self, more: u64) {
        let Some(bar) = &self.bar else { return };
        if bar.position() < bar.length().unwrap_or(0) {
            bar.inc(more);
        }
        if !self.shown && self.started.elapsed() >= self.after {
            self.shown = true;
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Whether the run began its report.
    pub(super) fn begun(&self) -> bool {
        self.begun
    }

    /// The line, for output to stdout to be written around it (`None`: stderr is no terminal).
    pub(super) fn bar(&self) -> Option<ProgressBar> {
        self.bar.clone()
    }

    /// Takes the line away, for what comes after it on stderr.
    pub(super) fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
