# gftpwb: `make demo` and `make test` do all the set-up on a fresh Debian machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
GFTPWB := $(BIN)/gftpwb
# The real tgftp 0.7.0 / tgftp_log 0.2.0 for the differential suite tests/compat (not part of the project).
TGFTP_REFERENCE ?= $(wildcard $(CURDIR)/../shared/reference/tgftp-0.7.0)

.PHONY: demo test test-busy lint schema shell-extras install-shell-extras deps deps-test lab-up lab-down bench clean

demo: deps $(VENV)/.installed install-shell-extras
	$(GFTPWB) lab up
	$(GFTPWB) run scenarios/quickstart.yaml

test: deps-test $(VENV)/.installed-test
	$(GFTPWB) lab up
	$(BIN)/ruff check .
	@$(if $(TGFTP_REFERENCE),,echo "tests/compat not run: no tgftp 0.7.0 reference at ../shared/reference/tgftp-0.7.0 (set TGFTP_REFERENCE=DIR)")
	GFTPWB_FORBID_SKIPS=1 $(if $(TGFTP_REFERENCE),GFTPWB_TGFTP_REFERENCE=$(abspath $(TGFTP_REFERENCE))) $(BIN)/python -m pytest

# The suite as a shared build machine runs it: both cores kept busy by two CPU-bound processes beside it.
test-busy:
	@$(PYTHON) -c 'while True: pass' & one=$$!; $(PYTHON) -c 'while True: pass' & two=$$!; \
	trap 'kill $$one $$two' EXIT; $(MAKE) test

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

# Regenerate the committed schema from the key tables in gftpwb/core/dsl/schema.py.
schema: $(VENV)/.installed
	$(BIN)/python -c 'from gftpwb.core.dsl.schema import render_schema; open("schemas/scenario.schema.json", "w").write(render_schema())'

# Regenerate the completion scripts and the man page in share/ from the argument parser.
shell-extras: $(VENV)/.installed-test
	$(BIN)/python scripts/shell_extras.py write

# Put them where bash-completion, zsh, fish and man look (/usr/local/share as root, else ~/.local/share).
install-shell-extras: $(VENV)/.installed
	$(BIN)/python scripts/shell_extras.py install

deps:
	scripts/install-deps.sh demo

deps-test:
	scripts/install-deps.sh test

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(VENV)/bin/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/bin/python pyproject.toml
	$(BIN)/pip install -q -e '.[test]'
	touch $@ $(VENV)/.installed

lab-up: $(VENV)/.installed
	$(GFTPWB) lab up

lab-down: $(VENV)/.installed
	$(GFTPWB) lab down

clean:
	-$(GFTPWB) lab down
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
