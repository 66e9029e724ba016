# WorkspaceBridge: the two quickstart commands are `make run` and `make test`.
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib

.PHONY: run demo test build release unit e2e clients fuzz bench clean generate

## Sets up, builds, and starts the web front end on the embedded demo workspace (prints the URL).
## TEMPLATE=atome starts the Atome demo (seed 002's layout); APP=DIR also serves your front end at /app/.
run: build
	node clients/web/run.mjs $(if $(TEMPLATE),--template $(TEMPLATE)) $(if $(APP),--app $(APP))

## Sets up, builds the release binary and runs the scripted tour on the embedded default workspace.
demo: release
	python3 scripts/tour.py .build/release/workspace-bridge

## Sets up and runs every test: Swift unit tests, then end-to-end and contract tests on the real binary.
test:
	bash scripts/setup.sh --test
	$(SWIFT) build --build-tests
	$(SWIFT) test
	python3 -m pytest -q Tests/e2e
	python3 -m pytest -q clients/python/tests
	$(MAKE) --no-print-directory clients
	$(MAKE) --no-print-directory fuzz

build:
	bash scripts/setup.sh
	$(SWIFT) build

release:
	bash scripts/setup.sh
	$(SWIFT) build $(RELEASE_FLAGS)

unit: build
	$(SWIFT) test

e2e: build
	python3 -m pytest -q Tests/e2e

## The JS client, the editor extension and the web front end (headless Chromium), on the debug binary.
clients:
	node clients/js/scripts/generate-types.mjs --check
	python3 clients/python/scripts/generate_types.py --check
	python3 scripts/gen_tool_schemas.py --check
	node --test clients/js/test/*.test.js clients/vscode/test/*.test.mjs clients/web/test/*.test.mjs

## Regenerates everything derived from schema/openrpc.json (the one authored source of the contract).
generate:
	python3 scripts/gen_protocol_docs.py
	node clients/js/scripts/generate-types.mjs
	python3 clients/python/scripts/generate_types.py
	python3 scripts/gen_tool_schemas.py

## Each libFuzzer target for FUZZ_SECONDS (default 60) with AddressSanitizer (Tests/Fuzz/README.md).
fuzz:
	bash Tests/Fuzz/run.sh

## Runs every benchmark and rewrites Benchmarks/README.md (installs its baselines first: rg, rsync…).
bench:
	bash scripts/setup.sh
	bash scripts/setup.sh --bench
	bash Benchmarks/run.sh

clean:
	rm -rf .build Benchmarks/out
