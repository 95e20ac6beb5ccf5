"""Writes the Cora stand-in (not part of the program): 300 papers in Cora's file format."""
import numpy as np

rng = np.random.RandomState(0)
n, f, k, e = 300, 80, 7, 700
names = ["Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
         "Reinforcement_Learning", "Rule_Learning", "Theory"]
labels = rng.randint(0, k, size=n)
proto = rng.rand(k, f) < 0.15
feats = ((rng.rand(n, f) < 0.04) | (proto[labels] & (rng.rand(n, f) < 0.6))).astype(int)
ids = rng.choice(np.arange(1000, 1000000), size=n, replace=False)
with open("cora/cora.content", "w") as fh:
    for i in range(n):
        fh.write(str(ids[i]) + "\t" + "\t".join(map(str, feats[i])) + "\t" + names[labels[i]] + "\n")
pairs = set()
while len(pairs) < e:
    a = rng.randint(n)
    same = np.flatnonzero(labels == labels[a]) if rng.rand() < 0.8 else np.arange(n)
    b = rng.choice(same)
    if a != b:
        pairs.add((a, b))
with open("cora/cora.cites", "w") as fh:
    for a, b in sorted(pairs):
        fh.write(f"{ids[a]}\t{ids[b]}\n")
