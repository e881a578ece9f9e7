"""Draws held-out shapes (seed fixed per draw; run once, output committed before any measurement).
Usage: heldout_draw.py [SEED] > FILE. Draw 1: seed 20261126 -> heldout_shapes.csv; draw 2: seed
20261127 -> heldout2_shapes.csv (same rules, drawn after draw 1's results had shaped the model);
draw 3: seed 20261128 -> heldout3_shapes.csv (drawn after the kernel set-up change, eba2601);
draw 4: seed 20261129 -> heldout4_shapes.csv (drawn after the clock settled from the simulation,
a56396b, to judge it); draw 5: seed 20261130 -> heldout5_shapes.csv (drawn after draw 4 moved the
validation experiments to warmup 1, to judge what changes after it)."""
import random, math, sys
r = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 20261126)
def logu(lo, hi, mult):
    v = math.exp(r.uniform(math.log(lo), math.log(hi)))
    return max(mult, int(round(v / mult)) * mult)
rows = []
i = 0
while len([x for x in rows if x[0] == "gemm"]) < 20:
    m, n, k = logu(128, 8192, 64), logu(128, 8192, 64), logu(128, 8192, 64)
    if 2.0 * m * n * k > 2.0 * 4096 ** 3 or 2.0 * m * n * k < 2.0 * 512 ** 3:
        continue
    rows.append(("gemm", "bf16", "%dx%dx%d" % (m, n, k)))
while len([x for x in rows if x[0] == "gemm_fp8"]) < 4:
    m, n, k = logu(512, 8192, 128), logu(512, 8192, 128), logu(512, 8192, 128)
    if 2.0 * m * n * k > 2.0 * 4096 ** 3 or 2.0 * m * n * k < 2.0 * 1024 ** 3:
        continue
    rows.append(("gemm_fp8", "fp8e4m3", "%dx%dx%d" % (m, n, k)))
while len([x for x in rows if x[0] == "attention"]) < 8:
    s = logu(512, 8192, 128)
    d = r.choice([64, 128])
    h = r.choice([8, 12, 16, 32])
    b = max(1, int(round(16384 / s * r.uniform(0.5, 2.0))))
    causal = r.choice([0, 1])
    rows.append(("attention", "bf16", "b%d_h%d_s%d_d%d_c%d" % (b, h, s, d, causal)))
while len([x for x in rows if x[0] == "conv"]) < 8:
    n = r.choice([8, 16, 32])
    c = r.choice([64, 96, 128, 192, 256, 384, 512])
    kk = r.choice([64, 96, 128, 192, 256, 384, 512])
    hw = r.choice([7, 14, 28, 56])
    rs = r.choice([1, 3])
    st = r.choice([1, 1, 2])
    rows.append(("conv", "fp16", "n%d_c%d_k%d_hw%d_r%d_s%d" % (n, c, kk, hw, rs, st)))
print("kind,dtype,shape")
for x in rows:
    print(",".join(x))
