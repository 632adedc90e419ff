"""test/e2e/train.py — a small data-parallel training for the e2e suite.

Run as plain `python3 train.py OUT` by the launcher on each node of a job:
torch.distributed's env:// rendezvous reads only what the launcher sets
(MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE). gloo on CPU, a linear model
on synthetic data; each rank writes its first and last loss to OUT.
"""
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    out = sys.argv[1]
    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)
    true_w = torch.randn(16, 1)
    torch.manual_seed(rank)
    x = torch.randn(512, 16)
    y = x @ true_w + 0.01 * torch.randn(512, 1)
    model = DistributedDataParallel(torch.nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    dist.barrier()
    with open(f"{out}/train-{os.environ['MIXDNN_JOB_ID']}-rank{rank}.txt", "w") as f:
        f.write(f"rank={rank} world={world} first={losses[0]:.6f} last={losses[-1]:.6f}\n")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
