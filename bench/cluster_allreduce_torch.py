#!/usr/bin/env python3
"""torch.distributed all_reduce bus bandwidth, measured the way `bevenv-probe --rank` measures it.

Same sizes (8, 64, 256 MiB of float32), same 5 warm-up and 20 timed iterations, same formulas
(nccl-tests: algbw = bytes / time, busbw = algbw * 2(n-1)/n), so the two numbers can be set side
by side in the same run. Rank r contributes r+1, and the sums are checked. Each size is timed
twice: `blocking` (one dist.all_reduce after another, the compute stream waiting each time) and
`queued` (async_op=True, issued back to back like the probe); the top-level numbers are queued.

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


def timed_all_reduce(torch, dist, tensor, mode):
    """Seconds per all_reduce. `blocking`: each call as a training loop writes it, so the
    compute stream waits for every collective before the next one is issued (torch's
    cross-stream events cost a few microseconds each time). `queued`: async_op=True, all
    TIMED collectives issued on NCCL's stream before waiting, as nccl-tests and the probe do."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    if mode == "blocking":
        for _ in range(TIMED):
            dist.all_reduce(tensor)
    else:
        works = [dist.all_reduce(tensor, async_op=True) for _ in range(TIMED)]
        for work in works:
            work.wait()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / TIMED


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
        row = {"bytes": size, "wrong_elements": wrong}
        for mode in ("blocking", "queued"):
            seconds = timed_all_reduce(torch, dist, tensor, mode)
            algbw = size / seconds / 1e9
            row[mode] = {"time_us": seconds * 1e6, "algbw_gbps": algbw,
                         "busbw_gbps": algbw * 2 * (world - 1) / world}
        # The probe and nccl-tests queue their collectives back to back on one stream; the
        # queued mode is the like-for-like number.
        row.update(row["queued"])
        results.append(row)
    nccl = ".".join(str(part) for part in torch.cuda.nccl.version())
    dist.destroy_process_group()
    if rank == 0:
        print(json.dumps({"tool": "torch.distributed", "torch": torch.__version__, "nccl": nccl,
                          "world_size": world, "results": results}, indent=2))


def compare(probe_path, torch_path):
    probe = json.load(open(probe_path))
    ours = probe.get("collective", probe).get("results", [])
    theirs = json.load(open(torch_path))["results"]
    print("%10s %13s %13s %7s %13s %7s" % ("bytes", "probe busbw", "torch queued", "ratio",
                                            "torch block", "ratio"))
    worst = 0.0
    for mine, other in zip(ours, theirs):
        queued = other.get("queued", other)["busbw_gbps"]
        blocking = other.get("blocking", other)["busbw_gbps"]
        ratio = mine["busbw_gbps"] / queued
        worst = max(worst, abs(ratio - 1.0))
        print("%10d %8.1f GB/s %8.1f GB/s %7.2f %8.1f GB/s %7.2f" % (
            mine["bytes"], mine["busbw_gbps"], queued, ratio, blocking,
            mine["busbw_gbps"] / blocking))
    print("largest difference from torch (queued): %.1f%%" % (worst * 100))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        measure()
