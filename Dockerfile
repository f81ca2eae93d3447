# syntax=docker/dockerfile:1
# TableWatch: one image for every service, the subcommand chosen at run time
# (`docker run IMAGE worker --config ...`, `... serve-ingest`, `... db migrate`).
#
# Stage 1 builds the wheel and its dependencies into a virtual environment and compiles
# the rules engine with mypyc (`tablewatch native build`, into site-packages/.native:
# tablewatch/native.py loads it only while the sources are the ones it was built from).
# Stage 2 is the slim runtime: the same Python (the compiled modules are for its ABI),
# no compiler, no build tools, a user of its own.
#
# Both bases are pinned by tag; pin them by digest too at your site
# (`docker buildx imagetools inspect python:3.11.14-slim-bookworm`), and keep the two
# stages on the same Python version.
ARG PYTHON_VERSION=3.11.14

FROM python:${PYTHON_VERSION}-bookworm AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
RUN python -m venv /opt/tablewatch
ENV PATH=/opt/tablewatch/bin:$PATH
WORKDIR /src
# the dependencies first, so that a change of the sources alone reuses their layer
COPY pyproject.toml README.md ./
RUN mkdir -p tablewatch && touch tablewatch/__init__.py \
    && pip install . \
    && pip uninstall -y tablewatch
COPY tablewatch ./tablewatch
# mypy brings mypyc; it compiles the rules and is left behind with this stage
RUN pip install --no-deps . \
    && pip install mypy==2.4.1 types-pyyaml==6.0.12.20261122 \
    && tablewatch native build \
    && tablewatch native status \
    && pip uninstall -y mypy types-pyyaml

FROM python:${PYTHON_VERSION}-slim-bookworm AS runtime
LABEL org.opencontainers.image.title="tablewatch" \
      org.opencontainers.image.description="Surveillance and audit of casino table games"
ENV PATH=/opt/tablewatch/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TABLEWATCH_WORKER_DIR=/var/lib/tablewatch/worker
# record/: where the Compose stack mounts the workers' outside record (a fresh named
# volume takes this directory's owner, so the user can append to it)
# DejaVu Sans: the font the shift report's PDF embeds (tablewatch/reports/shift_pdf.py)
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 tablewatch \
    && useradd --system --uid 10001 --gid tablewatch --home-dir /var/lib/tablewatch \
       --shell /usr/sbin/nologin tablewatch \
    && mkdir -p /var/lib/tablewatch /var/lib/tablewatch/record /etc/tablewatch \
    && chown tablewatch:tablewatch /var/lib/tablewatch /var/lib/tablewatch/record
COPY --from=build /opt/tablewatch /opt/tablewatch
WORKDIR /var/lib/tablewatch
USER 10001:10001
# the worker's web port (health, metrics, queries) and the ingest endpoint's
EXPOSE 6066 8077
# Each service is checked on its own port (the worker 6066, ingest 8077, the API 8090):
# the Compose file gives each its URL, Kubernetes probes /health; a one-shot
# (`db migrate`) has none. Without TABLEWATCH_HEALTH_URL the check passes.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["sh", "-c", "[ -z \"$TABLEWATCH_HEALTH_URL\" ] || python -m tablewatch.healthcheck \"$TABLEWATCH_HEALTH_URL\""]
ENTRYPOINT ["tablewatch"]
CMD ["--help"]
