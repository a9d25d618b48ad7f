#!/usr/bin/env bash
# The device call (nvidia-h200) after the retraining: the live tunings of 2026-12-01f call 4 again
# (scripts/gpu-sweep --live, each shape cold over the default space, then with --fast), now
# with the model that ranks cuBLASLt's choices too.
exec bash bench/results/2026-12-01f-h200-cublaslt-grid/call4.sh "$@"
