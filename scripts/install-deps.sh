#!/usr/bin/env bash
# Installs the Debian (bookworm, main) packages etna builds and tests with.
# Idempotent: when every package is already present it only runs dpkg-query.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev
  libboost-dev libssl-dev zlib1g-dev
  clang-14 libclang-rt-14-dev
  python3-kubernetes python3-yaml curl procps prometheus zsh tmux
  tzdata  # the IANA zone files Queue timePolicies are judged in (src/common/time_zone.h)
  # The container runtime (docs/agent.md) and its tests: an OCI runtime, image tools, a local
  # registry and a static busybox to build a test image from.
  runc skopeo umoci docker-registry busybox-static
  # The etcd store (docs/ha.md): etcd's v3 gRPC API through Debian's gRPC, and etcd itself for
  # the tests and `etna server --etcd-servers`.
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc etcd-server etcd-client
  # Fault tests (issue 17): network namespaces and veth pairs (e2e_partition), a small tmpfs
  # mounted under the server (e2e_disk_full), an agent whose wall clock steps (e2e_clock).
  iproute2 mount faketime
  # The web dashboard: its end-to-end tests (tests/e2e/browser.py) drive headless Chromium over
  # the DevTools protocol (and a font so its screenshots render text); node runs its model's
  # unit tests. The same checks also run in headless Firefox over Marionette
  # (tests/e2e/firefox.py).
  chromium fonts-dejavu-core nodejs
  firefox-esr
)
# kubectl: keep one that is installed (e.g. google-cloud-cli's dispatcher); else Debian's 1.20.
if ! command -v kubectl >/dev/null 2>&1; then
  PACKAGES+=(kubernetes-client)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# Debian's kubectl 1.20 (kubernetes-client) unpacked beside a newer installed kubectl, so the
# end-to-end tests also run the oldest client we support. Its package cannot be installed next
# to google-cloud-cli's kubectl (both own /usr/bin/kubectl), hence download and unpack.
KUBECTL_120_DIR=/opt/etna/kubectl-1.20
if [ ! -x "$KUBECTL_120_DIR/usr/bin/kubectl" ] && ! dpkg-query -W kubernetes-client >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  if (cd "$tmp" && apt-get download kubernetes-client >/dev/null 2>&1); then
    $SUDO mkdir -p "$KUBECTL_120_DIR"
    $SUDO dpkg-deb -x "$tmp"/kubernetes-client_*.deb "$KUBECTL_120_DIR"
  else
    echo "install-deps: could not download kubernetes-client; kubectl 1.20 tests are skipped" >&2
  fi
  rm -rf "$tmp"
fi
