#!/bin/sh
# Starts one app with the runtime settings every start path shares: `npm start`, the test and bench
# stacks (tools/dev/stack.mjs, libs/testing) and the image (Dockerfile, so docker-compose and the
# Kubernetes manifests too). Why these values: docs/adr/0207-apps-run-with-a-bounded-heap.md.
#
#   deploy/start-app.sh NODE [NODE_FLAGS...] dist/apps/<app>/src/main.js
#
# Flags given after NODE come after these and win (V8 keeps the last value of a flag).
set -e
node="$1"
shift
# glibc gives each thread that allocates an arena of its own, up to 8 per core of the machine (not
# of the container); two keep V8's and libuv's threads from each holding freed memory apart.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
# V8 sizes its heap from the memory Node finds: a container's limit where one is set, else the
# machine's. On a machine of 24 GiB: semi-spaces of 64 MB (a new space of 128 MB) and an old space
# of 4 GB that grows to four times what is alive before a full collection, while the apps keep a
# few tens of MB alive. A 16 MB semi-space costs no measurable
# throughput. The old space is capped, and grows to three times what is alive: V8's own factor for
# so small a heap (1.3) made full collections a noticeable part of messaging's cost per send.
exec "$node" --max-semi-space-size=16 --max-old-space-size=160 --heap-growing-percent=200 "$@"
