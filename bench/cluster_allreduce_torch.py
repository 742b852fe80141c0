#!/usr/bin/env python3
"""torch.distributed all_reduce bus bandwidth, measured the way `bevenv-probe --rank` measures it.

Same sizes (8, 64, 256 MiB of float32), same 5 warm-up and 20 timed iterations, same formulas
(nccl-tests: algbw = bytes / time, busbw = algbw * 2(n-1)/n), so the two numbers can be set side
by side in the same run. Rank r contributes r+1, and the sums are checked. Each size is timed
three ways: `blocking` (one dist.all_reduce after another, the compute stream waiting each
time), `queued` (async_op=True, issued back to back) and `graph` (20 collectives captured in a
CUDA graph and replayed: no host work per call, like the probe's enqueue loop); the top-level
numbers are graph's, or queued's where capture fails.

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


def graph_all_reduce(torch, dist, tensor):
    """Seconds per all_reduce replayed from a CUDA graph of TIMED collectives: no host work per
    call at all, so at small sizes this is the GPU side of PyTorch's all_reduce, which is what
    the probe's back-to-back ncclAllReduce calls measure. None when capture fails."""
    try:
        tensor.zero_()  # replays keep summing in place: zeros stay finite
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                dist.all_reduce(tensor)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(TIMED):
                dist.all_reduce(tensor)
        graph.replay()
        torch.cuda.synchronize()
        start = time.perf_counter()
        graph.replay()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / TIMED
    except Exception as error:  # noqa: BLE001 (capture support varies by torch and NCCL)
        print(f"CUDA graph capture of all_reduce failed: {error}", file=sys.stderr)
        return None


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
        for mode in ("blocking", "queued", "graph"):
            if mode == "graph":
                seconds = graph_all_reduce(torch, dist, tensor)
            else:
                seconds = timed_all_reduce(torch, dist, tensor, mode)
            if seconds is None:
                continue
            algbw = size / seconds / 1e9
            row[mode] = {"time_us": seconds * 1e6, "algbw_gbps": algbw,
                         "busbw_gbps": algbw * 2 * (world - 1) / world}
        # The probe and nccl-tests queue their collectives back to back on one stream, with a
        # few microseconds of host work each; PyTorch's host work per call (tens of
        # microseconds) can exceed an 8 MiB all-reduce, so the graph replay, where there is
        # none, is the like-for-like number, and queued the fallback.
        row.update(row.get("graph", row["queued"]))
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
    modes = ("graph", "queued", "blocking")
    print("%10s %12s" % ("bytes", "probe") + "".join("%16s %6s" % ("torch " + m, "ratio")
                                                     for m in modes))
    worst = 0.0
    for mine, other in zip(ours, theirs):
        line = "%10d %7.1f GB/s" % (mine["bytes"], mine["busbw_gbps"])
        for mode in modes:
            if mode not in other:
                line += "%16s %6s" % ("-", "-")
                continue
            busbw = other[mode]["busbw_gbps"]
            line += "%11.1f GB/s %6.2f" % (busbw, mine["busbw_gbps"] / busbw)
        worst = max(worst, abs(mine["busbw_gbps"] / other["busbw_gbps"] - 1.0))
        print(line)
    print("largest difference from torch (%s): %.1f%%" % (
        "graph" if all("graph" in o for o in theirs) else "queued", worst * 100))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        measure()
