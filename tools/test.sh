#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine or a developer's: installs what it needs (when
# run as root, or through sudo), then checks formatting, lints, the committed guest ELFs against
# their sources, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(pkg-config libudev-dev libasound2-dev gcc-mipsel-linux-gnu binutils-mipsel-linux-gnu)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "== cargo fmt --check" >&2
cargo fmt --all -- --check

echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings

if command -v mipsel-linux-gnu-gcc >/dev/null && [ -x tools/build-guest.sh ]; then
  echo "== guest ELFs match their sources" >&2
  tools/build-guest.sh --check
fi

echo "== cargo test" >&2
cargo test --workspace --locked
