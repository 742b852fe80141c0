#!/usr/bin/env python3
"""torch.distributed all_reduce bus bandwidth, measured the way `bevenv-probe --rank` measures it.

Same sizes (8, 64, 256 MiB of float32), same 5 warm-up and 20 timed iterations, same formulas
(nccl-tests: algbw = bytes / time, busbw = algbw * 2(n-1)/n), so the two numbers can be set side
by side in the same run. Rank r contributes r+1, and the sums are checked.

  torchrun --nproc-per-node 2 bench/cluster_allreduce_torch.py > torch.json
  python3 bench/cluster_allreduce_torch.py --compare probe.json torch.json

Rank 0 prints one JSON document; --compare prints a table of probe/torch ratios.
"""
import json
import os
import sys
import time

SIZES = [8 << 20, 64 << 20, 256 << 20]
WARMUP = 5
TIMED = 20


def measure():
    import torch
    import torch.distributed as dist

    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    try:
        dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    except TypeError:  # torch < 2.3 has no device_id
        dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    expected = world * (world + 1) / 2
    results = []
    for size in SIZES:
        tensor = torch.full((size // 4,), float(rank + 1), dtype=torch.float32, device="cuda")
        for _ in range(WARMUP):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        tensor.fill_(float(rank + 1))
        dist.all_reduce(tensor)
        torch.cuda.synchronize()
        wrong = int((tensor != expected).sum().item())
        start = time.perf_counter()
        for _ in range(TIMED):
            dist.all_reduce(tensor)
        torch.cuda.synchronize()
        seconds = (time.perf_counter() - start) / TIMED
        algbw = size / seconds / 1e9
        results.append({"bytes": size, "time_us": seconds * 1e6, "algbw_gbps": algbw,
                        "busbw_gbps": algbw * 2 * (world - 1) / world, "wrong_elements": wrong})
    nccl = ".".join(str(part) for part in torch.cuda.nccl.version())
    dist.destroy_process_group()
    if rank == 0:
        print(json.dumps({"tool": "torch.distributed", "torch": torch.__version__, "nccl": nccl,
                          "world_size": world, "results": results}, indent=2))


def compare(probe_path, torch_path):
    probe = json.load(open(probe_path))
    ours = probe.get("collective", probe).get("results", [])
    theirs = json.load(open(torch_path))["results"]
    print("%10s %16s %16s %8s" % ("bytes", "probe busbw", "torch busbw", "ratio"))
    for mine, other in zip(ours, theirs):
        ratio = mine["busbw_gbps"] / other["busbw_gbps"]
        print("%10d %12.1f GB/s %12.1f GB/s %8.2f" % (mine["bytes"], mine["busbw_gbps"],
                                                      other["busbw_gbps"], ratio))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        measure()
