//! `referee report` opened in a real browser: headless Chromium loads the
//! written HTML from disk at fragments `#gN/pP`, runs its script, and the
//! dumped DOM must show, on the board, exactly the pieces that game's record
//! has at that ply (as the game's own `board_view` of the replayed position
//! says). Screenshots are saved next to the report for a person to look at.
//!
//! The games are recorded here through the agent library (a deterministic
//! pseudo-random legal move each ply), two per game, so the test needs no
//! agent processes; the report itself is written by the referee binary.
//!
//! Without Chromium the test says so and passes, unless
//! `REFEREE_BROWSER_TEST=required` (as `.ci/run` sets), where it fails.

use agent::ConnectSquare;
use agent::Fifteen;
use agent::Halma;
use agent::Hashi;
use agent::Hinger;
use agent::{FileGame, GenOptions, Mode, Player};
use referee::output::record::{self, Ending, GameRecord, MoveRecord};
use referee::report::data::{legend_data, pieces, PieceData};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const REFEREE: &str = env!("CARGO_BIN_EXE_referee");

/// A game of `G` between `agents` from a generated start, each ply a
/// pseudo-random legal move, ended by the rules or after `cap` plies.
fn recorded<G: FileGame>(key: &str, agents: [&str; 2], opts: &GenOptions, cap: usize) -> GameRecord {
    let mut s = G::generate(opts).expect("generated start");
    let start = s.write_input(Mode::Game, 10.0);
    let mut moves = Vec::new();
    let mut buf = Vec::new();
    let mut clocks = [10.0f64, 10.0];
    let mut x = opts.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while s.result().is_none() && moves.len() < cap {
        buf.clear();
        s.legal_moves(&mut buf);
        if buf.is_empty() {
            break;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mv = buf[(x % buf.len() as u64) as usize];
        let seat = s.to_move().index();
        let cpu = 0.01 + (x % 50) as f64 / 1000.0;
        clocks[seat] -= cpu;
        moves.push(MoveRecord {
            ply: moves.len() + 1,
            seat,
            text: s.format_move(mv).trim_end().to_string(),
            cpu,
            left: clocks[seat],
            wall: cpu,
            info: None,
        });
        s.play(mv);
    }
    let (winner, ending, reason) = match s.result() {
        Some(w) => (w.map(|p| p.index()), Ending::Rules, "by the rules".to_string()),
        None => {
            let w = if clocks[0] > clocks[1] { 0 } else { 1 };
            (Some(w), Ending::MoveCap, "move cap reached; more time left".to_string())
        }
    };
    GameRecord {
        key: key.into(),
        game: G::NAME.into(),
        agents: agents.map(String::from),
        commands: agents.map(|a| format!("./{a}")),
        seat_names: G::player_names().map(String::from),
        first: opts.first.index(),
        mode: "GAME".into(),
        time: [10.0, 10.0],
        start,
        moves,
        winner,
        ending,
        loss: None,
        reason,
        clocks,
        dirs: [String::new(), String::new()],
        discarded: Vec::new(),
        run: Default::default(),
    }
}

/// The pieces the page must show for game `rec` at `ply`.
fn expected<G: FileGame>(rec: &GameRecord, ply: usize) -> Vec<PieceData> {
    let states = referee::game::replay_states::<G>(rec).expect("record replays");
    let mut p = pieces(&states[ply].board_view());
    p.sort();
    p
}

/// The value of attribute `name` inside the tag text `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

/// The pieces drawn on the board in a dumped DOM.
fn shown(dom: &str) -> Vec<PieceData> {
    let mut out = Vec::new();
    for chunk in dom.split("<g ").skip(1) {
        // With the space the split took, so every attribute follows one.
        let tag = format!(" {}", &chunk[..chunk.find('>').unwrap_or(chunk.len())]);
        let tag = tag.as_str();
        if !attr(tag, "class").is_some_and(|c| c.split(' ').any(|w| w == "piece")) {
            continue;
        }
        let num = |n: &str| {
            attr(tag, n)
                .and_then(|v| v.parse::<i64>().ok())
                .expect("numeric piece attribute")
        };
        let label = attr(tag, "data-label").unwrap_or("").to_string();
        out.push((
            num("data-r") as usize,
            num("data-c") as usize,
            num("data-owner") as i8,
            label,
            tag.contains("flagged") as u8,
        ));
    }
    out.sort();
    out
}

/// The legend is drawn as the board is: a small drawing per sample of each
/// meaning the game's `board_view` lists, no terminal letters.
fn check_legend<G: FileGame>(dom: &str, rec: &GameRecord) {
    let start = referee::game::replay_states::<G>(rec).expect("record replays")[0].board_view();
    let want = legend_data(&start.legend);
    let legend = &dom[dom.find("id=\"legend\"").expect("the page has a legend")..];
    let legend = &legend[..legend.find("</div>").unwrap_or(legend.len())];
    let samples: usize = want.iter().map(|d| d.samples.len()).sum();
    assert_eq!(
        legend.matches("class=\"legend-key").count(),
        samples,
        "{}: the legend should draw one key per sample: {legend}",
        rec.game
    );
    for d in &want {
        assert!(
            legend.contains(&d.text),
            "{}: legend lacks {:?}: {legend}",
            rec.game,
            d.text
        );
    }
    for e in &start.legend {
        assert!(
            !legend.contains(&format!("{} {}", e.symbol, e.meaning)),
            "{}: the legend shows the terminal symbol {:?}: {legend}",
            rec.game,
            e.symbol
        );
    }
    // Both camps' grounds have a sample where the game has camps.
    if legend.contains("g-c0") || legend.contains("g-c1") {
        assert!(
            legend.contains("g-c0") && legend.contains("g-c1"),
            "{}: {legend}",
            rec.game
        );
    }
    // The charts' legend names both seats.
    let charts = &dom[dom.find("id=\"chart-legend\"").expect("the charts have a legend")..];
    let charts = &charts[..charts.find("</div>").unwrap_or(charts.len())];
    assert_eq!(charts.matches("class=\"legend-item").count(), 2, "{charts}");
    for a in &rec.agents {
        let shown = a.replace('<', "&lt;").replace('>', "&gt;");
        assert!(charts.contains(&shown), "chart legend lacks {a}: {charts}");
    }
}

/// At 1280 px wide, the move table of game `number` (a Halma game with
/// long jump chains) shows all its columns and the charts' legend is drawn:
/// the page, with a measuring script added, marks itself `data-fits` when
/// the table needs no horizontal scrolling, ends inside the window, and
/// the legend takes room on the page.
fn check_move_table_fits(chrome: &str, html: &Path, number: usize) {
    let page = std::fs::read_to_string(html).unwrap();
    let probe = r##"<script>window.addEventListener("load", function () { setTimeout(function () {
  var box = document.getElementById("moves-box"), t = box.querySelector("table");
  var r = t.getBoundingClientRect(), heads = t.querySelectorAll("th").length;
  var key = document.querySelector("#chart-legend .legend-item");
  var shown = key && key.getBoundingClientRect().width > 20;
  document.body.setAttribute("data-fits", (box.scrollWidth <= box.clientWidth && r.right <= 1280 && heads == 7 && shown) ? "yes" : "no " + box.scrollWidth + "/" + box.clientWidth + " right " + r.right + " chart legend drawn " + shown);
}, 200); });</script></body>"##;
    let measured = html.with_file_name("measure.html");
    std::fs::write(&measured, page.replacen("</body>", probe, 1)).unwrap();
    let url = format!("file://{}#g{number}/p1", measured.display());
    let out = common::run_chromium(
        chrome,
        &["--dump-dom", "--window-size=1280,900", "--virtual-time-budget=2000"],
        &url,
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-fits=\"yes\""),
        "the move table does not fit 1280 px: {}",
        dom.lines()
            .find(|l| l.contains("data-fits"))
            .unwrap_or("no data-fits attribute (did the probe run?)")
    );
}

/// On a phone (a 390x844 viewport), game `number`'s page never scrolls
/// sideways and its whole board is on the screen. Headless Chromium will
/// not make a window narrower than 500 px, so the page is shown in a
/// 390x844 frame (its own viewport: media queries, `innerWidth` and the
/// layout are the frame's); a measuring script added to it checks the
/// viewport really is 390 px wide, the page's width, and the board's box
/// (drawn at a usable size), and posts what it found to the outer page,
/// which marks itself `data-phone`. A screenshot of it is saved beside
/// the others.
fn check_phone(chrome: &str, html: &Path, shots: &Path, number: usize, game: &str) {
    let page = std::fs::read_to_string(html).unwrap();
    let probe = r##"<script>window.addEventListener("load", function () { setTimeout(function () {
  var w = window.innerWidth, h = window.innerHeight, sw = document.documentElement.scrollWidth;
  var b = document.getElementById("board").getBoundingClientRect();
  var ok = w == 390 && sw <= w && b.left >= 0 && b.right <= w && b.width >= 150 && b.height <= h;
  parent.postMessage((ok ? "yes " : "no ") + "viewport " + w + "x" + h + " page width " + sw +
    " board " + Math.round(b.left) + ".." + Math.round(b.right) + " x " + Math.round(b.height), "*");
}, 200); });</script></body>"##;
    let inner = html.with_file_name("phone-page.html");
    std::fs::write(&inner, page.replacen("</body>", probe, 1)).unwrap();
    let frame = |src: &Path| {
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\"><iframe src=\"file://{}#g{number}/p1\" width=\"390\" height=\"844\" style=\"border:0; display:block\"></iframe>\
             <script>window.addEventListener(\"message\", function (e) {{ document.body.setAttribute(\"data-phone\", e.data); }});</script></body></html>",
            src.display()
        )
    };
    let outer = html.with_file_name("phone.html");
    std::fs::write(&outer, frame(&inner)).unwrap();
    let size = "--window-size=500,900";
    let url = format!("file://{}", outer.display());
    let out = common::run_chromium(chrome, &["--dump-dom", size, "--virtual-time-budget=3000"], &url);
    let dom = String::from_utf8_lossy(&out.stdout);
    let found = dom
        .split("data-phone=\"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap_or("no data-phone attribute (did the probe run?)");
    assert!(found.starts_with("yes "), "{game} on a 390 px phone: {found}");
    let shown = html.with_file_name("phone-shot.html");
    std::fs::write(&shown, frame(html)).unwrap();
    let shot = shots.join(format!("{game}-phone.png"));
    let arg = format!("--screenshot={}", shot.display());
    let url = format!("file://{}", shown.display());
    common::run_chromium(chrome, &[&arg, size, "--hide-scrollbars"], &url);
    assert!(shot.exists(), "no phone screenshot written for {game}");
}

fn check<G: FileGame>(chrome: &str, html: &Path, shots: &Path, number: usize, rec: &GameRecord) {
    let n = rec.moves.len();
    let mut pieces_seen = 0;
    for ply in [0, n / 2, n] {
        let url = format!("file://{}#g{number}/p{ply}", html.display());
        let out = common::run_chromium(chrome, &["--dump-dom"], &url);
        let dom = String::from_utf8_lossy(&out.stdout);
        assert!(
            dom.contains(&format!("data-game=\"{number}\"")) && dom.contains(&format!("data-ply=\"{ply}\"")),
            "{}: the page did not select game {number} ply {ply} (did its script run?); stderr: {}",
            rec.game,
            String::from_utf8_lossy(&out.stderr)
        );
        if ply == 0 {
            check_legend::<G>(&dom, rec);
        }
        let want = expected::<G>(rec, ply);
        pieces_seen += want.len();
        assert_eq!(
            shown(&dom),
            want,
            "{} game {number} ply {ply}: board pieces differ from the record",
            rec.game
        );
    }
    assert!(
        pieces_seen > 0,
        "{}: test positions with no pieces prove nothing",
        rec.game
    );
    let shot = shots.join(format!("{}-g{number}-p{}.png", rec.game, n / 2));
    let url = format!("file://{}#g{number}/p{}", html.display(), n / 2);
    let arg = format!("--screenshot={}", shot.display());
    let out = common::run_chromium(chrome, &[&arg, "--window-size=1300,1000", "--hide-scrollbars"], &url);
    assert!(
        shot.exists(),
        "no screenshot written for {}: {}",
        rec.game,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
// A test: the browser session and its checks read best as one story.
#[allow(clippy::too_many_lines)]
fn report_shows_each_games_pieces_at_any_ply_in_chromium() {
    let Some(chrome) = common::chromium() else {
        common::browser_missing("the report's browser check");
        return;
    };
    let dir = std::env::temp_dir().join(format!("report-browser-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let opts = |seed: u64, first: Player| GenOptions {
        seed,
        first,
        size: None,
        ..GenOptions::default()
    };
    let pairs = [["alpha", "beta"], ["beta", "gamma"]];
    let mut recs = Vec::new();
    for (i, agents) in pairs.iter().enumerate() {
        let first = Player::from_index(i);
        let seed = 3 + i as u64;
        recs.push(recorded::<Halma>(&format!("halma{i}"), *agents, &opts(seed, first), 40));
        recs.push(recorded::<Hinger>(
            &format!("hinger{i}"),
            *agents,
            &opts(seed, first),
            200,
        ));
        recs.push(recorded::<ConnectSquare>(
            &format!("cs{i}"),
            *agents,
            &opts(seed, first),
            200,
        ));
        let mut o = opts(seed, first);
        o.size = Some(4 + 2 * i);
        recs.push(recorded::<Fifteen>(&format!("fifteen{i}"), *agents, &o, 200));
        recs.push(recorded::<Hashi>(
            &format!("hashi{i}"),
            *agents,
            &opts(seed, first),
            200,
        ));
    }
    // Agent text that would stop the embedded script for every game if the
    // data were embedded raw (a crash verdict quotes an agent's stderr).
    recs[0].agents[0] = "alpha<!--<script>".into();
    recs[0].reason = "its stderr ends: <!--<script> </script> x".into();
    let records = dir.join("records.jsonl");
    for r in &recs {
        record::append(&records, r).unwrap();
    }
    let html = dir.join("report.html");
    let out = Command::new(REFEREE)
        .args(["report", &dir.display().to_string(), "-o", &html.display().to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "referee report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: the only URL is the SVG namespace name, which is never fetched.
    let urls = page.matches("http://").count() + page.matches("https://").count();
    let svg_ns = page.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(urls, svg_ns, "the report refers to something on the network");
    assert!(page.contains("id=\"standings\"") && page.contains("id=\"head-to-head\""));
    let shots: PathBuf = dir.join("screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    // One game of each kind in the browser (each look is a Chromium start,
    // seconds on a loaded machine); the others still feed the standings.
    for (k, rec) in recs.iter().enumerate().take(5) {
        let n = k + 1;
        match rec.game.as_str() {
            "halma" => check::<Halma>(&chrome, &html, &shots, n, rec),
            "hinger" => check::<Hinger>(&chrome, &html, &shots, n, rec),
            "connectsquare" => check::<ConnectSquare>(&chrome, &html, &shots, n, rec),
            "fifteen" => check::<Fifteen>(&chrome, &html, &shots, n, rec),
            "hashi" => check::<Hashi>(&chrome, &html, &shots, n, rec),
            other => panic!("unexpected game {other}"),
        }
    }
    check_move_table_fits(&chrome, &html, 1);
    for (k, rec) in recs.iter().enumerate().take(5) {
        check_phone(&chrome, &html, &shots, k + 1, &rec.game);
    }
    // Kept to look at only when asked: the suite leaves nothing in /tmp.
    if std::env::var_os("REFEREE_KEEP_SCREENSHOTS").is_some() {
        eprintln!("report_browser: report and screenshots in {}", dir.display());
    } else {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
