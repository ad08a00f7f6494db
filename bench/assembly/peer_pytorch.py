#!/usr/bin/env python3
"""The peer a Python user would reach for on a GPU: PyTorch (and CuPy if present).

Assembles the same P1 anisotropic diffusion matrix as bench_assembly on the same mesh, fully
vectorised: element matrices V * G K_avg G^T (K is P1, so its integral over a tet is V times
the mean of the four nodal tensors; G holds the physical shape-function gradients), then
COO -> CSR with duplicate summation. Timed with CUDA events (median after warm-up), checked
against Foehn's deterministic matrix (exported by `bench_assembly --export-peer-mesh`).

usage: peer_pytorch.py <export-dir>/<tets> <repeats> >> peer.txt
prints lines "variant tets time_ms max_rel_error".
"""
import pathlib
import sys

import numpy as np


def load(folder):
    nodes, tets, nnz = (int(v) for v in (folder / "meta.txt").read_text().split())
    read = lambda name, dtype: np.fromfile(folder / name, dtype=dtype)
    return dict(
        coords=read("coords.f64", np.float64).reshape(nodes, 3),
        tets=read("tets.i32", np.int32).reshape(tets, 4),
        tensor=read("tensor.f64", np.float64).reshape(nodes, 3, 3),
        row_offsets=read("row_offsets.i32", np.int32),
        columns=read("columns.i32", np.int32),
        values=read("values.f64", np.float64),
        nodes=nodes, ntets=tets, nnz=nnz)


def torch_assemble(torch, coords, tets, tensor, n):
    x = coords[tets]                              # E x 4 x 3
    jac = (x[:, 1:, :] - x[:, :1, :]).transpose(1, 2)  # E x 3 x 3, columns x_k - x_0
    inv = torch.linalg.inv(jac)                   # E x 3 x 3
    ref = torch.tensor([[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                       dtype=coords.dtype, device=coords.device)
    grads = ref @ inv                             # E x 4 x 3: dN_i/dx
    volume = torch.linalg.det(jac).abs() / 6.0
    k_avg = tensor[tets].mean(dim=1)              # E x 3 x 3
    local = volume[:, None, None] * grads @ k_avg @ grads.transpose(1, 2)  # E x 4 x 4
    rows = tets[:, :, None].expand(-1, 4, 4).reshape(-1).long()
    cols = tets[:, None, :].expand(-1, 4, 4).reshape(-1).long()
    coo = torch.sparse_coo_tensor(torch.stack([rows, cols]), local.reshape(-1), (n, n))
    return coo.coalesce().to_sparse_csr()


def time_it(torch, fn, repeats):
    for _ in range(3):
        fn()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(repeats):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return float(np.median(samples))


def relative_error(got_values, reference):
    diff = np.linalg.norm(got_values - reference)
    return diff / np.linalg.norm(reference)


def main():
    folder, repeats = pathlib.Path(sys.argv[1]), int(sys.argv[2])
    d = load(folder)
    import torch
    dev = torch.device("cuda")
    coords = torch.from_numpy(d["coords"]).to(dev)
    tets = torch.from_numpy(d["tets"]).to(dev)
    tensor = torch.from_numpy(d["tensor"]).to(dev)
    csr = torch_assemble(torch, coords, tets, tensor, d["nodes"])
    same_pattern = (np.array_equal(csr.crow_indices().cpu().numpy(), d["row_offsets"]) and
                    np.array_equal(csr.col_indices().cpu().numpy(), d["columns"]))
    error = relative_error(csr.values().cpu().numpy(), d["values"]) if same_pattern else float("inf")
    ms = time_it(torch, lambda: torch_assemble(torch, coords, tets, tensor, d["nodes"]), repeats)
    print(f"peer_pytorch {d['ntets']} {ms:.6f} {error:.3e}", flush=True)

    try:
        import cupy as cp
        import cupyx.scipy.sparse as cps
    except ImportError:
        return
    # CuPy: the same element matrices (from torch via DLPack, no copy), COO -> CSR in cupyx.
    def cupy_assemble():
        x = coords[tets]
        jac = (x[:, 1:, :] - x[:, :1, :]).transpose(1, 2)
        inv = torch.linalg.inv(jac)
        ref = torch.tensor([[-1.0, -1.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                           dtype=coords.dtype, device=dev)
        grads = ref @ inv
        volume = torch.linalg.det(jac).abs() / 6.0
        local = volume[:, None, None] * grads @ tensor[tets].mean(dim=1) @ grads.transpose(1, 2)
        v = cp.from_dlpack(local.reshape(-1))
        t = cp.from_dlpack(tets)
        r = cp.repeat(t, 4, axis=1).reshape(-1)
        c = cp.tile(t, (1, 4)).reshape(-1)
        m = cps.coo_matrix((v, (r, c)), shape=(d["nodes"], d["nodes"])).tocsr()
        m.sum_duplicates()
        m.sort_indices()
        return m
    m = cupy_assemble()
    same = (np.array_equal(cp.asnumpy(m.indptr), d["row_offsets"]) and
            np.array_equal(cp.asnumpy(m.indices), d["columns"]))
    error = relative_error(cp.asnumpy(m.data), d["values"]) if same else float("inf")
    ms = time_it(torch, cupy_assemble, repeats)
    print(f"peer_cupy {d['ntets']} {ms:.6f} {error:.3e}", flush=True)


if __name__ == "__main__":
    main()
