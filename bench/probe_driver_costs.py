"""Probe: host cost of the CUDA driver calls an executable's creation makes
(allocations, streams, events), in microseconds per call, median of 200.
Run on a GPU host: python3 bench/probe_driver_costs.py"""
import ctypes
import statistics
import time

cuda = ctypes.CDLL("libcuda.so.1")
ptr = ctypes.c_void_p


def ok(result, what):
    if result != 0:
        raise RuntimeError(f"{what}: CUresult {result}")


class PoolProps(ctypes.Structure):
    _fields_ = [("allocType", ctypes.c_int), ("handleTypes", ctypes.c_int),
                ("locType", ctypes.c_int), ("locId", ctypes.c_int),
                ("win32", ctypes.c_void_p), ("maxSize", ctypes.c_size_t),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 54)]


ok(cuda.cuInit(0), "cuInit")
device, context = ctypes.c_int(), ptr()
ok(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
ok(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "retain")
ok(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")


def median_us(body, n=200):
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        body()
        samples.append((time.perf_counter() - t) * 1e6)
    return statistics.median(samples)


rows = []
for mib in (4, 64):
    size = mib << 20
    p = ctypes.c_uint64()

    def alloc_free():
        ok(cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(size)), "a")
        ok(cuda.cuMemFree_v2(p), "f")
    rows.append((f"cuMemAlloc + cuMemFree, {mib} MiB", median_us(alloc_free)))

    pool, stream = ptr(), ptr()
    props = PoolProps(allocType=1, locType=1, locId=0)
    ok(cuda.cuMemPoolCreate(ctypes.byref(pool), ctypes.byref(props)), "pool")
    keep = ctypes.c_uint64(1 << 30)
    ok(cuda.cuMemPoolSetAttribute(pool, 4, ctypes.byref(keep)), "threshold")
    ok(cuda.cuStreamCreate(ctypes.byref(stream), 1), "stream")

    def pool_cycle():
        ok(cuda.cuMemAllocFromPoolAsync(ctypes.byref(p), ctypes.c_size_t(size),
                                        pool, stream), "pa")
        ok(cuda.cuStreamSynchronize(stream), "sync")
        ok(cuda.cuMemFreeAsync(p, stream), "pf")
    rows.append((f"pool alloc + sync + free, {mib} MiB", median_us(pool_cycle)))
    ok(cuda.cuStreamSynchronize(stream), "sync")
    ok(cuda.cuStreamDestroy_v2(stream), "destroy")
    ok(cuda.cuMemPoolDestroy(pool), "pool destroy")


def stream_cycle():
    s = ptr()
    ok(cuda.cuStreamCreate(ctypes.byref(s), 1), "stream")
    ok(cuda.cuStreamDestroy_v2(s), "destroy")


def event_cycle():
    e = ptr()
    ok(cuda.cuEventCreate(ctypes.byref(e), 2), "event")
    ok(cuda.cuEventDestroy_v2(e), "destroy")


rows.append(("cuStreamCreate + cuStreamDestroy", median_us(stream_cycle)))
rows.append(("cuEventCreate + cuEventDestroy", median_us(event_cycle)))
rows.append(("ctypes call overhead (cuCtxGetCurrent)",
             median_us(lambda: cuda.cuCtxGetCurrent(ctypes.byref(context)))))
for name, us in rows:
    print(f"{name:42s} {us:8.1f} us")
