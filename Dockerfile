# syntax=docker/dockerfile:1
#
# The servebench harness image (docs/harness-image.md): the checkout at /opt/servebench with its
# production dependencies and tsx (the CLI's TypeScript loader), node on PATH, running as the
# node image's non-root user (uid 1000). `servebench plan --format kubernetes` Jobs copy its
# checkout and node into each pod (init container "harness"), where the engine's own image runs
# them; CPU jobs run in this image itself.
#
#   docker build -t servebench .                           # the harness (GPU fleets): checkout + node
#   docker build --build-arg LLAMACPP=1 -t servebench .    # + git, cmake, g++ and llama.cpp's server
#                                                          #   built from node-llama-cpp's bundled source
#
# LLAMACPP=1 is what the Kubernetes CPU lane needs: its Jobs build llama.cpp releases in this image
# (init container "build") and start from the build made here. Runs with --launcher process only:
# there is no Docker daemon in a pod or in this image.

# Debian (glibc), not Alpine: the Jobs copy this node binary into the engines' images (vLLM,
# SGLang: Ubuntu, glibc), where a musl build would not start. Pinned by exact version; pin the
# digest too where it can be checked: --build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:…
ARG NODE_IMAGE=node:24.21.0-bookworm-slim
ARG LLAMACPP=0

# ---- production dependencies, plus tsx -------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /opt/servebench
COPY package.json package-lock.json ./
# --omit=dev: no test, site-check or type-check tooling. tsx is a devDependency, but the CLI runs
# under it (bin/servebench.mjs, and the Jobs' `node --import tsx harness/cli.ts`): it is installed
# explicitly, at the version package-lock.json locks. No install scripts: the platform binaries
# (esbuild, DuckDB, node-llama-cpp) come as packages. @duckdb/duckdb-wasm (~140 MB) is the site's
# in-browser DuckDB; the harness never loads it.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && TSX_VERSION="$(node -p "require('./package-lock.json').packages['node_modules/tsx'].version")" \
 && npm install --no-save --omit=dev --ignore-scripts --no-audit --no-fund "tsx@${TSX_VERSION}" \
 && test "$(node -p "require('tsx/package.json').version")" = "${TSX_VERSION}" \
 && rm -rf node_modules/@duckdb/duckdb-wasm \
 && npm cache clean --force

# ---- the harness ------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS harness
ARG LLAMACPP
# The llama.cpp toolchain, only with LLAMACPP=1: Debian bookworm's own versions (the base is pinned,
# and with it the archive it was built from).
# hadolint ignore=DL3008
RUN if [ "${LLAMACPP}" = "1" ]; then \
      apt-get update \
      && apt-get install -y --no-install-recommends ca-certificates cmake g++ git make \
      && rm -rf /var/lib/apt/lists/*; \
    elif [ "${LLAMACPP}" != "0" ]; then echo "LLAMACPP is 0 or 1, not ${LLAMACPP}" >&2; exit 1; fi
ARG SOURCE=https://github.com/servebench/servebench
ARG REVISION=unknown
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="servebench harness" \
      org.opencontainers.image.description="servebench's checkout, production dependencies, tsx and node: the harness of its Kubernetes Jobs" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      dev.servebench.llamacpp="${LLAMACPP}"
# The image's own cache (builds, models, tokenizers): the Kubernetes build init container starts
# from the llama.cpp builds here (harness/pipeline/plan/kubernetes.ts, IMAGE_CACHE_DIR).
ENV SERVEBENCH_CACHE=/opt/servebench-cache
WORKDIR /opt/servebench
COPY --from=deps /opt/servebench/node_modules ./node_modules
# What .dockerignore lets in: bin/, harness/, engines/, workloads/, fleet/, the package files.
COPY . .
# No .git in the image: the commit it was built from is written next to the checkout. `servebench`
# is put on PATH. The checkout stays root's (read-only to the harness), but for results/ and the
# cache, the node user's for a plain `docker run`, and the package bin: `npx servebench` links the
# package into npm's cache and chmods its bin, which only the file's owner may.
RUN printf '%s\n' "${REVISION}" > .image-revision \
 && ln -s /opt/servebench/bin/servebench.mjs /usr/local/bin/servebench \
 && mkdir -p results "${SERVEBENCH_CACHE}" \
 && chown 1000:1000 results "${SERVEBENCH_CACHE}" bin/servebench.mjs
# The node image's user "node", by number so that Kubernetes can check runAsNonRoot.
USER 1000:1000
# The installed node-llama-cpp's llama.cpp, built as the user that will read it; then the CLI starts.
RUN if [ "${LLAMACPP}" = "1" ]; then servebench llamacpp build --no-progress && servebench llamacpp list; fi \
 && servebench --help > /dev/null \
 && npx --no-install servebench --help > /dev/null
CMD ["servebench", "--help"]
