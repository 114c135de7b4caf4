#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine or a developer's: installs what it needs (when
# run as root, or through sudo), then checks formatting, lints, the committed guest ELFs against
# their sources, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Build: udev (gilrs) and ALSA headers. Guest programs: the MIPS cross compiler (to check the
# committed ELFs against their sources) and qemu-user (to check portable guest programs against
# a MIPS CPU). GPU and window tests: Mesa's lavapipe (Vulkan) and llvmpipe (GL), Xvfb for a real
# X display, xwd (x11-apps) for its screenshots, xdotool to press keys in a window, and the X
# client libraries winit loads. Disc image tests: genisoimage and chdman (mame-tools) make the
# images piney-disc reads back. csmith (and its headers) writes the random C programs of the
# EE's differential against qemu-mipsel. pulseaudio and pulseaudio-utils: the window test plays
# the demo's sound into a private PulseAudio server's null sink and records it with parec.
# apngdis (a decoder not ours) splits the animated PNG captures into their frames. python3-xlib:
# tools/xdnd-drop.py drops a program on the window as a file manager does.
packages=(pkg-config libudev-dev libasound2-dev gcc-mipsel-linux-gnu binutils-mipsel-linux-gnu
  qemu-user mesa-vulkan-drivers libvulkan1 libegl1 libegl-mesa0 libgl1-mesa-dri xvfb xauth
  x11-apps xdotool libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0 python3
  genisoimage mame-tools csmith libcsmith-dev pulseaudio pulseaudio-utils apngdis python3-xlib)
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

# Mesa warns on every device creation without a private runtime folder.
if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
  export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/piney-runtime-$(id -u)"
  mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi

# Goldens are blessed by hand after looking at them, never by the test run that checks them.
if [ -n "${PINEY_BLESS:-}" ]; then
  echo "test.sh: PINEY_BLESS is set; refusing to run (it would rewrite the goldens it checks)" >&2
  exit 1
fi

# The expected outputs derived from the instruction set, not from piney: each derivation must
# still give its committed .stdout (a .stdout edited to match piney fails here).
echo "== guest expectations match their derivations (tools/guest/expect)" >&2
for script in tools/guest/expect/*.py; do
  name="$(basename "$script" .py)"
  if ! python3 "$script" | cmp -s - "tests/guest/$name.stdout"; then
    echo "test.sh: tests/guest/$name.stdout differs from what $script derives" >&2
    exit 1
  fi
done

echo "== cargo fmt --check" >&2
cargo fmt --all -- --check

echo "== cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings

if command -v mipsel-linux-gnu-gcc >/dev/null && [ -x tools/build-guest.sh ]; then
  echo "== guest ELFs match their sources" >&2
  tools/build-guest.sh --check
  echo "== the demo title matches its sources" >&2
  tools/build-demo.sh --check
  echo "== IOP modules (tests/iop, demo/iop) match their sources" >&2
  tools/build-iop.sh --check
  echo "== the demo's ADPCM samples match tools/adpcm.py" >&2
  python3 tools/adpcm.py --check
  if command -v qemu-mipsel >/dev/null; then
    echo "== portable guest programs print what a MIPS CPU (qemu-mipsel) prints" >&2
    tools/check-qemu.sh
  fi
fi

echo "== the demo's own ccPad code agrees with piney-input (pad-trace)" >&2
cargo build -p piney --locked
PINEY="${CARGO_TARGET_DIR:-target}/debug/piney" demo/padcheck/run.sh

echo "== random C programs (csmith) print what a MIPS CPU (qemu-mipsel) prints, both CPU engines" >&2
PINEY="${CARGO_TARGET_DIR:-target}/debug/piney" tools/csmith-diff.sh 20 1

echo "== tools/bench-compute.sh runs (scale 1, two runs each, the debug build: the engines agree; its times are no figure)" >&2
tools/bench-compute.sh --piney "${CARGO_TARGET_DIR:-target}/debug/piney" --scale 1 --runs 2 >/dev/null

echo "== cargo test" >&2
cargo test --workspace --locked

echo "== tools/bench-gs.sh runs (two frames at scale 1, the debug build: its times are no figure; the demo's and the busy scene's wgpu pictures must be sw's)" >&2
PINEY="${CARGO_TARGET_DIR:-target}/debug/piney" \
  REPLAY_BENCH="${CARGO_TARGET_DIR:-target}/debug/examples/replay_bench" \
  GS_BENCH="${CARGO_TARGET_DIR:-target}/debug/examples/gs_bench" \
  tools/bench-gs.sh --frames 2 --scales 1 >/dev/null

# The recompiler against the interpreter on random programs, beyond the test's own seeds: up to
# 20000 more, no seed started after 120 s (a failure prints its seed, how to rerun it, and the
# program). Built as part of the workspace (as `cargo test --workspace` built it: `-p piney-jit`
# alone would unify features differently and rebuild its dependencies); piney-gs-wgpu's
# differential.rs has no `long_run`, so only the recompiler's runs.
echo "== the recompiler's differential harness: a larger seeded run, bounded in time" >&2
PINEY_JIT_FIRST_SEED=2000000 PINEY_JIT_SEEDS=20000 PINEY_JIT_SECONDS=120 \
  cargo test --workspace --locked --test differential -- --nocapture long_run
