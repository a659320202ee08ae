# flipbot — build, test and benchmark.
#
#   make test   vet, race tests, the engine's long tests, arm64 cross-build, arm64 tests under qemu-user
#   make build  binaries for this machine into bin/
#   make bench  the benchmarks quoted in README.md (minutes; not part of CI)

GO       ?= go
BIN      ?= bin
ARM64BIN ?= $(BIN)/linux-arm64
CMDS     := $(notdir $(wildcard cmd/*))
# Packages whose tests also run as linux/arm64 binaries under qemu-user: the
# rules and the hardware drivers (their bit-level code is what differs on a Pi).
ARM64_TEST_PKGS ?= ./engines/othello ./gpio ./gpio/led ./gpio/ssd1306 ./gpio/hd44780

.PHONY: all test deps vet test-race test-long cross test-arm64 build bench clean demo

all: build

test: deps vet test-race test-long cross test-arm64

vet:
	$(GO) vet ./...

# The whole suite under the race detector; -short skips the slow tests,
# which test-long runs without the race detector.
test-race:
	$(GO) test -race -short -count=1 ./...

# The tests that -short skips: the engine's exact solves, the arena's
# tournaments over HTTP and demo runs, the appliance's pages in Chromium.
test-long:
	FLIPBOT_BROWSER_TESTS=1 $(GO) test -count=1 -timeout 20m ./engines/... ./arena/... ./cmd/flipbot-arena/... ./appliance/...

cross:
	@mkdir -p $(ARM64BIN)
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(ARM64BIN)/ ./cmd/...

# Debian packages the tests use: qemu-user runs the arm64 test binaries and
# chromium the page tests. Installed with apt-get when missing and possible;
# without them those tests say SKIPPED and why.
DEB_PKGS := qemu-user:qemu-aarch64 chromium:chromium
deps:
	@missing=""; for pc in $(DEB_PKGS); do command -v $${pc#*:} >/dev/null 2>&1 || missing="$$missing $${pc%%:*}"; done; \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing) >/dev/null \
	      || echo "apt-get install$$missing failed: the tests that need them will be skipped"; \
	  else echo "not installing$$missing (needs apt-get as root): the tests that need them will be skipped"; fi; \
	fi

test-arm64: deps
	@mkdir -p $(ARM64BIN)/tests
	@set -e; q=$$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true); \
	if [ -z "$$q" ]; then echo "SKIPPED arm64 tests: qemu-user is missing and apt-get cannot install it here (not root or no apt)"; exit 0; fi; \
	for p in $(ARM64_TEST_PKGS); do \
	  t=$(ARM64BIN)/tests/$$(echo $$p | tr -c 'a-zA-Z0-9\n' '_').test; \
	  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) test -c -o $$t $$p; \
	  echo "qemu-aarch64 $$p"; (cd $$p && $$q $(CURDIR)/$$t -test.short -test.count=1); \
	done

# On amd64 the binaries are built for x86-64-v3 (Haswell, 2013, and later):
# the engine is ~1.5x faster with BMI and LZCNT. `make build GOAMD64=v1` for
# older processors.
GOAMD64 ?= v3
build:
	@mkdir -p $(BIN)
	GOAMD64=$(GOAMD64) $(GO) build -o $(BIN)/ ./cmd/...

# Perft speed (README "Speed"); the engine's own benchmarks are listed in engines/README.md.
bench:
	GOAMD64=v1 $(GO) test -run '^$$' -bench 'PerftStd11|PerftGrand9|PerftOctagon9|PerftReversi11' -benchtime 1x ./engines/othello
	GOAMD64=v3 $(GO) test -run '^$$' -bench 'PerftStd11|PerftGrand9|PerftOctagon9' -benchtime 1x ./engines/othello

clean:
	rm -rf $(BIN)

# The README's first command: the arena on loopback, flipbot (built-in engine)
# against it, a built-in bot challenging it; the match is shown live (log lines,
# and the page's URL) until it ends. Needs only Go and make.
demo:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/flipbot-arena ./cmd/flipbot
	$(BIN)/flipbot-arena demo --flipbot $(BIN)/flipbot $(DEMO_FLAGS)
