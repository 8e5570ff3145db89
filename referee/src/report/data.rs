//! One recorded game turned into what the report's script draws: the board
//! after every ply (from the game's [`BoardView`]), the cells each move
//! touched, and the clocks. Serialized as compact JSON arrays.

use crate::output::record::GameRecord;
use agent::{BoardView, FileGame, Ground, LegendEntry, PieceShape, Sample};
use serde::Serialize;

/// A piece on the board: `[row, col, owner (-1 shared, 0, 1), label, flagged (0/1)]`.
pub type PieceData = (usize, usize, i8, String, u8);

/// A cell whose ground differs from the game's start: `[row, col, ground code]`.
pub(crate) type GroundData = (usize, usize, &'static str);

/// A bridge: `[row1, col1, row2, col2, count]`.
pub(crate) type LinkData = (usize, usize, usize, usize, u8);

/// The board after one ply (ply 0: the start).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct PlyData {
    /// Pieces on the board.
    pub p: Vec<PieceData>,
    /// Cells whose ground changed since the start (Fifteen's removed cells).
    pub g: Vec<GroundData>,
    /// Bridges.
    pub l: Vec<LinkData>,
    /// Facts beside the board (hands, scores).
    pub f: Vec<String>,
    /// The cells the move into this position touched, in order.
    pub m: Vec<(usize, usize)>,
    /// What that move caused, if anything.
    pub n: Option<String>,
}

/// One move of the move list.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct MoveData {
    /// Seat index of the mover.
    pub seat: usize,
    /// The move as shown to a person.
    pub text: String,
    /// CPU seconds it cost.
    pub cpu: f64,
    /// The mover's time left after it.
    pub left: f64,
    /// Depth the agent reported for it (`info depth D ...` on stderr), if any.
    pub depth: Option<u32>,
    /// Score the agent reported for it, from its own view, in its own units, if any.
    pub score: Option<i64>,
}

/// Everything the page needs about one game.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct GameData {
    /// Record key.
    pub key: String,
    /// Game name.
    pub game: String,
    /// Agent names by seat.
    pub agents: [String; 2],
    /// Seat names by seat (BLACK/WHITE, R/Y, 1/2).
    pub seats: [String; 2],
    /// Seat index that moved first.
    pub first: usize,
    /// Starting CPU seconds by seat.
    pub time: [f64; 2],
    /// Winning seat, `None` for a draw.
    pub winner: Option<usize>,
    /// The verdict: the referee's reason and, when the rules decided, the game's account.
    pub verdict: String,
    /// Board rows and columns.
    pub rows: usize,
    /// Board columns.
    pub cols: usize,
    /// Ground code of every cell at the start, row by row.
    pub ground: Vec<&'static str>,
    /// Notes on the game beside its verdict (agent output discarded past the cap).
    pub notes: Vec<String>,
    /// How pieces and moves are drawn (the game's [`View::DRAWING`](agent::View::DRAWING)).
    pub drawing: DrawingData,
    /// The board's legend as drawn: each meaning with the samples that show it.
    pub legend: Vec<LegendData>,
    /// The board after each ply, `plies[0]` the start.
    pub plies: Vec<PlyData>,
    /// The moves.
    pub moves: Vec<MoveData>,
}

/// The game's drawing hints, read by the script.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub(crate) struct DrawingData {
    /// `"disc"` or `"card"`.
    pub piece: &'static str,
    /// A disc's radius as a fraction of the cell (0 for cards).
    pub radius: f64,
    /// What the line joining a move's cells is, for the legend; `None`: no line.
    pub move_line: Option<&'static str>,
}

/// One drawn sample of a legend entry: a cell (its ground code and piece)
/// or a link of `l` lines (along a column when `v`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SampleData {
    /// Ground code of the cell.
    pub g: &'static str,
    /// The piece on it, as `[owner (-1 shared, 0, 1), label, flagged (0/1)]`.
    pub p: Option<(i8, String, u8)>,
    /// For a link sample: its number of lines (the cell fields are then unused).
    pub l: Option<u8>,
    /// A link sample runs along a column.
    pub v: bool,
}

/// One meaning of the legend and the samples drawn beside it (several when
/// the entries differ only in whose piece they show).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct LegendData {
    /// The drawn samples.
    pub samples: Vec<SampleData>,
    /// What they mean.
    pub text: String,
}

/// The drawing hints of game `G`.
fn drawing_data<G: FileGame>() -> DrawingData {
    let (piece, radius) = match G::DRAWING.piece {
        PieceShape::Disc { radius } => ("disc", radius),
        PieceShape::Card => ("card", 0.0),
    };
    DrawingData {
        piece,
        radius,
        move_line: G::DRAWING.move_line,
    }
}

/// A legend sample as the script draws it.
fn sample_data(s: &Sample) -> SampleData {
    match s {
        Sample::Cell(c) => SampleData {
            g: ground_code(c.ground),
            p: c.piece
                .as_ref()
                .map(|p| (owner_code(p.owner), p.label.clone(), c.flagged as u8)),
            l: None,
            v: false,
        },
        Sample::Link { count, vertical } => SampleData {
            g: ground_code(Ground::Plain),
            p: None,
            l: Some(*count),
            v: *vertical,
        },
    }
}

/// A piece owner as the script reads it: -1 shared, else the seat index.
fn owner_code(owner: Option<agent::Player>) -> i8 {
    owner.map_or(-1, |o| o.index() as i8)
}

/// The legend as drawn, entries with the same meaning merged.
pub fn legend_data(legend: &[LegendEntry]) -> Vec<LegendData> {
    let mut out: Vec<LegendData> = Vec::new();
    for e in legend {
        let sample = sample_data(&e.sample);
        match out.iter_mut().find(|d| d.text == e.meaning) {
            Some(d) => d.samples.push(sample),
            None => out.push(LegendData {
                samples: vec![sample],
                text: e.meaning.clone(),
            }),
        }
    }
    // Both camps are drawn in their own colours: a meaning shown on one
    // camp's ground gets a sample on the other's too.
    for d in &mut out {
        let other = |g: &str| match g {
            "c0" => Some("c1"),
            "c1" => Some("c0"),
            _ => None,
        };
        let missing: Vec<SampleData> = d
            .samples
            .iter()
            .filter_map(|s| other(s.g).map(|g| SampleData { g, ..s.clone() }))
            .filter(|m| !d.samples.iter().any(|s| s.g == m.g))
            .collect();
        d.samples.extend(missing);
    }
    out
}

/// Short code of a ground kind, read by the script.
pub(crate) fn ground_code(g: Ground) -> &'static str {
    match g {
        Ground::Plain => "p",
        Ground::Camp(p) if p.index() == 0 => "c0",
        Ground::Camp(_) => "c1",
        Ground::Removed => "x",
        Ground::Water => "w",
    }
}

/// The pieces of a view as the report encodes them (also used by the
/// browser test to know what the page must show).
pub fn pieces(view: &BoardView) -> Vec<PieceData> {
    let mut out = Vec::new();
    for r in 0..view.rows {
        for c in 0..view.cols {
            let cell = view.cell(r, c);
            if let Some(p) = &cell.piece {
                out.push((r, c, owner_code(p.owner), p.label.clone(), cell.flagged as u8));
            }
        }
    }
    out
}

fn ply_data(view: &BoardView, base: &[&'static str], m: Vec<(usize, usize)>, n: Option<String>) -> PlyData {
    let mut g = Vec::new();
    for r in 0..view.rows {
        for c in 0..view.cols {
            let code = ground_code(view.cell(r, c).ground);
            if base[r * view.cols + c] != code {
                g.push((r, c, code));
            }
        }
    }
    PlyData {
        p: pieces(view),
        g,
        l: view
            .links
            .iter()
            .map(|l| (l.from.0, l.from.1, l.to.0, l.to.1, l.count))
            .collect(),
        f: view.facts.clone(),
        m,
        n,
    }
}

/// Replays a record of game `G` into page data.
pub(crate) fn game_data<G: FileGame>(rec: &GameRecord) -> Result<GameData, String> {
    let states = crate::game::replay_states::<G>(rec)?;
    let first = states[0].board_view();
    let ground: Vec<&'static str> = first.cells.iter().map(|c| ground_code(c.ground)).collect();
    let mut plies = vec![ply_data(&first, &ground, Vec::new(), None)];
    let mut moves = Vec::with_capacity(rec.moves.len());
    let mut last = None;
    for (i, m) in rec.moves.iter().enumerate() {
        let before = &states[i];
        // replay_states has already parsed every move, so this cannot fail.
        let mv = before
            .parse_move(&m.text)
            .map_err(|e| format!("game {} ply {}: {e}", rec.key, m.ply))?;
        let mview = before.move_view(mv);
        moves.push(MoveData {
            seat: m.seat,
            text: before.describe_move(mv),
            cpu: m.cpu,
            left: m.left,
            depth: m.info.as_ref().and_then(|i| i.depth),
            score: m.info.as_ref().and_then(|i| i.score),
        });
        plies.push(ply_data(
            &states[i + 1].board_view(),
            &ground,
            mview.cells.clone(),
            mview.note.clone(),
        ));
        last = Some(mview);
    }
    let end_view = states.last().expect("the start state is always there").board_view();
    let verdict = crate::output::board_text::result_heading(rec, &end_view, last.as_ref());
    Ok(GameData {
        key: rec.key.clone(),
        game: rec.game.clone(),
        agents: rec.agents.clone(),
        seats: rec.seat_names.clone(),
        first: rec.first,
        time: rec.time,
        winner: rec.winner,
        verdict: verdict.trim_start_matches("Result: ").to_string(),
        notes: rec.discarded.iter().map(|d| d.note(&rec.agents)).collect(),
        rows: first.rows,
        cols: first.cols,
        ground,
        drawing: drawing_data::<G>(),
        legend: legend_data(&first.legend),
        plies,
        moves,
    })
}
