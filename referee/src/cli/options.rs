//! The game and time options checked: start positions, the clock and the
//! judging rules, each refusal naming the option and what it expects.

use crate::cli::{GameOpts, ModeArg, TimeOpts};
use crate::game::Rules;
use crate::schedule::starts::Starts;
use agent::{GenOptions, Mode};

impl GameOpts {
    /// The start positions: the `--start` file's text, or options for generated ones.
    pub(crate) fn starts(&self) -> Result<Starts, String> {
        let text = match &self.start {
            Some(p) => {
                // Bounded and non-blocking, like the agent's own input.txt.
                Some(agent::read_bounded(p).map_err(|e| format!("cannot read --start {}: {e}", p.display()))?)
            }
            None => None,
        };
        if let Some(d) = self.board.density {
            if !(0.0..=1.0).contains(&d) {
                return Err(format!("--density must be between 0 and 1, found {d}"));
            }
        }
        Ok(Starts {
            text,
            gen: self.gen_options(),
            openings: None,
        })
    }

    /// The options for generated start positions (the first mover is set per game).
    pub(crate) fn gen_options(&self) -> GenOptions {
        self.board.gen(self.seed)
    }

    /// Takes the board parameters of `gen` (e.g. answers a person gave).
    pub(crate) fn set_gen_options(&mut self, gen: &GenOptions) {
        self.board.rows = gen.rows;
        self.board.cols = gen.cols;
        self.board.size = gen.size;
        self.board.density = gen.density;
    }
}

/// The most CPU seconds `--time`, `--time-a/-b` and `--move-time` accept
/// (about 11.6 days): every move keeps a finite kill limit.
pub(crate) const MAX_SECONDS: f64 = 1_000_000.0;

/// The most `--grace` seconds accepted (one hour).
pub(crate) const MAX_GRACE: f64 = 3600.0;

/// The largest `--wall-factor` accepted.
pub(crate) const MAX_WALL_FACTOR: f64 = 100.0;

/// The clock of a game when `--time` is not given: the contest's 100 s for
/// Halma (the one game in the contest's own format, without a tag line),
/// 10 s for the smaller games, whose moves take milliseconds.
fn default_clock(game: &str) -> Result<f64, String> {
    crate::for_game!(game, |G| Ok(if <G as agent::Notation>::TAG.is_none() {
        100.0
    } else {
        10.0
    }))
}

impl TimeOpts {
    /// CPU seconds per agent per game: `--time`, or the game's default.
    pub(crate) fn clock(&self, game: &str) -> Result<f64, String> {
        let t = match self.time {
            Some(t) => t,
            None => default_clock(game)?,
        };
        positive_seconds(t, "--time").map(|()| t)
    }

    /// The judging rules of games whose longest clock is `clock` seconds:
    /// the default grace is a tenth of it, from 1 to 10 s, so a hung move in
    /// a short game costs seconds, not a minute.
    pub(crate) fn rules(&self, clock: f64) -> Result<Rules, String> {
        let grace = self.grace.unwrap_or((clock / 10.0).clamp(1.0, 10.0));
        if !(grace.is_finite() && (0.0..=MAX_GRACE).contains(&grace)) {
            return Err(format!(
                "--grace must be between 0 and {MAX_GRACE} seconds, found {grace}"
            ));
        }
        if let Some(m) = self.move_time {
            positive_seconds(m, "--move-time")?;
        }
        if !(self.wall_factor.is_finite() && (1.0..=MAX_WALL_FACTOR).contains(&self.wall_factor)) {
            return Err(format!(
                "--wall-factor must be between 1 and {MAX_WALL_FACTOR}, found {}",
                self.wall_factor
            ));
        }
        if self.max_plies == 0 {
            return Err("--max-plies must be at least 1".into());
        }
        Ok(Rules {
            mode: match self.mode {
                ModeArg::Game => Mode::Game,
                ModeArg::Single => Mode::Single,
            },
            grace,
            max_plies: self.max_plies,
            move_time: self.move_time,
            wall_factor: self.wall_factor,
            wall_extra: 5.0,
            output_cap: crate::process::runner::OUTPUT_CAP,
            sandbox: Default::default(),
            keep_dirs: false,
        })
    }
}

/// A time in seconds that must be above zero and at most [`MAX_SECONDS`].
pub(crate) fn positive_seconds(v: f64, what: &str) -> Result<(), String> {
    if v.is_finite() && v > 0.0 && v <= MAX_SECONDS {
        Ok(())
    } else {
        Err(format!(
            "{what} must be a positive number of seconds up to {MAX_SECONDS} (about 11 days), found {v}"
        ))
    }
}
