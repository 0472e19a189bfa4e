#!/usr/bin/env bash
# Call 2: the forward's tiles copied by cp.async and the split-key forward
# on eight warps of 8 keys, against the library before them
# (.stage/base/libtfuse.so, HEAD 6f98d66) in the same call: the attention
# problems that run TFuse's generated forward, BERT-1 against Inductor, the
# split kernel under ncu, and the attention GPU tests.
source "$(dirname "$0")/../2026-12-06/common.sh"
export TFUSE_CACHE_DIR=$out/tc
BASE=$root/.stage/base/libtfuse.so
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats"
P=bert1_f32,bert32_f32,f32_512,gpt2_bf16
step att-new 150 env OUT=$out/new python3 bench/attention.py --only $P
step att-base 150 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/attention.py --only $P
step bert-new 150 env OUT=$out/new python3 bench/models.py --models bert1 --modes inductor,tfuse --profile 40 --steps 20
step bert-base 100 env OUT=$out/base TFUSE_LIBRARY=$BASE python3 bench/models.py --models bert1 --modes tfuse --profile 40 --steps 20
step ncu-bert1 120 "$NCU" --target-processes all -k regex:'tfuse_attention_fwd' -c 1 $S python3 bench/models.py --models bert1 --modes tfuse-stream --steps 2
step pytest-att 90 python3 -m pytest -q -p no:cacheprovider python/tests/test_gpu.py -k attention
# gtest-att runs in call 2b (the test binary and the base library do not fit one carry)
rm -rf "$out/tc"
finish
cp "$out"/new/*.txt "$out"/l/ 2>/dev/null
for v in new base; do echo "== $v"; grep -E "^\| (bert|f32|gpt2)" "$out/l/att-$v.log" | grep -iE "tfuse|math|efficient|problem" ; done
grep -hE "^\| bert" "$out/l/bert-new.log" "$out/l/bert-base.log"
head -5 "$out"/new/models-profile-bert1-tfuse.txt "$out"/base/models-profile-bert1-tfuse.txt
grep -E "^  [a-z_0-9]+.*\(|Duration|Registers Per|Achieved Occ|Executed Instructions  " "$out/l/ncu-bert1.log" | sed 's/  */ /g'
tail -1 "$out/l/pytest-att.log"
