// A minimal legal Halma agent: a template to start your own from.
//
// It reads input.txt in the directory it is run in (SINGLE or GAME, either
// colour), lists every legal play under the contest's rules, picks the one
// that brings a piece furthest towards the opposite corner, and writes it to
// output.txt. It never reads stdin and prints nothing on stdout: the referee
// only looks at output.txt. Replace choose() with your own search.
//
// Build:  g++ -O2 -o halma_agent samples/agents/cpp/halma_agent.cpp
// Try it: referee match --game halma --time 10 ./halma_agent target/release/agent
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

const int SIZE = 16;

struct Cell {
    int x, y;
    bool operator==(const Cell& o) const { return x == o.x && y == o.y; }
};

struct Play {
    std::vector<Cell> path;  // cells visited, start first
    bool jump;
};

// Black's camp: rows 0-1 columns 0-4, row 2 columns 0-3, row 3 columns 0-2,
// row 4 columns 0-1. White's is its mirror image at the bottom-right.
bool in_black_camp(int x, int y) {
    static const int width[5] = {5, 5, 4, 3, 2};
    return y >= 0 && y < 5 && x >= 0 && x < width[y];
}
bool in_camp(char who, int x, int y) {
    return who == 'B' ? in_black_camp(x, y) : in_black_camp(SIZE - 1 - x, SIZE - 1 - y);
}
bool on_board(int x, int y) { return x >= 0 && x < SIZE && y >= 0 && y < SIZE; }

using Board = std::vector<std::string>;  // board[y][x] is 'B', 'W' or '.'

// Every play of the piece at (x, y). A jump chain never revisits a cell, and
// a piece that starts in the opposing camp never hops out of it (legal under
// every reading of rule 3).
void plays_of_piece(const Board& b, int x, int y, char them, std::vector<Play>& out) {
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++) {
            int tx = x + dx, ty = y + dy;
            if ((dx || dy) && on_board(tx, ty) && b[ty][tx] == '.') out.push_back({{{x, y}, {tx, ty}}, false});
        }
    bool starts_in_goal = in_camp(them, x, y);
    std::vector<std::vector<Cell>> stack = {{{x, y}}};
    while (!stack.empty()) {
        std::vector<Cell> path = stack.back();
        stack.pop_back();
        Cell c = path.back();
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++) {
                if (!dx && !dy) continue;
                int ox = c.x + dx, oy = c.y + dy, tx = c.x + 2 * dx, ty = c.y + 2 * dy;
                if (!on_board(tx, ty) || b[oy][ox] == '.' || b[ty][tx] != '.') continue;
                bool seen = false;
                for (const Cell& p : path) seen = seen || (p.x == tx && p.y == ty);
                if (seen || (starts_in_goal && !in_camp(them, tx, ty))) continue;
                std::vector<Cell> longer = path;
                longer.push_back({tx, ty});
                out.push_back({longer, true});
                stack.push_back(longer);
            }
    }
}

std::vector<Play> legal_plays(const Board& b, char me) {
    char them = me == 'B' ? 'W' : 'B';
    Cell corner = me == 'B' ? Cell{0, 0} : Cell{SIZE - 1, SIZE - 1};
    std::vector<Play> every;
    bool any_home = false;
    for (int y = 0; y < SIZE; y++)
        for (int x = 0; x < SIZE; x++) {
            if (b[y][x] != me) continue;
            any_home = any_home || in_camp(me, x, y);
            std::vector<Play> mine;
            plays_of_piece(b, x, y, them, mine);
            for (const Play& p : mine) {
                Cell s = p.path.front(), e = p.path.back();
                if (!in_camp(me, s.x, s.y) && in_camp(me, e.x, e.y)) continue;      // rule 2
                if (in_camp(them, s.x, s.y) && !in_camp(them, e.x, e.y)) continue;  // rule 3
                every.push_back(p);
            }
        }
    if (!any_home) return every;
    // Rule 4: pieces in the own camp must leave it, or at least move away
    // from the own corner, before anything else may move.
    std::vector<Play> leaving, away;
    for (const Play& p : every) {
        Cell s = p.path.front(), e = p.path.back();
        if (!in_camp(me, s.x, s.y)) continue;
        if (!in_camp(me, e.x, e.y)) {
            leaving.push_back(p);
            continue;
        }
        int sx = std::abs(s.x - corner.x), sy = std::abs(s.y - corner.y);
        int ex = std::abs(e.x - corner.x), ey = std::abs(e.y - corner.y);
        if (ex >= sx && ey >= sy && (ex != sx || ey != sy)) away.push_back(p);
    }
    if (!leaving.empty()) return leaving;
    if (!away.empty()) return away;
    return every;
}

// The play that gains most towards the opposite corner (ties at random).
const Play& choose(const std::vector<Play>& plays, char me) {
    int sign = me == 'B' ? 1 : -1;
    auto gain = [&](const Play& p) {
        return sign * ((p.path.back().x + p.path.back().y) - (p.path.front().x + p.path.front().y));
    };
    int best = gain(plays[0]);
    for (const Play& p : plays) best = std::max(best, gain(p));
    std::vector<const Play*> top;
    for (const Play& p : plays)
        if (gain(p) == best) top.push_back(&p);
    std::mt19937 rng(std::random_device{}());
    return *top[std::uniform_int_distribution<size_t>(0, top.size() - 1)(rng)];
}

}  // namespace

int main() {
    std::ifstream in("input.txt");
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
        if (!l.empty()) lines.push_back(l);
    }
    if (lines.size() < 3 + SIZE) return 2;  // not a Halma input.txt
    char me = lines[1] == "BLACK" ? 'B' : 'W';
    Board board(lines.begin() + 3, lines.begin() + 3 + SIZE);
    std::vector<Play> plays = legal_plays(board, me);
    if (plays.empty()) return 0;  // no legal play: the game is over
    const Play& p = choose(plays, me);
    std::ofstream out("output.txt");
    for (size_t i = 1; i < p.path.size(); i++) {
        out << (p.jump ? "J " : "E ") << p.path[i - 1].x << ',' << p.path[i - 1].y << ' ' << p.path[i].x << ','
            << p.path[i].y << '\n';
    }
    return 0;
}
