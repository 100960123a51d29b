#!/usr/bin/env bash
# The GPU check, on the device machine, as one command from the checkout's root:
#   bash scripts/device-check/on-device.sh
# with .device-check/ carried (scripts/device-check/prepare.ts makes it; docs/testing.md, "The GPU
# check"). That machine has no Node, no node_modules and no network: everything comes from the
# carried folder. Steps: unpack Node, the one-file CLI's sources and the tokenizer; record
# `nvidia-smi -q` and sample nvidia-smi for the whole check; build llama.cpp with CUDA from the
# carried source tree; run the workload on GPU 0 with the dummy model (made there, first use);
# validate the result. Each step stops at its own time limit, and whatever a step left is in $OUT,
# whose files come back (at most 8, plain names):
#   steps.log  nvidia-smi-q.txt  nvidia-smi.csv  build.log  run.log  validate.log  result.json
# Exit status: 0 when the result was written and validates; else the first failing step's.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CARRIED="${ROOT}/.device-check"
: "${OUT:?OUT must name the folder whose files come back (the device tool sets it)}"
# A warm machine keeps /tmp between calls: a rerun finds the build and the model there.
WORK="${DEVICE_CHECK_WORK:-/tmp/servebench-device-check}"
# Seconds per step, inside the device tool's 600 s a command (docs/testing.md).
BUILD_LIMIT="${DEVICE_CHECK_BUILD_S:-400}"
RUN_LIMIT="${DEVICE_CHECK_RUN_S:-120}"
WORKLOAD="cpu-chat-short"
SERVE=(--max-model-len 2048 --max-num-seqs 4)
TELEMETRY_QUERY="timestamp,index,utilization.gpu,utilization.memory,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm,clocks.mem"

mkdir -p "${OUT}" "${WORK}/bin"
STARTED=${SECONDS}
sampler=""

say() {
  local now
  printf -v now '%(%H:%M:%S)T' -1
  printf '%s +%ss %s\n' "${now}" "$((SECONDS - STARTED))" "$*" | tee -a "${OUT}/steps.log" >&2
}

stop_sampler() {
  if [[ -n "${sampler}" ]]; then
    kill "${sampler}" 2>/dev/null
    wait "${sampler}" 2>/dev/null
    sampler=""
  fi
}

finish() {
  local status=$1
  stop_sampler
  say "done: exit ${status}"
  exit "${status}"
}

fail() {
  say "FAILED: $*"
  finish 1
}

# xz where the image has it, else Python's lzma (python3 is there: it holds PyTorch).
unxz_to() {
  if command -v xz >/dev/null 2>&1; then
    xz -dc -- "$1" >"$2"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
  fi
}

untar_xz() {
  unxz_to "$1" "${WORK}/unpack.tar" && tar -xf "${WORK}/unpack.tar" -C "$2" && rm -f "${WORK}/unpack.tar"
}

for file in node.xz servebench.mjs llama.cpp-src.tar.xz cache.tar.xz check.env; do
  [[ -f "${CARRIED}/${file}" ]] || fail "${CARRIED}/${file} is missing: run scripts/device-check/prepare.ts here and carry .device-check"
done
# shellcheck source=/dev/null
source "${CARRIED}/check.env"
: "${CHECK_MODEL:?check.env names no CHECK_MODEL}" "${ENGINE_VERSION:?check.env names no ENGINE_VERSION}" "${HARNESS_REVISION:?check.env names no HARNESS_REVISION}"
say "GPU check: llama.cpp ${ENGINE_VERSION} with CUDA, ${CHECK_MODEL}, ${WORKLOAD}, harness ${HARNESS_REVISION}"

say "unpacking Node, the llama.cpp source tree and the tokenizer"
if [[ ! -x "${WORK}/bin/node" ]]; then
  if ! { unxz_to "${CARRIED}/node.xz" "${WORK}/bin/node.part" && chmod +x "${WORK}/bin/node.part" && mv "${WORK}/bin/node.part" "${WORK}/bin/node"; }; then
    fail "cannot unpack Node"
  fi
fi
export PATH="${WORK}/bin:${PATH}"
node_version=$(node --version) || fail "the carried Node does not run here"
say "node ${node_version}"
if [[ ! -f "${WORK}/llama.cpp-src/CMakeLists.txt" ]]; then
  untar_xz "${CARRIED}/llama.cpp-src.tar.xz" "${WORK}" || fail "cannot unpack the llama.cpp source"
fi
export SERVEBENCH_CACHE="${WORK}/cache"
mkdir -p "${SERVEBENCH_CACHE}"
untar_xz "${CARRIED}/cache.tar.xz" "${SERVEBENCH_CACHE}" || fail "cannot unpack the tokenizer"
# Where git cannot name the checkout's commit (no .git, or no git), the result's harness commit is
# read from .image-revision (harness/measure/run/host.ts).
if ! git -C "${ROOT}" rev-parse HEAD >/dev/null 2>&1; then
  printf '%s\n' "${HARNESS_REVISION}" >"${ROOT}/.image-revision"
fi
servebench() { node "${CARRIED}/servebench.mjs" "$@"; }

say "nvidia-smi -q"
timeout 60 nvidia-smi -q >"${OUT}/nvidia-smi-q.txt" 2>&1 || fail "nvidia-smi -q failed (no NVIDIA driver here?)"
timeout -k 5 $((BUILD_LIMIT + RUN_LIMIT + 120)) nvidia-smi --query-gpu="${TELEMETRY_QUERY}" --format=csv,nounits -lms 500 >"${OUT}/nvidia-smi.csv" 2>&1 &
sampler=$!

# CMake looks for nvcc on PATH; the toolkit's own folder may not be on it.
toolkit="${CUDA_PATH:-/usr/local/cuda}/bin"
if ! command -v nvcc >/dev/null 2>&1 && [[ -x "${toolkit}/nvcc" ]]; then
  export PATH="${toolkit}:${PATH}"
fi
jobs=$(nproc)
say "building llama.cpp ${ENGINE_VERSION} with CUDA for sm_90 (at most ${BUILD_LIMIT} s)"
if ! timeout -k 10 "${BUILD_LIMIT}" node "${CARRIED}/servebench.mjs" llamacpp build --source-tree "${WORK}/llama.cpp-src" --cuda --cuda-arch 90 --jobs "${jobs}" >"${OUT}/build.log" 2>&1; then
  fail "the CUDA build failed or ran past ${BUILD_LIMIT} s (build.log)"
fi
servebench llamacpp list >>"${OUT}/build.log" 2>&1

say "running ${WORKLOAD} on GPU 0 (at most ${RUN_LIMIT} s)"
rm -rf "${WORK}/results"
# SIGTERM at the limit: servebench stops the server and writes the interrupted result within 15 s.
timeout -k 20 "${RUN_LIMIT}" node "${CARRIED}/servebench.mjs" run --engine llamacpp --launcher process --gpu 0 --engine-version "${ENGINE_VERSION}" \
  --model "${CHECK_MODEL}" --workload "${WORKLOAD}" "${SERVE[@]}" --results-dir "${WORK}/results" --no-progress >"${OUT}/run.log" 2>&1
run_status=$?
stop_sampler
result=$(find "${WORK}/results" -name '*.json' -type f 2>/dev/null | head -n 1)
[[ -n "${result}" ]] || fail "the run wrote no result (exit ${run_status}; run.log)"
cp "${result}" "${OUT}/result.json"
say "result: ${result#"${WORK}/results/"} (run exit ${run_status})"
servebench validate --results "${WORK}/results" >"${OUT}/validate.log" 2>&1
validate_status=$?
say "validate: exit ${validate_status}"
((run_status == 0)) || finish "${run_status}"
finish "${validate_status}"
