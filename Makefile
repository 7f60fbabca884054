# kafkasim — `make test` is what CI runs (through .ci/run).
GO      ?= go
WASMEXEC := $(shell $(GO) env GOROOT)/lib/wasm

.PHONY: test test-native test-wasm vet purity selfcontained bench build simtest

test: vet purity selfcontained test-native test-wasm

build:
	$(GO) build ./...

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./core/... ./wasm/...

# purity: core/ must stay a pure state machine (no I/O, no clocks, no goroutines).
purity:
	./scripts/purity.sh

# selfcontained: no tracked file names a path outside the repository.
selfcontained:
	./scripts/selfcontained.sh

test-native:
	$(GO) test -count=1 -timeout 30m ./...

# The core's tests again, compiled to WebAssembly and run under node.
test-wasm:
	PATH="$(WASMEXEC):$$PATH" GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 30m ./core/...

bench:
	./scripts/bench.sh

# The simulation tester's long run: random clusters, workloads and faults
# in the safe configuration, invariants checked after every step; a
# violation prints its seed and a shrunken .ksim and fails. (`make test`
# runs a bounded budget of seeds inside go test: core/simtest.)
SIMTEST_SEEDS ?= 50000
simtest:
	$(GO) run ./cmd/kafkasim simtest --seeds $(SIMTEST_SEEDS)
