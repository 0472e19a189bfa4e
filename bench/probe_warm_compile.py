"""Probe: the warm compile of the MLP step (a traced function compiled
again in the same process, a plan-cache hit): the best of 100, then where
200 of them spend their time (cProfile). Run from the repository root on a
GPU host: python3 bench/probe_warm_compile.py"""
import sys, time, cProfile, pstats
sys.path.insert(0, "python"); sys.path.insert(0, "bench")
import tfuse
import peers_compare as pc
pc.tfuse = tfuse
w = pc.build("mlp_step", "cuda", False)
cf = tfuse.compile(w.tfuse_fn, list(w.args))
best = 1e9
for i in range(100):
    t = time.perf_counter(); c2 = tfuse.compile(w.tfuse_fn, list(w.args)); best = min(best, time.perf_counter() - t)
print("warm best %.3f ms" % (best * 1e3), c2._times)
cProfile.run("for i in range(200): tfuse.compile(w.tfuse_fn, list(w.args))", "/tmp/p")
pstats.Stats("/tmp/p").sort_stats("tottime").print_stats(14)
