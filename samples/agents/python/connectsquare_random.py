#!/usr/bin/env python3
"""Connect Square sample agent: drops a coin in a random playable column.

Run with no arguments in a directory holding input.txt (docs/games/connectsquare.md and docs/protocol.md);
writes the column to output.txt. The referee runs it as
`--agent name=py,cmd="python3 connectsquare_random.py",dir=samples/agents/python`.
"""
import random

# Blank lines may appear anywhere; the board's top row is the line after "ROWS COLS".
lines = [line.strip() for line in open("input.txt") if line.strip()]
rows, cols = map(int, lines[4].split())
top = lines[5]
playable = [c for c in range(cols) if top[c] in ".0"]
with open("output.txt", "w") as out:
    out.write(f"{random.choice(playable)}\n")
