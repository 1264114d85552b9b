# The two commands a newcomer needs: `make run` and `make test`.

VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The browser tests' npm tools (axe-core), installed from package-lock.json.
NODE_STAMP := node_modules/.installed
# The PostgreSQL run of the suite; pytest-django creates test_railmail (one per worker).
PG_TEST_URL ?= postgres://postgres@127.0.0.1:5432/railmail
REDIS_TEST_URL ?= redis://127.0.0.1:6379/15

.PHONY: setup run test lint test-sqlite test-postgres services system-deps messages catalogues

# The engine and bots: setup.py compiles some of their modules in place, with the types of
# the rest, so a change to any of them builds those again.
ENGINE := $(wildcard games/rules/*.py games/bots/*.py)

# Reinstall only when the dependencies, or the compiled modules' sources, may have changed.
$(STAMP): pyproject.toml setup.py $(ENGINE)
	scripts/install-system-deps build
	test -x $(BIN)/python || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $(NODE_STAMP)

# Replies by email work locally too: emails answer to reply+...@$(LOCAL_INBOUND_DOMAIN),
# and the built-in receiver takes them by SMTP on 127.0.0.1:$(LOCAL_RECEIVER_PORT).
LOCAL_INBOUND_DOMAIN ?= reply.localhost
LOCAL_RECEIVER_PORT ?= 8025
run: export RAILMAIL_INBOUND_DOMAIN ?= $(LOCAL_INBOUND_DOMAIN)
run: export RAILMAIL_RECEIVER_PORT ?= $(LOCAL_RECEIVER_PORT)
run: setup
	$(BIN)/python manage.py migrate --no-input
	$(BIN)/python manage.py demo
	@# The periodic jobs (deadlines, reminders, digests, outbox sweep) and the receiver of
	@# replies run beside the server and stop with it; emails are at
	@# http://127.0.0.1:8000/mail/mailbox/, and the README says how to reply to one.
	$(BIN)/python manage.py run_periodic & periodic=$$!; \
	$(BIN)/python manage.py receive_mail & receiver=$$!; \
	trap 'kill $$periodic $$receiver 2>/dev/null; wait $$periodic $$receiver' EXIT INT TERM; \
	$(BIN)/python manage.py runserver 127.0.0.1:8000

services:
	scripts/services-up

# Debian packages the tests need (Chromium for the browser tests); a no-op once there.
system-deps:
	scripts/install-system-deps

# The translation catalogues (pbem/locale): `make messages` adds new strings to the .po
# files for translators; `make catalogues` compiles them into the committed .mo files.
MESSAGES_IGNORE := --ignore=.venv --ignore=node_modules --ignore=tests --ignore=benchmarks \
	--ignore=staticfiles --ignore=build --ignore='*.egg-info'
messages: setup
	$(BIN)/python manage.py makemessages --locale=de --no-obsolete --add-location=file $(MESSAGES_IGNORE)

catalogues: setup
	$(BIN)/python manage.py compilemessages --locale=de --ignore=.venv --ignore=node_modules

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test-sqlite: setup
	env -u DATABASE_URL -u CELERY_BROKER_URL $(BIN)/pytest -n auto --dist loadgroup

test-postgres: setup services $(NODE_STAMP)
	@if scripts/services-up --check; then \
		DATABASE_URL=$(PG_TEST_URL) REDIS_TEST_URL=$(REDIS_TEST_URL) $(BIN)/pytest -n auto --dist loadgroup; \
	elif [ "$${CI:-}" = true ]; then \
		echo "PostgreSQL or Redis is not running: CI needs both." >&2; exit 1; \
	else \
		echo "PostgreSQL or Redis is not running here: skipped the PostgreSQL run."; \
	fi

test: lint system-deps test-sqlite test-postgres
