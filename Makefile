# hallmon: the two commands are `make demo` and `make test`; both install what they need first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.hallmon-installed
LOCAL := deploy/local
PYTEST_ARGS ?=

.PHONY: help install system-deps kafka-jars services services-stop services-status test demo lint format

help:
	@echo "make demo            install, start Kafka + Redis, run hallmon end to end on them"
	@echo "make test            install, start Kafka + Redis, run all tests (PYTEST_ARGS=... to narrow)"
	@echo "make install         system packages, Kafka jars, $(VENV) with 'pip install -e .[dev]'"
	@echo "make services        start local Kafka (127.0.0.1:9092) and Redis (127.0.0.1:6379)"
	@echo "make services-stop   stop them;  make services-status  check them"
	@echo "make lint            ruff check + mypy;  make format  ruff format"

install: system-deps kafka-jars $(STAMP)

system-deps:
	@$(LOCAL)/system-deps.sh

kafka-jars:
	@$(LOCAL)/kafka.sh fetch

# Re-installs when pyproject.toml changes (new dependencies), otherwise skips pip entirely.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $@

services: system-deps kafka-jars
	@$(LOCAL)/services.sh start

services-stop:
	@$(LOCAL)/services.sh stop

services-status:
	@$(LOCAL)/services.sh status

test: install services
	$(PY) -m pytest $(PYTEST_ARGS)

# The end-to-end demo: topics, a worker, a sample support bot's sessions, verdicts and fatigue,
# then the dashboard (hallmon serve) until Ctrl-C.
demo: install services
	$(VENV)/bin/hallmon demo --serve

# mypy cannot follow setuptools' package-dir mapping, so it checks a throwaway tree outside the
# repository that lays the folders out as they install (hallmon/schemas, hallmon/workers, ...).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	@tree=$$(mktemp -d) && trap 'rm -rf "$$tree"' EXIT && mkdir "$$tree/hallmon" && \
	  for p in hallmon/*; do ln -s "$(CURDIR)/$$p" "$$tree/hallmon/"; done && \
	  for d in schemas topology workers onnx_models; do ln -s "$(CURDIR)/$$d" "$$tree/hallmon/$$d"; done && \
	  cd "$$tree" && $(CURDIR)/$(VENV)/bin/mypy --config-file $(CURDIR)/pyproject.toml -p hallmon

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
