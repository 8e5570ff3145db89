//! The start-position parameters a game takes (board size and the like),
//! described once per game in [`crate::protocol::Setup::PARAMS`] so that
//! the referee can check its `--rows/--cols/--size/--density` options and
//! ask a person for them without knowing any game by name.

use super::GenOptions;

/// Which [`GenOptions`] field a parameter sets (and which referee option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKey {
    /// Board rows (`--rows`).
    Rows,
    /// Board columns (`--cols`).
    Cols,
    /// Square board size (`--size`).
    Size,
    /// Fill density in 0..=1 (`--density`).
    Density,
}

impl ParamKey {
    /// Every key, in option order.
    pub const ALL: [ParamKey; 4] = [ParamKey::Rows, ParamKey::Cols, ParamKey::Size, ParamKey::Density];

    /// The referee's command-line option.
    pub fn flag(self) -> &'static str {
        match self {
            ParamKey::Rows => "--rows",
            ParamKey::Cols => "--cols",
            ParamKey::Size => "--size",
            ParamKey::Density => "--density",
        }
    }

    /// True when `opts` sets this parameter.
    pub fn is_set(self, opts: &GenOptions) -> bool {
        match self {
            ParamKey::Rows => opts.rows.is_some(),
            ParamKey::Cols => opts.cols.is_some(),
            ParamKey::Size => opts.size.is_some(),
            ParamKey::Density => opts.density.is_some(),
        }
    }

    /// Sets this parameter in `opts` from a person's or a file's text; the
    /// error says what was expected.
    pub fn set(self, opts: &mut GenOptions, text: &str) -> Result<(), String> {
        let text = text.trim();
        if self == ParamKey::Density {
            return match text.parse::<f64>() {
                Ok(d) if (0.0..=1.0).contains(&d) => {
                    opts.density = Some(d);
                    Ok(())
                }
                _ => Err(format!("expected a number between 0 and 1, found {text:?}")),
            };
        }
        let n: usize = text
            .parse()
            .map_err(|_| format!("expected a whole number such as 7, found {text:?}"))?;
        match self {
            ParamKey::Rows => opts.rows = Some(n),
            ParamKey::Cols => opts.cols = Some(n),
            ParamKey::Size => opts.size = Some(n),
            ParamKey::Density => unreachable!("handled above"),
        }
        Ok(())
    }
}

/// One parameter of a game's generated start positions.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The option it is given by.
    pub key: ParamKey,
    /// What it means for this game, for help and messages (e.g. "board size, 4 or 6").
    pub about: &'static str,
    /// The question put to a person at `referee play` when it is not given;
    /// `None`: not asked (the game's default is used).
    pub prompt: Option<&'static str>,
    /// The only values allowed, when they are a short list (offered as choices).
    pub choices: &'static [&'static str],
}

impl Param {
    /// A parameter nobody is asked for: the game's default stands unless
    /// the option is given.
    pub const fn plain(key: ParamKey, about: &'static str) -> Param {
        Param {
            key,
            about,
            prompt: None,
            choices: &[],
        }
    }

    /// A parameter a person at `referee play` is asked for with `prompt`
    /// when it is not given, among `choices` when they are a short list.
    pub const fn asked(
        key: ParamKey,
        about: &'static str,
        prompt: &'static str,
        choices: &'static [&'static str],
    ) -> Param {
        Param {
            key,
            about,
            prompt: Some(prompt),
            choices,
        }
    }
}

/// The options among `opts` that a game with parameters `params` does not take.
pub fn unused_params(params: &[Param], opts: &GenOptions) -> Vec<ParamKey> {
    ParamKey::ALL
        .into_iter()
        .filter(|k| k.is_set(opts) && !params.iter().any(|p| p.key == *k))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_set_from_text_and_unused_ones_found() {
        let mut o = GenOptions::default();
        ParamKey::Size.set(&mut o, " 6 ").unwrap();
        assert_eq!(o.size, Some(6));
        assert!(ParamKey::Rows.set(&mut o, "-1").unwrap_err().contains("whole number"));
        assert!(ParamKey::Density
            .set(&mut o, "1.5")
            .unwrap_err()
            .contains("between 0 and 1"));
        ParamKey::Density.set(&mut o, "0.5").unwrap();
        let size_only = [Param {
            key: ParamKey::Size,
            about: "size",
            prompt: None,
            choices: &[],
        }];
        assert_eq!(unused_params(&size_only, &o), [ParamKey::Density]);
        assert_eq!(
            ParamKey::ALL.map(|k| k.flag()).join(" "),
            "--rows --cols --size --density"
        );
    }
}
