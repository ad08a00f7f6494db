import csv, sys
def final(path):
    rows = list(csv.DictReader(open(path)))
    t = max(float(r["time"]) for r in rows)
    return {r["cell"]: {k: float(v) for k, v in r.items() if k not in ("time", "cell")} for r in rows if float(r["time"]) == t}
a, b = final(sys.argv[1]), final(sys.argv[2])
worst = (0.0, None)
bitwise = True
for cell in a:
    largest = max(abs(v) for v in a[cell].values())
    for name, x in a[cell].items():
        y = b[cell][name]
        bitwise &= x == y
        err = abs(x - y) / max(abs(x), 1e-12 * largest)
        if err > worst[0]: worst = (err, f"cell {cell} {name}")
print(f"{sys.argv[1]} vs {sys.argv[2]}: {len(a)} cells, max relative difference {worst[0]:.3e} ({worst[1]}), bitwise {bitwise}")
