# The two everyday commands are `make play` (one full timed Halma game, our
# agent against the reference agent, through the referee) and `make test`.
CARGO ?= cargo

.PHONY: build play test bench install clean

# The agent is then linked again, statically: in the contest every move is
# a new process, and a static binary skips the dynamic loader, its
# relocations and the libraries' mappings, 0.3-0.45 ms of CPU a move
# (docs/results.md, "The per-move floor"). Only the final link changes (`cargo rustc` passes the
# flag to the binary alone; the proc-macros cargo builds cannot be static);
# where no static C library is installed the dynamic binary stays.
build:
	$(CARGO) build --release --workspace
	@$(CARGO) rustc --release -p agent --bin agent --quiet -- -C target-feature=+crt-static 2>/dev/null \
		|| echo "make: the agent could not be linked statically (no static C library?); it stays dynamically linked" >&2

# The clock of `make play` (CPU seconds per side) and where its record and
# report go; the test of its output (referee/tests/make_play.rs) shortens it.
PLAY_TIME ?= 60
PLAY_OUT ?= play-out

# Quiet (`@`): the command line is wider than a terminal, and the referee's
# first line already says what is played.
play: build
	@./target/release/referee play --time $(PLAY_TIME) --out "$(PLAY_OUT)" "$(CURDIR)/target/release/agent" "$(CURDIR)/target/release/agent --strategy minimax --depth 2"

# The whole suite, as CI runs it (.ci/run is only `make test`): what the
# tests need beyond Rust (installed as root, else named before anything
# compiles); the gates: format, clippy (which also holds every function to
# 80 lines: long functions hide their steps), the library without the
# command line, API docs without a warning, no import circles in either
# crate; then every test, the report's browser test required to run.
test:
	scripts/test-deps.sh
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO) clippy -p agent --lib --no-default-features -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace
	scripts/import-graph.sh -q
	REFEREE_BROWSER_TEST=required $(CARGO) test --workspace --release

# Puts agent and referee on PATH (cargo's bin directory, ~/.cargo/bin).
# The agent statically linked, as `make build` makes it (with --target,
# RUSTFLAGS reach the agent's own code but not the host's proc-macros).
HOST := $(shell rustc -vV 2>/dev/null | sed -n 's/^host: //p')
install:
	RUSTFLAGS="-C target-feature=+crt-static" $(CARGO) install --locked --path . --target $(HOST) \
		|| $(CARGO) install --locked --path .
	$(CARGO) install --locked --path referee

bench: build
	./target/release/agent halma bench

clean:
	$(CARGO) clean
