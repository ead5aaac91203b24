# syntax=docker/dockerfile:1.7
# The svc API (@svc/server, apps/api): Express app, admin API, OIDC issuers and the `svc` CLI.
#
#   docker build -f docker/api.Dockerfile -t svc-api .        (from the repository root)
#
# Run it with NODE_ENV=production (set below), SVC_ADMIN_TOKEN and SVC_MASTER_KEY; every variable
# is in docs/operating.md. scripts/build-image-steps.mjs replays this file's steps without Docker:
# every RUN except those marked "image-only", then CMD and HEALTHCHECK against the result.

ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
# image-only: better-sqlite3 compiles from source when no prebuilt binary fits (bcrypt ships its own).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
# image-only: pnpm from npm; corepack cannot verify pnpm's signatures everywhere.
RUN npm install -g pnpm@12.21.0
WORKDIR /src
# The lockfile alone fills pnpm's store, so this layer stays cached until a dependency changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
# pnpm applies the dependency patches (patches/, named in pnpm-workspace.yaml) as it fetches.
COPY patches ./patches/
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm fetch --prefer-offline
COPY . .
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm install --frozen-lockfile --prefer-offline
# The published packages' build (dist/: ES modules, CommonJS, types), and manifests pointing at it.
RUN node scripts/build-packages.mjs
RUN node scripts/build-runtime.mjs manifests
# Only @svc/server, the @svc packages it depends on (as their tarballs hold them) and their
# production dependencies, at the lockfile's versions.
RUN --mount=type=cache,id=svc-pnpm-store,target=/root/.local/share/pnpm/store pnpm deploy --filter @svc/server --prod --prefer-offline ../out
# Source maps: third-party ones go, the service's lose their sources (scripts/build-runtime.mjs says why).
RUN node scripts/build-runtime.mjs maps ../out
# Native addons: no C sources, build leftovers or other platforms' binaries (scripts/build-runtime.mjs).
RUN node scripts/build-runtime.mjs natives ../out

FROM ${NODE_IMAGE} AS runtime
# image-only: jemalloc, the server's malloc (below), at one path on every architecture.
RUN apt-get update && apt-get install -y --no-install-recommends libjemalloc2 && rm -rf /var/lib/apt/lists/* \
    && ln -s "$(dpkg -L libjemalloc2 | grep '/libjemalloc\.so\.2$')" /usr/local/lib/libjemalloc.so.2
ENV NODE_ENV=production \
    PORT=3000 \
    SVC_DATA_DIR=/data
# jemalloc in place of glibc's malloc: what a burst of load allocated outside V8's heap goes back
# to the system within seconds of being freed (a background thread purges it, also at rest),
# where glibc keeps what a heap cannot trim from its top. Two arenas: more hold more idle memory.
# A minute after the bench's load the server held a median 1.01x its idle RSS over six runs, against
# 1.17x with glibc's malloc and its thresholds fixed (docs/operating.md, "Images and the compose stack").
ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    MALLOC_CONF=background_thread:true,narenas:2,dirty_decay_ms:1000
WORKDIR /app
# Root-owned and read-only for the service: it can write only to its data folder.
COPY --from=build /out ./
# image-only: the data folder (SQLite file, file mailbox) belongs to the unprivileged user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# `svc start` stops accepting on SIGTERM, lets requests finish (10 s at most), closes storage, exits 0.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself. The CLI: `docker run --rm svc-api node dist/cli.js help`.
# Source maps are opt-in (NODE_OPTIONS=--enable-source-maps): Node keeps every loaded module's map
# in memory, and the built code is not minified, so its stack frames read without them.
CMD ["node", "dist/cli.js", "start"]
