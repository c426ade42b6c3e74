# syntax=docker/dockerfile:1
#
# One image recipe for every app of the monorepo. The app is chosen at build time with
# `--build-arg APP=<app>` (it becomes the default of `ENV APP`) and can be switched at run time
# with `-e APP=<app>`, since every image holds the whole compiled dist/ tree:
#
#   docker build --build-arg APP=profile -t platform-profile .
#   docker run --rm -p 3040:3040 -e DATABASE_URL=... -e KAFKA_BROKERS=... platform-profile
#
# apps: gateway | messaging | consent | media | profile | webhook-dispatcher | chat-sim | console
ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# build: all dependencies, compile apps/ and libs/ to dist/ (tsc -p tsconfig.build.json)
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true
COPY package.json package-lock.json ./
# --ignore-scripts: the only packages with install scripts are dev tools (the `node` package would
# download a second Node binary; nx and @parcel/watcher postinstalls); tsc needs none of them.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY libs ./libs
COPY apps ./apps
# The build also writes the OpenAPI document and puts the reference page's renderer in dist/apps/gateway/assets.
COPY tools/build ./tools/build
RUN npm run build \
 && test -f dist/apps/gateway/src/main.js \
 && test -f dist/apps/gateway/assets/redoc.standalone.js

# ---------------------------------------------------------------------------------------------
# prod-deps: runtime dependencies only
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# ---------------------------------------------------------------------------------------------
# runtime: production dependencies + compiled code, non-root. Files stay owned by root (read-only
# for the `node` user); the app writes nothing to disk.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG APP=gateway
# BIND_HOST: the apps listen on loopback unless told; in a container that would reach nobody.
ENV NODE_ENV=production \
    BIND_HOST=0.0.0.0 \
    APP=${APP}
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
# package.json's "imports" map the #platform/* specifiers of dist/ onto dist/libs (Node reads them).
COPY package.json ./
COPY --from=build /app/dist/apps ./dist/apps
COPY --from=build /app/dist/libs ./dist/libs
# The launcher every start path shares: the apps' heap and malloc settings (docs/adr/0207).
COPY deploy/start-app.sh ./deploy/
USER node
# Public ports of the apps (gateway 3000 + admin 3001, messaging 3010, consent 3020, media 3030,
# profile 3040, webhook-dispatcher 3050, chat-sim 3060, console 3002 + internal 3003); each app listens on $PORT.
EXPOSE 3000 3001 3002 3003 3010 3020 3030 3040 3050 3060
STOPSIGNAL SIGTERM
# `exec` (here and in the launcher) so node is PID 1's direct replacement and receives SIGTERM
# (graceful shutdown in runMain).
CMD ["/bin/sh", "-c", "exec /bin/sh deploy/start-app.sh node \"dist/apps/${APP}/src/main.js\""]
