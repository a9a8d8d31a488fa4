#!/usr/bin/env bash
# One short session on a machine with a CUDA GPU (issue 22 items 7 and 8), in this order, each
# step under its own time limit so that one slow step cannot eat the others:
#
#   1. what the machine is (GPU, driver, torch);
#   2. tests/engine/test_on_gpu.py — every torch path on the GPU: the same numbers twice, the
#      CPU's law (PRA_DEVICE=auto: the suite's conftest would otherwise pin the CPU);
#   3. bench/bench_devices.py — one CPU line and one GPU line per torch path (`make bench`);
#   4. bench/project_scale.py — the projection table with its GPU columns measured here;
#   5. the location and model demo audits end to end on the GPU (result.json, report.pdf).
#
# Usage: OUT=DIR bash bench/gpu_session.sh. Outputs land in $OUT (logs, the projection table,
# both demos' result.json). Where the machine's Python lacks a package the engine needs
# (reportlab, ortools, dp-accounting, opacus …), put wheels of the locked versions in .whl/
# (`pip download --no-deps --only-binary=:all: --python-version 3.12 -d .whl NAME==VERSION`, the
# versions from requirements/lock-linux.txt); they are installed into /tmp/site first.
# Results of the run of 27 Nov 2026: docs/methods/gpu_run_2026-11-27/.
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=.:${PYTHONPATH:-}
PY=${PY:-python3}
step() { echo; echo "=== $1 ($(date +%T))"; }

step "machine"
nvidia-smi -L
$PY -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda',
torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'NO GPU')"

step "torch paths on the GPU: tests/engine/test_on_gpu.py"
PRA_DEVICE=auto timeout 150 $PY -m pytest -q -p no:cacheprovider -o addopts="" \
    tests/engine/test_on_gpu.py 2>&1 | tee "$OUT/test_on_gpu.txt" | tail -25

step "bench/bench_devices.py"
timeout 120 $PY -m bench.bench_devices 2>&1 | tee "$OUT/bench_devices.txt"

step "bench/project_scale.py"
timeout 120 $PY -m bench.project_scale > "$OUT/project_scale.md" 2> "$OUT/project_scale.err"
tail -3 "$OUT/project_scale.err"; grep -E "^\| (LiRA|Location)" "$OUT/project_scale.md"

for demo in location model; do
    step "demo $demo on the GPU"
    /usr/bin/time -f "demo $demo: %e s wall, %M KB peak" timeout 240 \
        $PY main.py demo "$demo" --out "/tmp/demo-$demo" > "$OUT/demo_$demo.log" 2>&1
    tail -c 600 "$OUT/demo_$demo.log" | tr '\r' '\n' | tail -4
    cp "/tmp/demo-$demo/result.json" "$OUT/demo_${demo}_result.json" 2>/dev/null
done
step "end"
