// A minimal legal Halma agent: a template to start your own from.
//
// It reads input.txt in the directory it is run in (SINGLE or GAME, either
// colour), lists every legal play under the contest's rules, picks the one
// that brings a piece furthest towards the opposite corner, and writes it to
// output.txt. It never reads stdin and prints nothing on stdout: the referee
// only looks at output.txt. Replace choose() with your own search.
//
// Build:  javac -d build samples/agents/java/HalmaAgent.java
// Try it: referee match --game halma --time 10 \
//           --agent "name=java,cmd=java -cp . HalmaAgent,dir=build" \
//           --agent "name=ours,cmd=target/release/agent"
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

public class HalmaAgent {
    static final int SIZE = 16;
    static final int[] BLACK_CAMP_WIDTH = {5, 5, 4, 3, 2};

    /** A play: the cells visited, start first, as {x, y} pairs. */
    record Play(List<int[]> path, boolean jump) {
        int[] start() { return path.get(0); }
        int[] end() { return path.get(path.size() - 1); }
    }

    // Black's camp: rows 0-1 columns 0-4, row 2 columns 0-3, row 3 columns
    // 0-2, row 4 columns 0-1. White's is its mirror image at the bottom-right.
    static boolean inBlackCamp(int x, int y) {
        return y >= 0 && y < 5 && x >= 0 && x < BLACK_CAMP_WIDTH[y];
    }

    static boolean inCamp(char who, int x, int y) {
        return who == 'B' ? inBlackCamp(x, y) : inBlackCamp(SIZE - 1 - x, SIZE - 1 - y);
    }

    static boolean onBoard(int x, int y) {
        return x >= 0 && x < SIZE && y >= 0 && y < SIZE;
    }

    // Every play of the piece at (x, y). A jump chain never revisits a cell,
    // and a piece that starts in the opposing camp never hops out of it
    // (legal under every reading of rule 3).
    static void playsOfPiece(char[][] b, int x, int y, char them, List<Play> out) {
        for (int dx = -1; dx <= 1; dx++) {
            for (int dy = -1; dy <= 1; dy++) {
                int tx = x + dx, ty = y + dy;
                if ((dx != 0 || dy != 0) && onBoard(tx, ty) && b[ty][tx] == '.') {
                    out.add(new Play(List.of(new int[] {x, y}, new int[] {tx, ty}), false));
                }
            }
        }
        boolean startsInGoal = inCamp(them, x, y);
        Deque<List<int[]>> stack = new ArrayDeque<>();
        stack.push(List.of(new int[] {x, y}));
        while (!stack.isEmpty()) {
            List<int[]> path = stack.pop();
            int[] c = path.get(path.size() - 1);
            for (int dx = -1; dx <= 1; dx++) {
                for (int dy = -1; dy <= 1; dy++) {
                    if (dx == 0 && dy == 0) continue;
                    int ox = c[0] + dx, oy = c[1] + dy, tx = c[0] + 2 * dx, ty = c[1] + 2 * dy;
                    if (!onBoard(tx, ty) || b[oy][ox] == '.' || b[ty][tx] != '.') continue;
                    boolean seen = false;
                    for (int[] p : path) seen |= p[0] == tx && p[1] == ty;
                    if (seen || (startsInGoal && !inCamp(them, tx, ty))) continue;
                    List<int[]> longer = new ArrayList<>(path);
                    longer.add(new int[] {tx, ty});
                    out.add(new Play(longer, true));
                    stack.push(longer);
                }
            }
        }
    }

    static List<Play> legalPlays(char[][] b, char me) {
        char them = me == 'B' ? 'W' : 'B';
        int corner = me == 'B' ? 0 : SIZE - 1;
        List<Play> every = new ArrayList<>();
        boolean anyHome = false;
        for (int y = 0; y < SIZE; y++) {
            for (int x = 0; x < SIZE; x++) {
                if (b[y][x] != me) continue;
                anyHome |= inCamp(me, x, y);
                List<Play> mine = new ArrayList<>();
                playsOfPiece(b, x, y, them, mine);
                for (Play p : mine) {
                    int[] s = p.start(), e = p.end();
                    if (!inCamp(me, s[0], s[1]) && inCamp(me, e[0], e[1])) continue; // rule 2
                    if (inCamp(them, s[0], s[1]) && !inCamp(them, e[0], e[1])) continue; // rule 3
                    every.add(p);
                }
            }
        }
        if (!anyHome) return every;
        // Rule 4: pieces in the own camp must leave it, or at least move
        // away from the own corner, before anything else may move.
        List<Play> leaving = new ArrayList<>(), away = new ArrayList<>();
        for (Play p : every) {
            int[] s = p.start(), e = p.end();
            if (!inCamp(me, s[0], s[1])) continue;
            if (!inCamp(me, e[0], e[1])) {
                leaving.add(p);
                continue;
            }
            int sx = Math.abs(s[0] - corner), sy = Math.abs(s[1] - corner);
            int ex = Math.abs(e[0] - corner), ey = Math.abs(e[1] - corner);
            if (ex >= sx && ey >= sy && (ex != sx || ey != sy)) away.add(p);
        }
        if (!leaving.isEmpty()) return leaving;
        if (!away.isEmpty()) return away;
        return every;
    }

    /** The play that gains most towards the opposite corner (ties at random). */
    static Play choose(List<Play> plays, char me) {
        int sign = me == 'B' ? 1 : -1;
        int best = Integer.MIN_VALUE;
        List<Play> top = new ArrayList<>();
        for (Play p : plays) {
            int gain = sign * ((p.end()[0] + p.end()[1]) - (p.start()[0] + p.start()[1]));
            if (gain > best) {
                best = gain;
                top.clear();
            }
            if (gain == best) top.add(p);
        }
        return top.get(new Random().nextInt(top.size()));
    }

    public static void main(String[] args) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String l : Files.readAllLines(Paths.get("input.txt"))) {
            if (!l.strip().isEmpty()) lines.add(l.strip());
        }
        char me = lines.get(1).equals("BLACK") ? 'B' : 'W';
        char[][] board = new char[SIZE][];
        for (int y = 0; y < SIZE; y++) board[y] = lines.get(3 + y).toCharArray();
        List<Play> plays = legalPlays(board, me);
        if (plays.isEmpty()) return; // no legal play: the game is over
        Play p = choose(plays, me);
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < p.path().size(); i++) {
            int[] a = p.path().get(i - 1), c = p.path().get(i);
            out.append(p.jump() ? "J " : "E ")
                    .append(a[0]).append(',').append(a[1]).append(' ')
                    .append(c[0]).append(',').append(c[1]).append('\n');
        }
        Files.writeString(Paths.get("output.txt"), out.toString());
    }
}
