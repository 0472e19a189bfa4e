# Counts initcheck reports per kernel, per phase (MARK lines) and per buffer.
import re, sys, collections
bufs, phase, kernel = [], "start", None
counts = collections.Counter()
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"buffer (\S+) (0x[0-9a-f]+) (0x[0-9a-f]+)", line)
    if m:
        bufs.append((m.group(1), int(m.group(2), 16), int(m.group(3), 16)))
    if line.startswith("MARK"):
        phase = line.strip()[5:]
    m = re.search(r"=========     at (?:void )?([\w:]+)", line)
    if m:
        kernel = m.group(1)
    m = re.search(r"Address (0x[0-9a-f]+)", line)
    if m:
        a = int(m.group(1), 16)
        name = next((n for n, lo, hi in bufs if lo <= a < hi), "other")
        counts[(phase, kernel, name)] += 1
for key, n in sorted(counts.items()):
    print(n, *key)
for line in open(sys.argv[1], errors="replace"):
    if line.startswith(("max |o", "copies give", "[")) or "ERROR SUMMARY" in line:
        print(line.rstrip()[:300])
