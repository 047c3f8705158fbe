#!/usr/bin/env bash
# End-to-end check of the container image (Dockerfile, docs/deployment.md), on a machine without a
# Docker daemon or an image registry: podman, with stand-in base images made by
# ../shared/tools/oci-images.sh (OCI_IMAGES=<path> to use another copy). Needs root, and `npm ci`
# done (a fake TMDB runs on the host, with tsx); takes one to five minutes (compiling SQLite, when the
# build cache does not have it).
#
#   scripts/container-check.sh
#
# Builds the unchanged Dockerfile and checks that the image has no build tools, sources or dev
# dependencies; runs it on a fresh volume as a non-root user; its HEALTHCHECK passes; the CLI in the
# container creates a user and a token; the API adds a movie (from a fake TMDB), records a play and
# lists it; a request still arriving when SIGTERM comes is answered, and the server exits 0
# within seconds; a new container on the same volume finds the user, the token and the play, runs the
# CLI again, reads the TMDB key from a secret file (TMDB_API_KEY_FILE), and also stops cleanly on
# SIGTERM. Prints what it measured.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
APP_DIR=$PWD
export WORK=${WORK:-/tmp/oci-work}
HOST_PORT=${CONTAINER_CHECK_PORT:-18910}
STOP_LIMIT=${CONTAINER_CHECK_STOP_SECONDS:-10}
IMAGE=localhost/cinelog:check
NAME=cinelog-check-$$
VOLUME=cinelog-check-$$
BASE=http://127.0.0.1:$HOST_PORT
FAKE_TMDB_KEY=fakev3key0000cinelog1111test2222 # FAKE_TMDB_API_KEY in test/fake-tmdb.ts
MOVIE=710001                                   # the first movie of the fake TMDB's catalogue

say() { printf 'container-check: %s\n' "$*"; }
fail() {
  printf 'container-check: FAILED: %s\n' "$*" >&2
  podman logs --tail 30 "$NAME" 2>&1 | sed 's/^/  | /' >&2 || true
  exit 1
}

[ -d node_modules/tsx ] || fail "run npm ci first (the fake TMDB needs the dev dependencies)"
OCI_IMAGES=${OCI_IMAGES:-$APP_DIR/../shared/tools/oci-images.sh}
[ -f "$OCI_IMAGES" ] || OCI_IMAGES=/work/shared/tools/oci-images.sh
[ -f "$OCI_IMAGES" ] || fail "oci-images.sh not found (set OCI_IMAGES)"

# Podman, runc and the stand-in base images (node:24-bookworm-slim, debian:bookworm-slim); the tool
# also writes the storage and runtime configuration under $WORK that every podman call here uses.
say "base images ($OCI_IMAGES)"
bash "$OCI_IMAGES" >"$WORK.base.log" 2>&1 || { cat "$WORK.base.log" >&2; fail "oci-images.sh"; }
export CONTAINERS_CONF=$WORK/containers.conf CONTAINERS_STORAGE_CONF=$WORK/storage.conf TMPDIR=$WORK/tmp

fake_pid=
cleanup() {
  podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
  podman volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# The Docker image format keeps the HEALTHCHECK (the OCI format has no place for it).
say "building the image"
started=$SECONDS
podman build -q --format docker --pull=never -t "$IMAGE" . >"$WORK.build.log" 2>&1 ||
  { tail -n 40 "$WORK.build.log" >&2; fail "podman build"; }
build_seconds=$((SECONDS - started))
image_mb=$(($(podman image inspect --format '{{.Size}}' "$IMAGE") / 1000000))
# No dev dependency, and no folder a pruned one left empty (@biomejs/biome left @biomejs).
dev_paths=$(node -e 'for (const n of Object.keys(require("./package.json").devDependencies ?? {})) console.log("/app/node_modules/" + n)' | tr '\n' ' ')
podman run --rm --entrypoint sh "$IMAGE" -c "
  for path in $dev_paths; do [ ! -e \"\$path\" ] || { echo \"\$path\"; exit 1; }; done
  empty=\$(find /app/node_modules -mindepth 1 -maxdepth 1 -type d -empty)
  [ -z \"\$empty\" ] || { echo \"\$empty\"; exit 1; }" ||
  fail "the runtime image holds a dev dependency or an empty folder of one (above)"
podman run --rm --entrypoint sh "$IMAGE" -c '
  for tool in gcc g++ make python3; do command -v "$tool" && exit 1; done
  [ ! -e /app/node_modules/typescript ] && [ ! -e /app/node_modules/vitest ] || exit 1
  [ -z "$(find /app/src /app/node_modules/better-sqlite3 -name "*.ts" -o -name "*.cpp" | head -n 1)" ] || exit 1
  [ -f /app/dist/main.js ] && [ -d /app/src/modules/web/views ]' >/dev/null 2>&1 ||
  fail "the runtime image holds build tools, sources or dev dependencies, or misses the server"

# A fake TMDB on the host, reached from the container through the host's address.
exec 3< <(FAKE_TMDB_HOST=0.0.0.0 exec node --import tsx test/container/fake-tmdb-server.ts)
fake_pid=$!
read -r -t 30 fake_port <&3 || fail "the fake TMDB did not start"
podman volume create "$VOLUME" >/dev/null

run() { # [--key-file]: the TMDB key as a secret file (TMDB_API_KEY_FILE) instead of TMDB_API_KEY
  local key=(-e TMDB_API_KEY="$FAKE_TMDB_KEY")
  if [ "${1:-}" = --key-file ]; then
    printf '%s\n' "$FAKE_TMDB_KEY" >"$WORK/tmdb_api_key" && chmod 644 "$WORK/tmdb_api_key"
    key=(-v "$WORK/tmdb_api_key:/run/secrets/tmdb_api_key:ro" -e TMDB_API_KEY_FILE=/run/secrets/tmdb_api_key)
  fi
  podman run -d --name "$NAME" -p "127.0.0.1:$HOST_PORT:8080" -v "$VOLUME:/data" \
    -e APP_URL="$BASE" "${key[@]}" \
    -e TMDB_BASE_URL="http://host.containers.internal:$fake_port/3" \
    -e TMDB_IMAGE_BASE_URL="http://host.containers.internal:$fake_port/t/p" \
    "$IMAGE" >/dev/null 2>"$WORK.run.log" || { cat "$WORK.run.log" >&2; fail "podman run"; }
  # (Without systemd, podman says it cannot schedule the health checks: `podman healthcheck run` below.)
  for _ in $(seq 1 60); do
    if curl -fsS -m 2 "$BASE/healthz" >/dev/null 2>&1; then return 0; fi
    [ "$(podman inspect --format '{{.State.Running}}' "$NAME")" = true ] || fail "the container exited"
    sleep 0.5
  done
  fail "no answer on /healthz"
}

api() { # METHOD PATH [BODY]: prints the body, fails on a status other than 2xx
  curl -fsS -m 10 -X "$1" -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    ${3:+--data "$3"} "$BASE/api$2"
}

# SIGTERM while a request's body is still arriving: that request is answered (204), and the
# container exits 0 within STOP_LIMIT seconds. Sets stop_ms: milliseconds from the signal to the
# exit, about (300 ms of them the request still arriving).
stop_with_sigterm() {
  local answer
  answer=$(NAME=$NAME BASE=$BASE TOKEN=$TOKEN SERVICE_ID=$SERVICE_ID node -e '
    const { request } = require("node:http");
    const { execFileSync } = require("node:child_process");
    const body = JSON.stringify([{ serviceId: Number(process.env.SERVICE_ID), watchedAt: "2024-06-02", plays: 1 }]);
    const req = request(process.env.BASE + "/api/users/alice/history/movies", {
      method: "POST",
      headers: { authorization: "Bearer " + process.env.TOKEN, "content-type": "application/json",
                 "content-length": Buffer.byteLength(body) },
    }, (res) => { res.resume(); console.log(res.statusCode); });
    req.on("error", (e) => { console.log("error " + e.message); });
    req.write(body.slice(0, 5));
    setTimeout(() => {
      execFileSync("podman", ["kill", "--signal", "TERM", process.env.NAME]);
      setTimeout(() => req.end(body.slice(5)), 300);
    }, 200);')
  # The signal went 300 ms before the request's end; the wait measures from the answer on.
  local answered
  answered=$(date +%s%N)
  timeout "$STOP_LIMIT" podman wait "$NAME" >/dev/null || fail "still running ${STOP_LIMIT}s after SIGTERM"
  stop_ms=$(( ($(date +%s%N) - answered) / 1000000 + 300 ))
  [ "$answer" = 204 ] || fail "the request in flight at SIGTERM got: $answer"
  local code
  code=$(podman inspect --format '{{.State.ExitCode}}' "$NAME")
  [ "$code" = 0 ] || fail "exit code $code after SIGTERM"
  # (grep -q on a pipe would end it early, and pipefail count that as a failure: read it whole.)
  local log
  log=$(podman logs "$NAME" 2>&1)
  grep -q 'shutting down' <<<"$log" || fail "no shutdown in the log"
  if grep -q 'Assertion failed' <<<"$log"; then fail "native assertion at exit"; fi
}

say "first start, on an empty volume"
run
podman healthcheck run "$NAME" >/dev/null 2>&1 || fail "HEALTHCHECK"
[ "$(podman exec "$NAME" id -u)" != 0 ] || fail "runs as root"
podman exec "$NAME" cinelog user create --name alice --email alice@example.com \
  --password 'container check passphrase' >/dev/null 2>&1 || fail "cinelog user create"
TOKEN=$(podman exec "$NAME" cinelog token create --user alice --name check --expires 30 2>/dev/null | tail -n 1)
[ -n "$TOKEN" ] || fail "cinelog token create"
whoami=$(api GET /authentication/token) || fail "GET /authentication/token"
grep -q '"name":"alice"' <<<"$whoami" || fail "the token is not accepted: $whoami"
added=$(api POST /movies/add "{\"providerId\":$MOVIE}") || fail "POST /movies/add"
SERVICE_ID=$(sed -nE 's/.*"serviceId":([0-9]+).*/\1/p' <<<"$added")
[ -n "$SERVICE_ID" ] || fail "POST /movies/add answered $added"
api POST /users/alice/history/movies "[{\"serviceId\":$SERVICE_ID,\"watchedAt\":\"2024-05-01\",\"plays\":1}]" \
  >/dev/null || fail "POST history"
history=$(api GET /users/alice/history/movies) || fail "GET history"
grep -q '"2024-05-01' <<<"$history" || fail "the play is not in the history: $history"
# The web app: its templates and assets are in the image (the sign-in page renders, the stylesheet loads).
login=$(curl -fsS -m 10 "$BASE/login") || fail "GET /login"
grep -q 'Sign in' <<<"$login" || fail "the sign-in page did not render"
curl -fsS -m 10 -o /dev/null "$BASE/assets/app.css" || fail "GET /assets/app.css"
stop_with_sigterm
first_stop=$stop_ms
podman rm "$NAME" >/dev/null 2>&1

say "second start: a new container on the same volume, the TMDB key from a secret file"
run --key-file
history=$(api GET /users/alice/history/movies) || fail "GET history after the restart"
grep -q '"2024-05-01' <<<"$history" || fail "the play recorded before the restart is gone"
grep -q '"2024-06-02' <<<"$history" || fail "the play answered during the shutdown is gone"
readded=$(api POST /movies/add "{\"providerId\":$MOVIE}") || fail "POST /movies/add with TMDB_API_KEY_FILE"
[ "$readded" = "$added" ] || fail "the movie came back as $readded, not $added"
podman exec "$NAME" cinelog user create --name bob --email bob@example.com \
  --password 'container check passphrase' >/dev/null 2>&1 || fail "cinelog user create after the restart"
files=$(podman exec "$NAME" ls /data) || fail "ls /data"
grep -qx 'cinelog.sqlite' <<<"$files" || fail "no database in /data: $files"
stop_with_sigterm
second_stop=$stop_ms

say "OK: image ${image_mb} MB, built in ${build_seconds}s; data kept across a restart;" \
  "stopped by SIGTERM in ${first_stop} ms and ${second_stop} ms, exit code 0"
