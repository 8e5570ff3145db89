# The two everyday commands are `make play` (one full timed Halma game, our
# agent against the reference agent, through the referee) and `make test`.
CARGO ?= cargo

.PHONY: build play test bench clean

build:
	$(CARGO) build --release --workspace

play: build
	./target/release/referee play --time 60 --show moves --board-every 25 "$(CURDIR)/target/release/agent" "$(CURDIR)/target/release/agent --strategy minimax --depth 2"

test:
	$(CARGO) test --workspace --release

bench: build
	./target/release/agent halma bench

clean:
	$(CARGO) clean
