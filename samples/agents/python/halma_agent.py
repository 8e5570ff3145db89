#!/usr/bin/env python3
"""A minimal legal Halma agent: a template to start your own from.

It reads input.txt in the directory it is run in (SINGLE or GAME, either
colour), lists every legal play under the contest's rules, picks the one
that brings a piece furthest towards the opposite corner, and writes it to
output.txt. It never reads stdin and prints nothing on stdout: the referee
only looks at output.txt. Replace `choose` with your own search.

Try it:  referee match --game halma --time 10 \
           "python3 samples/agents/python/halma_agent.py" target/release/agent
"""

import random

SIZE = 16
# Black's camp: rows 0-1 columns 0-4, row 2 columns 0-3, row 3 columns 0-2,
# row 4 columns 0-1. White's is its mirror image at the bottom-right.
BLACK_CAMP = {(x, y) for y, width in enumerate([5, 5, 4, 3, 2]) for x in range(width)}
WHITE_CAMP = {(SIZE - 1 - x, SIZE - 1 - y) for (x, y) in BLACK_CAMP}
DIRECTIONS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


def read_input(path="input.txt"):
    """Returns (mode, colour, seconds, board) where board[y][x] is 'B', 'W' or '.'."""
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    mode, colour, seconds = lines[0], lines[1], float(lines[2])
    board = [list(row) for row in lines[3 : 3 + SIZE]]
    return mode, colour, seconds, board


def on_board(x, y):
    return 0 <= x < SIZE and 0 <= y < SIZE


def plays_of_piece(board, x, y, opposing_camp):
    """Every play of the piece at (x, y): (path, is_jump), path = cells visited."""
    plays = []
    for dx, dy in DIRECTIONS:
        tx, ty = x + dx, y + dy
        if on_board(tx, ty) and board[ty][tx] == ".":
            plays.append(([(x, y), (tx, ty)], False))
    # Jump chains, depth first; a chain never revisits a cell, and a piece
    # that starts in the opposing camp never hops out of it (legal under
    # every reading of rule 3).
    starts_in_goal = (x, y) in opposing_camp
    stack = [[(x, y)]]
    while stack:
        path = stack.pop()
        cx, cy = path[-1]
        for dx, dy in DIRECTIONS:
            ox, oy, tx, ty = cx + dx, cy + dy, cx + 2 * dx, cy + 2 * dy
            if not on_board(tx, ty) or board[oy][ox] == "." or board[ty][tx] != ".":
                continue
            if (tx, ty) in path or (tx, ty) == (x, y):
                continue
            if starts_in_goal and (tx, ty) not in opposing_camp:
                continue
            longer = path + [(tx, ty)]
            plays.append((longer, True))
            stack.append(longer)
    return plays


def legal_plays(board, colour):
    me = "B" if colour == "BLACK" else "W"
    own_camp, opposing_camp = (BLACK_CAMP, WHITE_CAMP) if me == "B" else (WHITE_CAMP, BLACK_CAMP)
    corner = (0, 0) if me == "B" else (SIZE - 1, SIZE - 1)
    pieces = [(x, y) for y in range(SIZE) for x in range(SIZE) if board[y][x] == me]
    every = []
    for x, y in pieces:
        for path, jump in plays_of_piece(board, x, y, opposing_camp):
            start, end = path[0], path[-1]
            if start not in own_camp and end in own_camp:
                continue  # rule 2: never back into the own camp
            if start in opposing_camp and end not in opposing_camp:
                continue  # rule 3: a piece in the goal stays there
            every.append((path, jump))

    def further(path):
        (sx, sy), (ex, ey) = path[0], path[-1]
        ds = (abs(sx - corner[0]), abs(sy - corner[1]))
        de = (abs(ex - corner[0]), abs(ey - corner[1]))
        return de[0] >= ds[0] and de[1] >= ds[1] and de != ds

    # Rule 4: pieces in the own camp must leave it, or at least move away
    # from the own corner, before anything else may move.
    if any(p in own_camp for p in pieces):
        leaving = [m for m in every if m[0][0] in own_camp and m[0][-1] not in own_camp]
        if leaving:
            return leaving
        away = [m for m in every if m[0][0] in own_camp and m[0][-1] in own_camp and further(m[0])]
        if away:
            return away
    return every


def choose(board, colour, plays):
    """The play that gains most towards the opposite corner (ties at random)."""
    sign = 1 if colour == "BLACK" else -1

    def gain(play):
        (sx, sy), (ex, ey) = play[0][0], play[0][-1]
        return sign * ((ex + ey) - (sx + sy))

    best = max(gain(p) for p in plays)
    return random.choice([p for p in plays if gain(p) == best])


def format_play(play):
    path, jump = play
    if not jump:
        (sx, sy), (ex, ey) = path
        return f"E {sx},{sy} {ex},{ey}\n"
    hops = zip(path, path[1:])
    return "".join(f"J {ax},{ay} {bx},{by}\n" for (ax, ay), (bx, by) in hops)


def main():
    mode, colour, seconds, board = read_input()
    plays = legal_plays(board, colour)
    if not plays:
        return  # no legal play: the game is over, nothing to write
    with open("output.txt", "w") as f:
        f.write(format_play(choose(board, colour, plays)))


if __name__ == "__main__":
    main()
