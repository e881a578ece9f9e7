"""Runs PyTorch's flash backend (FA-2) on b17 h16 s512 d128 bf16 a few times, causal if argv[1]
is 1 (for fa2_stalls.sh's profiler, which picks the fourth launch)."""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

causal = len(sys.argv) > 1 and sys.argv[1] == "1"
q = torch.randn(17, 16, 512, 128, device="cuda", dtype=torch.bfloat16)
k, v = torch.randn_like(q), torch.randn_like(q)
with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
    for _ in range(5):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
torch.cuda.synchronize()
