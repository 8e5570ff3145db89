//! One position drawn as a static SVG, in the replay's colours (grounds,
//! the two seats' pieces, their labels), for pages without the replay's
//! script: a grading's lost single move.

use crate::report::data::ground_code;
use crate::report::page::esc;
use agent::BoardView;
use std::fmt::Write as _;

/// Pixels a cell is drawn in (the SVG then scales to its width).
const CELL: usize = 24;

/// The board of `view` as an SVG element that scales down to narrow
/// screens, with its facts below as a list.
pub(crate) fn board_svg(view: &BoardView) -> String {
    let (w, h) = (view.cols * CELL, view.rows * CELL);
    let mut s = format!(
        "<svg class=board viewBox=\"0 0 {w} {h}\" style=\"max-width:100%;width:{w}px;height:auto\" role=img aria-label=\"the board\">"
    );
    for r in 0..view.rows {
        for c in 0..view.cols {
            let cell = view.cell(r, c);
            let (x, y) = (c * CELL, r * CELL);
            let fill = match ground_code(cell.ground) {
                "c0" => "#cfc6b4",
                "c1" => "#e8c9a8",
                "x" => "#777",
                "w" => "#d9ecf7",
                _ => "#f3ead7",
            };
            let stroke = if cell.flagged { "#c00" } else { "#bbb" };
            let _ = write!(
                s,
                "<rect x={x} y={y} width={CELL} height={CELL} fill=\"{fill}\" stroke=\"{stroke}\"/>"
            );
            let Some(p) = &cell.piece else { continue };
            let (fill, ink) = match p.owner.map(|o| o.index()) {
                Some(0) => ("#222", "#fff"),
                Some(_) => ("#fdfdfd", "#000"),
                None => ("#9ab", "#000"),
            };
            let (cx, cy, rad) = (x + CELL / 2, y + CELL / 2, CELL * 2 / 5);
            let _ = write!(s, "<circle cx={cx} cy={cy} r={rad} fill=\"{fill}\" stroke=\"#444\"/>");
            if !p.label.is_empty() {
                let _ = write!(
                    s,
                    "<text x={cx} y={} font-size=11 text-anchor=middle fill=\"{ink}\">{}</text>",
                    cy + 4,
                    esc(&p.label)
                );
            }
        }
    }
    s += "</svg>";
    if !view.facts.is_empty() {
        s += "<ul>";
        for f in &view.facts {
            let _ = write!(s, "<li>{}", esc(f));
        }
        s += "</ul>";
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent::{Setup, View};

    #[test]
    fn a_halma_start_has_a_cell_per_square_and_a_piece_per_camp_square() {
        let g = agent::Halma::generate(&agent::GenOptions::default()).unwrap();
        let svg = board_svg(&g.board_view());
        assert_eq!(svg.matches("<rect").count(), 256);
        assert_eq!(svg.matches("<circle").count(), 38);
        assert!(svg.starts_with("<svg") && svg.contains("</svg>"));
    }
}
