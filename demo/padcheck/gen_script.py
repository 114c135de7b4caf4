"""Writes the pad cross-check's script (the `piney pad-trace` language) to stdout: every left
stick position in analog mode, then seeded random reports (held combinations, D-pad with
stick, digital and analog), then seeded random motor commands."""
import random

rng = random.Random(6)
for lx in range(256):
    for ly in range(256):
        print(f"pad ff ff 80 80 {lx:02x} {ly:02x}")
first = [0xFF, 0xEF, 0xDF, 0xBF, 0x7F, 0xCF, 0x9F, 0x3F, 0x6F, 0xAF, 0xFE, 0xF7]
for _ in range(20000):
    b0 = rng.choice(first) if rng.random() < 0.7 else rng.randrange(256)
    b1 = rng.choice([0xFF, 0xBF, 0xDF, 0xFE]) if rng.random() < 0.8 else rng.randrange(256)
    if rng.random() < 0.5:
        line = f"pad {b0:02x} {b1:02x}"
    else:
        s = [rng.randrange(256) for _ in range(4)]
        line = f"pad {b0:02x} {b1:02x} " + " ".join(f"{v:02x}" for v in s)
    print(line)
    if rng.random() < 0.1:
        for _ in range(rng.randrange(40)):
            print(line)
for _ in range(20000):
    r = rng.random()
    if r < 0.2:
        ms = rng.choice([0, 8, 9, 100, 160, 200, 500, 1000, 2000, rng.randrange(5000)])
        print(f"set {rng.randrange(2)} {rng.randrange(256)} {ms}")
    elif r < 0.6:
        print(f"tick {rng.choice([1, 2, 1, 2, 3])}")
    elif r < 0.97:
        print("ctrl")
    else:
        print("vibration " + rng.choice(["on", "off", "on"]))
