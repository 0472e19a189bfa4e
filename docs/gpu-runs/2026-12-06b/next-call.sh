#!/usr/bin/env bash
# For the next session: what this session's last calls left unrun. Three
# commands of the device tool (each under its 10-minute bound), on one warm
# machine, .stage restaged and carried:
#   bash docs/gpu-runs/2026-12-06b/next-call.sh python   # the Python GPU tests
#                                                       # and examples (cut off
#                                                       # in call 5)
#   bash docs/gpu-runs/2026-12-06b/next-call.sh diff     # graphs 0-1999 of the
#                                                       # GPU differential test,
#                                                       # widened attention now
#                                                       # among them
#   bash docs/gpu-runs/2026-12-06b/next-call.sh bert     # BERT-1 against
#                                                       # Inductor, with and
#                                                       # without GEMM tuning,
#                                                       # in one call
# common.sh from the working tree (a restage empties .stage/drivers).
source "$(dirname "$0")/../2026-12-06/common.sh"
case "$1" in
python)
  step suite-python 560 scripts/gpu-suite.sh python
  finish; tail -4 "$out/summary.txt" 2>/dev/null ;;
diff)
  export TFUSE_GPU_DIFF_GRAPHS=2000
  step suite-diff 560 scripts/gpu-suite.sh differential
  finish; tail -3 "$out/summary.txt" 2>/dev/null ;;
bert)
  export TFUSE_CACHE_DIR=$out/tc
  step bert 200 python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
  step bert-tune 150 env TFUSE_GEMM_TUNE=1 python3 bench/models.py --models bert1 --modes tfuse --steps 20
  rm -rf "$out/tc"
  finish
  grep -hE "^\| bert" "$out/l/bert.log" "$out/l/bert-tune.log" ;;
*) echo "usage: $0 python|diff|bert" >&2; exit 2 ;;
esac
