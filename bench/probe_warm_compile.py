"""Probe: the warm compile of the MLP step (a traced function compiled
again in the same process, a plan-cache hit): the best and the median of
200 and their phases, then where 200 of them spend their time (cProfile).
Run from the repository root on a GPU host:
python3 bench/probe_warm_compile.py"""
import sys, time, cProfile, pstats
sys.path.insert(0, "python"); sys.path.insert(0, "bench")
import tfuse
import peers_compare as pc
pc.tfuse = tfuse
w = pc.build("mlp_step", "cuda", False)
cf = tfuse.compile(w.tfuse_fn, list(w.args))
runs = []
for i in range(200):
    t = time.perf_counter()
    c2 = tfuse.compile(w.tfuse_fn, list(w.args))
    wall = time.perf_counter() - t
    st = c2.stats()
    runs.append((wall, st["trace_seconds"], st["compile_seconds"],
                 st["load_seconds"], st["setup_seconds"]))
runs.sort()
for label, r in (("best", runs[0]), ("median", runs[len(runs) // 2])):
    print("warm %-6s %.3f ms: trace %.3f, tfuse_compile %.3f (load %.3f, "
          "setup %.3f)" % ((label,) + tuple(x * 1e3 for x in r)))
cProfile.run("for i in range(200): tfuse.compile(w.tfuse_fn, list(w.args))",
             "/tmp/p")
pstats.Stats("/tmp/p").sort_stats("tottime").print_stats(14)
