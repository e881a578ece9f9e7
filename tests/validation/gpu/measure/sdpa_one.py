"""Runs PyTorch's SDPA with one backend on one shape a few times (bf16), for a profiler that picks
a late launch (fa3_stalls.sh). Usage: sdpa_one.py BACKEND CAUSAL B H S D, with BACKEND cudnn or
flash and CAUSAL 0 or 1."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

backend = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[sys.argv[1]]
causal = sys.argv[2] == "1"
b, h, s, d = (int(x) for x in sys.argv[3:7])
q = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
k, v = torch.randn_like(q), torch.randn_like(q)
with sdpa_kernel([backend]):
    for _ in range(6):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
torch.cuda.synchronize()
