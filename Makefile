# flipbot — build, test and benchmark.
#
#   make test   vet, staticcheck, race tests, the engine's long tests, cross-builds (linux/arm64; windows/amd64
#               and darwin/arm64 of flipbot, flipengine, flipbot-arena), arm64 tests under qemu-user
#   make build  binaries for this machine into bin/
#   make bench  the benchmarks quoted in README.md (minutes; not part of CI)
#   make dist   release archives of flipbot, flipengine and flipbot-arena for linux/amd64,
#               linux/arm64, windows/amd64 and darwin/arm64, with SHA256SUMS, into dist/
#
# The appliance image (gokrazy; needs gok: go install github.com/gokrazy/tools/cmd/gok@latest):
#   make image [IMG=flipbot.img] [IMAGE_SIZE=bytes] [TOKEN_FILE=path]   an SD card image file
#   make overwrite DRIVE=/dev/sdX [TOKEN_FILE=path]                     the same, onto a card
#   make update [UPDATE_HOST=flipbot] [UPDATE_NOW=1] [APP_URL=url]       gok update over the network
#   make emulate [OFFLINE=1]                                             the Pi image on an emulated Raspberry Pi 3B
#   make vm [OFFLINE=1]                                                  the VM variant under qemu (faster)
# OFFLINE=1 (image, update, emulate, vm) puts flipbot-arena inside, with a built-in opponent.
# make update and make vm-update first wait while the device plays a match (the update reboots it,
# and a bot away for over 30 s loses its match), up to WAIT_TIMEOUT=30m; UPDATE_NOW=1 updates at once.
# They read flipbot's /api/status at APP_URL: http://UPDATE_HOST:8080 (UPDATE_HOST's own port
# dropped), the VM's http://localhost:VM_APP_PORT for vm-update and for UPDATE_HOST=localhost:VM_HTTP_PORT.
#   make egaroucid EGAROUCID_SRC=path                                    Egaroucid for the image (arm64)

GO       ?= go
BIN      ?= bin
ARM64BIN ?= $(BIN)/linux-arm64
CMDS     := $(notdir $(wildcard cmd/*))
# The commands that also run on a PC with Windows or a Mac (cross: built for
# windows/amd64 and darwin/arm64, the other commands are Linux-only tools).
PC_CMDS  := flipbot flipengine flipbot-arena
# Packages whose tests also run as linux/arm64 binaries under qemu-user: the
# rules and the hardware drivers (their bit-level code is what differs on a Pi).
ARM64_TEST_PKGS ?= ./engines/othello ./gpio ./gpio/led ./gpio/ssd1306 ./gpio/hd44780

.PHONY: all test deps vet staticcheck test-race test-long cross test-arm64 test-image build bench clean demo dist \
	image overwrite update emulate vm vm-image vm-update egaroucid imagetool gok-check

all: build

test: deps vet staticcheck test-race test-long cross test-arm64 test-image

vet:
	$(GO) vet ./...

# staticcheck at its default checks, pinned; fetched through the Go module
# proxy on first use (SKIPPED, with the reason, where it cannot be).
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
staticcheck:
	@if $(GO) run $(STATICCHECK) -version >/dev/null 2>&1; then \
	  echo "$(GO) run $(STATICCHECK) ./..."; $(GO) run $(STATICCHECK) ./...; \
	else echo "SKIPPED staticcheck: $(STATICCHECK) could not be fetched or built (no module proxy?)"; fi

# The whole suite under the race detector; -short skips the slow tests,
# which test-long runs without the race detector.
test-race:
	$(GO) test -race -short -count=1 ./...

# The tests that -short skips: the engine's exact solves, the arena's
# tournaments over HTTP and demo runs, the appliance's pages in Chromium,
# the Windows builds under Wine (engines/proc's tests, flipbot.exe's match),
# the bot's fault tests played to the match's end, its log floods, and
# flipbot's match through the spec's Python adapter.
test-long:
	FLIPBOT_BROWSER_TESTS=1 $(GO) test -count=1 -timeout 20m ./engines/... ./arena/... ./cmd/flipbot-arena/... ./appliance/... ./bot/... ./cmd/flipbot/...

cross:
	@mkdir -p $(ARM64BIN) $(ARM64BIN)/gokrazy $(BIN)/windows-amd64 $(BIN)/darwin-arm64
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(ARM64BIN)/ ./cmd/...
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags gokrazy -o $(ARM64BIN)/gokrazy/ ./cmd/...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o $(BIN)/windows-amd64/ $(addprefix ./cmd/,$(PC_CMDS))
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(BIN)/darwin-arm64/ $(addprefix ./cmd/,$(PC_CMDS))

# Debian packages the tests use: qemu-user runs the arm64 test binaries,
# chromium the page tests, wine the Windows builds (and MinGW builds the
# bcryptprimitives.dll stand-in that Go needs under Wine 8). Installed with
# apt-get when missing and possible; without them those tests say SKIPPED and why.
DEB_PKGS := qemu-user:qemu-aarch64 chromium:chromium qemu-system-arm:qemu-system-aarch64 \
	qemu-efi-aarch64:/usr/share/qemu-efi-aarch64/QEMU_EFI.fd e2fsprogs:/sbin/debugfs \
	mtools:mcopy dosfstools:/sbin/mkfs.vfat squashfs-tools:unsquashfs g++-aarch64-linux-gnu:aarch64-linux-gnu-g++ \
	wine64:/usr/lib/wine/wine64 wine:wine gcc-mingw-w64-x86-64-win32:x86_64-w64-mingw32-gcc
deps:
	@missing=""; for pc in $(DEB_PKGS); do c=$${pc#*:}; command -v $$c >/dev/null 2>&1 || test -e $$c || missing="$$missing $${pc%%:*}"; done; \
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

# Perft speed (README "Measured"); the engine's own benchmarks are listed in engines/README.md ("Tests").
bench:
	GOAMD64=v1 $(GO) test -run '^$$' -bench 'PerftStd11|PerftGrand9|PerftOctagon9|PerftReversi11' -benchtime 1x ./engines/othello
	GOAMD64=v3 $(GO) test -run '^$$' -bench 'PerftStd11|PerftGrand9|PerftOctagon9' -benchtime 1x ./engines/othello

clean:
	rm -rf $(BIN) build $(DIST)

# Release archives, one per platform: flipbot-VERSION-OS-ARCH.tar.gz (.zip
# for windows), each holding the directory flipbot-VERSION-OS-ARCH/ with the
# PC commands, LICENSE, README.md and THIRD_PARTY_LICENSES (the licences of
# the Go toolchain and of every module linked into them, which their terms
# ask a binary to carry), and dist/SHA256SUMS over the archives. VERSION is
# `git describe --always --dirty`, stamped into the binaries (`flipbot
# version` prints it). Builds are static (CGO_ENABLED=0), -trimpath, and the
# archives' times are the commit's: the same commit and toolchain give the
# same archives. amd64 is built for $(GOAMD64) as in make build (GOAMD64=v1
# for processors older than 2013). Needs git, tar, gzip, zip and sha256sum.
DIST           ?= dist
DIST_PLATFORMS ?= linux/amd64 linux/arm64 windows/amd64 darwin/arm64
VERSION        ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
DIST_LDFLAGS   := -s -w -X flipbot.dev/flipbot/internal/version.stamp=$(VERSION)
dist:
	@for c in git tar gzip zip sha256sum; do command -v $$c >/dev/null 2>&1 || { echo "make dist needs $$c"; exit 1; }; done
	rm -rf $(DIST) && mkdir -p $(DIST)/stage
	@set -e; epoch=$$(git log -1 --format=%ct 2>/dev/null || echo 0); \
	for p in $(DIST_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; n=flipbot-$(VERSION)-$$os-$$arch; d=$(DIST)/stage/$$n; mkdir -p $$d; \
	  echo "build $$n"; \
	  GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 GOAMD64=$(GOAMD64) $(GO) build -trimpath -ldflags '$(DIST_LDFLAGS)' -o $$d/ $(addprefix ./cmd/,$(PC_CMDS)); \
	  cp LICENSE README.md $$d/; \
	  { echo "flipbot $(VERSION) for $$os/$$arch is made of flipbot's code (LICENSE) and the code below, linked into its binaries."; \
	    echo; echo "==== Go $$($(GO) env GOVERSION) (the standard library and runtime)"; echo; cat "$$($(GO) env GOROOT)/LICENSE"; \
	    GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' $(addprefix ./cmd/,$(PC_CMDS)) | sort -u | \
	    while read -r mod ver dir; do \
	      lic=$$(ls "$$dir" | grep -m1 -iE '^(licen[cs]e|copying)(\.md|\.txt)?$$') || { echo "no licence file in $$mod $$ver" >&2; exit 1; }; \
	      echo; echo "==== $$mod $$ver"; echo; cat "$$dir/$$lic"; \
	      for f in NOTICE NOTICE.txt NOTICE.md; do if [ -f "$$dir/$$f" ]; then echo; cat "$$dir/$$f"; fi; done; \
	    done; } > $$d/THIRD_PARTY_LICENSES; \
	  find $$d -exec touch -h -d @$$epoch {} +; \
	  if [ $$os = windows ]; then (cd $(DIST)/stage && zip -qrX ../$$n.zip $$n); \
	  else tar -C $(DIST)/stage --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$$epoch -cf - $$n | gzip -9n > $(DIST)/$$n.tar.gz; fi; \
	done
	@# The binary for this machine, if one was built, must print the version.
	@h=$(DIST)/stage/flipbot-$(VERSION)-$$($(GO) env GOOS)-$$($(GO) env GOARCH)/flipbot; \
	if [ -x $$h ]; then v=$$($$h version); echo "$$v"; case "$$v" in "flipbot $(VERSION) "*) ;; *) echo "the version stamp is missing"; exit 1;; esac; fi
	rm -rf $(DIST)/stage
	cd $(DIST) && sha256sum flipbot-$(VERSION)-* > SHA256SUMS && cat SHA256SUMS

# The README's first command: the arena on loopback, flipbot (built-in engine)
# against it, a built-in bot challenging it; the match is shown live (log lines,
# and the page's URL) until it ends. Needs only Go and make. flipbot keeps the
# demo's games in a temporary directory removed at the end, never in the owner's
# store; DEMO_GAMES_DIR=DIR keeps them in DIR.
demo:
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ ./cmd/flipbot-arena ./cmd/flipbot
	$(BIN)/flipbot-arena demo --flipbot $(BIN)/flipbot $(if $(DEMO_GAMES_DIR),--games-dir '$(DEMO_GAMES_DIR)') $(DEMO_FLAGS)

# ---------------------------------------------------------------------------
# The appliance image. gokrazy/flipbot is the Raspberry Pi instance (the one
# source of flipbot's flags); flipbot-image derives the instance actually built
# into build/gokrazy/ (the Pi one, the VM variants, Egaroucid staged in), makes
# /perm (gok only prints the mkfs command) and pre-provisions TOKEN_FILE.

GOK         ?= gok
IMG         ?= flipbot.img
IMAGE_SIZE  ?= 2147483648
TOKEN_FILE  ?=
DRIVE       ?=
UPDATE_HOST ?=
OFFLINE     ?=
VM_IMG      ?= build/flipbot-vm.img
EMU_IMG     ?= build/flipbot-pi.img
VM_HTTP_PORT ?= 18080
VM_APP_PORT  ?= 18081
# make update waits while a match runs (flipbot-image wait-idle) unless
# UPDATE_NOW=1; APP_URL is where flipbot's pages answer (its /api/status):
# port 8080 of UPDATE_HOST (default flipbot, the instance's hostname) on
# a Pi, VM_APP_PORT on localhost for the VM and the emulated Pi. Set it
# for an IPv6 address or pages on another port.
UPDATE_NOW   ?=
WAIT_TIMEOUT ?= 30m
APP_URL      ?=
PI_APP_URL    = $(or $(APP_URL),$(if $(filter localhost:$(VM_HTTP_PORT),$(UPDATE_HOST)),http://localhost:$(VM_APP_PORT),http://$(firstword $(subst :, ,$(or $(UPDATE_HOST),flipbot))):8080))
VM_APP_URL    = $(or $(APP_URL),http://localhost:$(VM_APP_PORT))
WAIT_IDLE     = $(if $(UPDATE_NOW),@echo "UPDATE_NOW=1: updating without waiting for a running match",$(IMAGETOOL) wait-idle -url $(1) -timeout $(WAIT_TIMEOUT))
IMAGETOOL   := build/flipbot-image
SUDO        := $(if $(filter 0,$(shell id -u)),,sudo)
EGAROUCID_SRC   ?=
EGAROUCID_STAGE ?= build/egaroucid/linux-arm64
AARCH64_CXX     ?= aarch64-linux-gnu-g++
# A staged Egaroucid (make egaroucid) goes into every image built afterwards;
# EGAROUCID_STAGE= leaves it out.
EGAROUCID_OPT = $(if $(wildcard $(EGAROUCID_STAGE)/Egaroucid_for_Console),-egaroucid $(EGAROUCID_STAGE))
TOKEN_OPT     = $(if $(TOKEN_FILE),-token-file $(TOKEN_FILE))
# FLIPBOT_FLAGS='-drain=30s …' adds flags to flipbot's in the built instance.
FLIPBOT_FLAGS ?=
INSTANCE_OPT  = $(EGAROUCID_OPT) $(if $(OFFLINE),-offline) $(foreach f,$(FLIPBOT_FLAGS),-flag $(f))

gok-check:
	@command -v $(GOK) >/dev/null 2>&1 || { echo "gok not found: install it with go install github.com/gokrazy/tools/cmd/gok@latest (or set GOK=/path/to/gok)"; exit 1; }

# IMAGETOOL_PREBUILT=1: $(IMAGETOOL) is built already (the image tests build
# it once, so that their make runs side by side never rewrite it).
imagetool:
	@mkdir -p build
	$(if $(IMAGETOOL_PREBUILT),@test -x $(IMAGETOOL),$(GO) build -o $(IMAGETOOL) ./cmd/flipbot-image)

image: gok-check imagetool
	$(IMAGETOOL) instance -o build/gokrazy/flipbot $(INSTANCE_OPT)
	$(GOK) -i ./build/gokrazy/flipbot overwrite --full $(IMG) --target_storage_bytes=$(IMAGE_SIZE)
	$(IMAGETOOL) boot $(IMG)
	$(IMAGETOOL) perm $(IMG) $(TOKEN_OPT)
	@echo "$(IMG) is ready: write it to an SD card (make overwrite DRIVE=/dev/sdX does both), or copy flipbot-token.txt onto its boot partition first"

overwrite: gok-check imagetool
	@test -n "$(DRIVE)" || { echo "usage: make overwrite DRIVE=/dev/sdX [TOKEN_FILE=path]"; exit 2; }
	$(IMAGETOOL) drive $(DRIVE)
	$(IMAGETOOL) instance -o build/gokrazy/flipbot $(INSTANCE_OPT)
	$(GOK) -i ./build/gokrazy/flipbot overwrite --full $(DRIVE)
	$(SUDO) $(IMAGETOOL) boot $(DRIVE)
	$(SUDO) $(IMAGETOOL) perm $(DRIVE) $(TOKEN_OPT)

update: gok-check imagetool
	$(IMAGETOOL) instance -o build/gokrazy/flipbot $(INSTANCE_OPT) $(if $(UPDATE_HOST),-update-host $(UPDATE_HOST))
	$(call WAIT_IDLE,$(PI_APP_URL))
	$(GOK) -i ./build/gokrazy/flipbot update

vm-image: gok-check imagetool
	$(IMAGETOOL) instance -o build/gokrazy/flipbot-vm -vm -update-host localhost:$(VM_HTTP_PORT) $(INSTANCE_OPT)
	$(GOK) -i ./build/gokrazy/flipbot-vm overwrite --full $(VM_IMG) --target_storage_bytes=$(IMAGE_SIZE)
	$(IMAGETOOL) boot $(VM_IMG)
	$(IMAGETOOL) perm $(VM_IMG) $(TOKEN_OPT)

vm: vm-image
	$(IMAGETOOL) vm $(VM_IMG) -http-port $(VM_HTTP_PORT) -app-port $(VM_APP_PORT) -serial build/vm-serial.log $(if $(OFFLINE),-offline)

# The image a user flashes (make image, unchanged: same instance, same
# steps) on QEMU's Raspberry Pi 3 Model B, with the Pi's own kernel, device
# tree and cmdline.txt from the card; flipbot-image stands in for the GPU
# firmware QEMU cannot run. From another terminal:
#   make update OFFLINE=1 UPDATE_HOST=localhost:$(VM_HTTP_PORT)
# Software emulation: many times slower than a Pi.
emulate:
	$(MAKE) image IMG=$(EMU_IMG) OFFLINE=$(OFFLINE)
	$(IMAGETOOL) vm $(EMU_IMG) -machine raspi3b -http-port $(VM_HTTP_PORT) -app-port $(VM_APP_PORT) -serial build/emulate-serial.log $(if $(OFFLINE),-offline)

# gok update into the VM that make vm is running (from another terminal),
# once its bot plays no match (UPDATE_NOW=1: at once).
vm-update: gok-check imagetool
	$(IMAGETOOL) instance -o build/gokrazy/flipbot-vm -vm -update-host localhost:$(VM_HTTP_PORT) $(INSTANCE_OPT)
	$(call WAIT_IDLE,$(VM_APP_URL))
	$(GOK) -i ./build/gokrazy/flipbot-vm update

# Egaroucid for Console, cross-compiled for linux/arm64 from the owner's own
# clone of github.com/Nyanyan/Egaroucid (nothing of it is downloaded or
# committed here): static, without x86 SIMD, staged with the resources the
# tree holds. The next make image/overwrite/update puts it into the image.
egaroucid:
	@test -n "$(EGAROUCID_SRC)" || { echo "usage: make egaroucid EGAROUCID_SRC=path/to/Egaroucid (a clone of github.com/Nyanyan/Egaroucid)"; exit 2; }
	@test -f "$(EGAROUCID_SRC)/src/Egaroucid_for_Console.cpp" || { echo "$(EGAROUCID_SRC)/src/Egaroucid_for_Console.cpp not found: EGAROUCID_SRC must be an Egaroucid source tree"; exit 2; }
	@command -v $(AARCH64_CXX) >/dev/null 2>&1 || { echo "$(AARCH64_CXX) not found: apt-get install g++-aarch64-linux-gnu (make deps does)"; exit 1; }
	@mkdir -p $(EGAROUCID_STAGE)
	rm -rf build/egaroucid/src && mkdir -p build/egaroucid && cp -R "$(EGAROUCID_SRC)/src" build/egaroucid/src && chmod -R u+w build/egaroucid/src
	@# The low-memory build: the stock one writes a static 2^25-entry table
	@# (805 MiB) and an unused 384 MiB search tree at start, 1.33 GiB whatever
	@# -hash says. On the heap the table follows -hash (227 MiB at -hash 10).
	sed -i 's/^#define TT_USE_STACK true/#define TT_USE_STACK false/' build/egaroucid/src/engine/setting.hpp
	sed -i 's/^constexpr int N_MAX_NODES_AI_TL = 1000000;/constexpr int N_MAX_NODES_AI_TL = 1;/' build/egaroucid/src/engine/ai.hpp
	@grep -q '^#define TT_USE_STACK false' build/egaroucid/src/engine/setting.hpp && grep -q '^constexpr int N_MAX_NODES_AI_TL = 1;' build/egaroucid/src/engine/ai.hpp \
		|| echo "warning: this Egaroucid source differs from 7.8: the low-memory changes did not apply (it may need 1.4 GB)"
	$(AARCH64_CXX) -O2 -include algorithm -std=c++20 -pthread -static -DHAS_NO_AVX2 -DHAS_ARM_PROCESSOR \
		build/egaroucid/src/Egaroucid_for_Console.cpp -o $(EGAROUCID_STAGE)/Egaroucid_for_Console
	rm -rf $(EGAROUCID_STAGE)/resources
	@if [ -d "$(EGAROUCID_SRC)/bin/resources" ]; then cp -R "$(EGAROUCID_SRC)/bin/resources" $(EGAROUCID_STAGE)/resources; \
	else echo "warning: $(EGAROUCID_SRC)/bin/resources not found: Egaroucid needs its evaluation files there"; mkdir -p $(EGAROUCID_STAGE)/resources; fi
	@echo "staged in $(EGAROUCID_STAGE): the next make image, overwrite or update includes it"

# The image tests: the Pi image built with gok and read back, the offline VM
# booted under qemu-system-aarch64 through setup, play and gok update, and the
# Egaroucid recipe. Each says SKIPPED and why when gok, qemu or the sources
# are missing.
test-image: deps
	FLIPBOT_IMAGE_TESTS=1 GOK=$(GOK) $(GO) test -count=1 -timeout 60m -v ./gokrazy/imagetest
