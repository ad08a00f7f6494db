#!/usr/bin/env bash
# README command one: set up and build, then run Foehn's main job on its built-in default case.
# Until the mountain-wave dynamical core lands, the main job generates the default
# Mountainwave3D mesh, writes it for ParaView into ./out and prints its statistics.
# Extra arguments go to foehn-mesh (e.g. -target_tets 2000000, -numbering reordered).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
mkdir -p out
exec build/bin/foehn-mesh generate -o out/mountain.vtu -boundary_o out/mountain_boundary.vtu "$@"
