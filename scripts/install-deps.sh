#!/usr/bin/env bash
# Installs the Debian (bookworm, main) packages etna builds and tests with.
# Idempotent: when every package is already present it only runs dpkg-query.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang-format
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev
  libboost-dev libssl-dev
  clang-14 libclang-rt-14-dev
  python3-kubernetes
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
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
