"""What the FlashAttention validation needs beyond measure.py (issue 11, models/gpu_sm/README.md
"FlashAttention"): the SM clock while the attention kernels run (they throttle under the 700 W
cap), and the sustained rates of mma.sync m16n8k16 bf16 (FA-2's tensor instruction) and of
MUFU.EX2 (softmax's exp2) per SM per clock, from clock64() around a loop of independent
instructions on one CTA per SM. Usage: python3 attention_clocks.py (PyTorch + CuPy, sm_90).
Result on the lent H100 SXM (2026-11-26): tests/validation/gpu/data/h100_attention_clocks.txt."""
import statistics as st
import threading
import time

import cupy as cp
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

SRC = r'''
extern "C" __global__ void mma(float* o, long long* cy, int n) {
  unsigned a = threadIdx.x, a1 = a * 3, a2 = a * 5, a3 = a * 7, b0 = a * 11, b1 = a * 13;
  float c[4][4] = {};
  __syncthreads();
  long long t = clock64();
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 4; j++)  // four independent accumulators: no dependency stalls
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3},"
                   "{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
                   : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                   : "r"(a), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  __syncthreads();
  if (!threadIdx.x) cy[blockIdx.x] = clock64() - t;
  float s = 0;
  for (int j = 0; j < 16; j++) s += c[j / 4][j % 4];
  o[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void ex(float* o, long long* cy, int n) {
  float x[8];
  for (int j = 0; j < 8; j++) x[j] = threadIdx.x * 1e-3f - j;
  __syncthreads();
  long long t = clock64();
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int j = 0; j < 8; j++) asm volatile("ex2.approx.ftz.f32 %0,%0;" : "+f"(x[j]));
  }
  __syncthreads();
  if (!threadIdx.x) cy[blockIdx.x] = clock64() - t;
  float s = 0;
  for (int j = 0; j < 8; j++) s += x[j];
  o[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
'''


def rates(sms):
    mod = cp.RawModule(code=SRC, options=("-arch=sm_90",))
    for name, per in (("mma", 4 * 2048), ("ex", 8)):  # FMA per warp-iteration / ex2 per thread
        f = mod.get_function(name)
        for warps in (4, 8, 16):
            o = cp.zeros(sms * 32 * warps, cp.float32)
            cy = cp.zeros(sms, cp.int64)
            n = 4096
            for _ in range(2):  # the first launch warms up
                f((sms,), (32 * warps,), (o, cy, cp.int32(n)))
            cp.cuda.Device().synchronize()
            ops = (warps if name == "mma" else 32 * warps) * n * per
            print(name, "warps", warps, "per SM per clk %.1f" % (ops / st.median(cy.get().tolist())))


def attention(backend, causal):
    q = torch.randn(2, 16, 8192, 128, device="cuda", dtype=torch.bfloat16)
    k, v = torch.randn_like(q), torch.randn_like(q)
    clocks, stop = [], [False]

    def monitor():
        while not stop[0]:
            clocks.append(torch.cuda.clock_rate())  # NVML's current SM clock, MHz
            time.sleep(0.02)

    with sdpa_kernel([backend]):
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
        th = threading.Thread(target=monitor)
        th.start()
        t, n = time.time(), 0
        while time.time() - t < 3:
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            n += 1
            if n % 20 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        dt = (time.time() - t) / n
        stop[0] = True
        th.join()
    flops = 4 * 2 * 16 * 8192 * 8192 * 128 / (2 if causal else 1)
    print(backend, causal, "TF %.1f" % (flops / dt / 1e12),
          "clock MHz median %d min %d max %d" % (st.median(clocks), min(clocks), max(clocks)))


if __name__ == "__main__":
    rates(torch.cuda.get_device_properties(0).multi_processor_count)
    for be in (SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION):
        for c in (False, True):
            attention(be, c)
