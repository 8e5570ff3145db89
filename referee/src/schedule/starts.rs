//! Start positions of a run: a fixed `--start` position or generated ones,
//! checked against the game before any game is played.

use crate::output::board_text::seat_label;
use crate::schedule::openings::{Opening, RandomSuite};
use agent::unused_params;
use agent::{FileGame, GenOptions, Player};
use std::sync::Arc;

/// How start positions are made.
#[derive(Clone, Debug)]
pub(crate) struct Starts {
    /// A fixed start (`--start FILE` contents), else generated.
    pub text: Option<String>,
    /// Options for generated starts; the seed is advanced per game pair.
    pub gen: GenOptions,
    /// An opening suite (`--openings`): pair p of the run starts from
    /// opening p (cycling through a file suite when the run is longer).
    pub openings: Option<Arc<Openings>>,
}

/// An opening suite.
#[derive(Debug)]
pub(crate) enum Openings {
    /// Positions from files.
    Files(Vec<Opening>),
    /// Random positions, made on demand.
    Random(RandomSuite),
}

impl Starts {
    /// The start position of game `number` (0-based, within its pairing) of
    /// game pair `pair` (its index in the whole schedule), and the id of its
    /// opening (with a suite). Both games of a pair get the same position
    /// with the agents swapped.
    pub(crate) fn position<G: FileGame>(&self, pair: u64, number: u64) -> Result<(G, Option<String>), String> {
        if let Some(o) = &self.openings {
            return match &**o {
                Openings::Files(list) => {
                    // Checked non-empty when loaded.
                    let op = &list[(pair % list.len() as u64) as usize];
                    let g = G::parse_input(&op.text)
                        .map(|i| i.state)
                        .map_err(|e| format!("opening {}: {e}", op.id))?;
                    Ok((g, Some(op.id.clone())))
                }
                Openings::Random(suite) => {
                    let n = usize::try_from(pair).map_err(|_| "too many openings".to_string())?;
                    Ok((suite.get::<G>(n)?, Some(suite.id(n))))
                }
            };
        }
        match &self.text {
            Some(t) => G::parse_input(t)
                .map(|i| (i.state, None))
                .map_err(|e| format!("start position: {e}")),
            None => {
                let mut o = self.gen.clone();
                o.seed = o.seed.wrapping_add(number / 2);
                o.first = Player::One;
                G::generate(&o).map(|g| (g, None))
            }
        }
    }

    /// Whether two game pairs start from different positions (openings, or
    /// boards drawn per pair as in Hinger and Hashi).
    pub(crate) fn varies<G: FileGame>(&self) -> bool {
        let text = |pair| {
            self.position::<G>(pair, 0)
                .map(|(p, _)| p.write_input(agent::Mode::Game, 1.0))
                .ok()
        };
        text(0) != text(1)
    }

    /// Checks before any game is played that the board options are ones the
    /// game takes and that a start position can be made and is not already over.
    pub(crate) fn check<G: FileGame>(&self) -> Result<(), String> {
        let unused = unused_params(G::PARAMS, &self.gen);
        if !unused.is_empty() {
            let flags: Vec<&str> = unused.iter().map(|k| k.flag()).collect();
            let takes: Vec<String> = G::PARAMS
                .iter()
                .map(|p| format!("{} ({})", p.key.flag(), p.about))
                .collect();
            return Err(format!(
                "{} does not apply to {}; {}",
                flags.join(", "),
                G::NAME,
                if takes.is_empty() {
                    format!("{} has no board options", G::NAME)
                } else {
                    format!("it takes {}", takes.join(", "))
                }
            ));
        }
        // The first game's position: the one a fixed start or a suite's first
        // opening gives every game, or a sample of the generated ones.
        let (start, opening): (G, _) = self.position(0, 0)?;
        let source = match (&opening, &self.text) {
            (Some(id), _) => format!("opening {id}"),
            (None, Some(_)) => "the --start position".to_string(),
            (None, None) => "the generated start position".to_string(),
        };
        let names = G::player_names();
        let over = match start.result() {
            Some(Some(p)) => Some(format!("{} has already won", seat_label(names[p.index()]))),
            Some(None) => Some("it is already drawn".to_string()),
            None => {
                let mut moves = Vec::new();
                start.legal_moves(&mut moves);
                moves.is_empty().then(|| {
                    format!(
                        "{} to move has no legal move",
                        seat_label(names[start.to_move().index()])
                    )
                })
            }
        };
        match over {
            Some(why) => Err(format!(
                "{source} is already over: {why}; choose a position with a game left to play"
            )),
            None => Ok(()),
        }
    }
}
