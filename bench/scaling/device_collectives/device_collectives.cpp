// libfoehn_device_collectives: MPI collectives on GPU buffers for an Open MPI whose
// point-to-point transport moves GPU memory (UCX built with CUDA: cuda_ipc over NVLink,
// cuda_copy otherwise) but whose collectives were not built to (Open MPI without --with-cuda:
// its reductions read the buffers on the host and fault). Preloaded (LD_PRELOAD) by
// scripts/gpu-aware-mpi.sh, it intercepts the collectives through MPI's profiling interface:
// where a buffer lies on the GPU, it is copied to the host, the collective runs there (PMPI_*),
// and the result is copied back; host buffers go straight through. PETSc's halo exchanges
// (persistent Isend/Irecv) are not touched: those travel GPU to GPU through UCX, which is the
// point. Nonblocking collectives on GPU buffers run to completion at once and return an
// already completed request, which MPI's ordering rules for collectives allow.
//
// No exception, no allocation failure and no CUDA error leaves through MPI's C interface: a
// staging failure is reported as MPI_ERR_NO_MEM / MPI_ERR_INTERN through the communicator's
// error handler, as any MPI error would be.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <new>
#include <vector>

namespace {

bool on_gpu(const void* buffer) {
  if (buffer == nullptr || buffer == MPI_IN_PLACE) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, buffer) != cudaSuccess) {
    cudaGetLastError();  // a host pointer or no device: not ours to stage
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

// Bytes spanned by `count` elements of `type` from the buffer's start (lower bound at zero,
// as for every type PETSc passes).
std::size_t span_of(int count, MPI_Datatype type) {
  if (count <= 0) return 0;
  MPI_Aint lower = 0, extent = 0, true_lower = 0, true_extent = 0;
  PMPI_Type_get_extent(type, &lower, &extent);
  PMPI_Type_get_true_extent(type, &true_lower, &true_extent);
  const MPI_Aint span = (count - 1) * extent + true_lower + true_extent;
  return span > 0 ? static_cast<std::size_t>(span) : 0;
}

std::size_t span_of_blocks(const int* counts, const int* displacements, int blocks,
                           MPI_Datatype type) {
  std::size_t span = 0;
  MPI_Aint lower = 0, extent = 0;
  PMPI_Type_get_extent(type, &lower, &extent);
  for (int i = 0; i < blocks; ++i)
    if (counts[i] > 0)
      span = std::max(
          span, static_cast<std::size_t>(displacements[i]) * static_cast<std::size_t>(extent) +
                    span_of(counts[i], type));
  return span;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  return size;
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return rank;
}

// One buffer of a collective: its host copy while the collective runs.
class Staged {
 public:
  // `read`: the host copy starts from the GPU's values. Receive buffers are always read, so that
  // what the collective does not write (gaps between the blocks of a v-form) is copied back
  // unchanged.
  Staged(const void* buffer, std::size_t bytes, bool read, bool written)
      : device_(const_cast<void*>(buffer)), written_(written) {
    if (!on_gpu(buffer) || bytes == 0) return;
    try {
      host_.resize(bytes);
    } catch (const std::bad_alloc&) {
      status_ = MPI_ERR_NO_MEM;
      return;
    }
    staged_ = true;
    if (read && cudaMemcpy(host_.data(), device_, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
      fail();
  }

  void* pointer() const { return staged_ ? const_cast<unsigned char*>(host_.data()) : device_; }
  int status() const { return status_; }

  // Copies the result back; returns an MPI error code.
  int finish(int mpi_status) {
    if (mpi_status == MPI_SUCCESS && staged_ && written_ &&
        cudaMemcpy(device_, host_.data(), host_.size(), cudaMemcpyHostToDevice) != cudaSuccess)
      fail();
    return mpi_status != MPI_SUCCESS ? mpi_status : status_;
  }

 private:
  void fail() {
    std::fprintf(stderr,
                 "libfoehn_device_collectives: staging a collective's GPU buffer failed: %s\n",
                 cudaGetErrorString(cudaGetLastError()));
    status_ = MPI_ERR_INTERN;
  }

  void* device_;
  bool written_;
  bool staged_ = false;
  int status_ = MPI_SUCCESS;
  std::vector<unsigned char> host_;
};

int report(MPI_Comm comm, int code) {
  if (code != MPI_SUCCESS) PMPI_Comm_call_errhandler(comm, code);
  return code;
}

// A request that is complete when returned (for a nonblocking collective already run).
int completed_request(MPI_Request* request) {
  const auto query = [](void*, MPI_Status* status) -> int {
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
  };
  const auto release = [](void*) -> int { return MPI_SUCCESS; };
  const auto cancel = [](void*, int) -> int { return MPI_SUCCESS; };
  int code = PMPI_Grequest_start(query, release, cancel, nullptr, request);
  if (code == MPI_SUCCESS) code = PMPI_Grequest_complete(*request);
  return code;
}

int as_nonblocking(int code, MPI_Request* request) {
  return code == MPI_SUCCESS ? completed_request(request) : code;
}

// Send and receive buffers of the rooted and all-to-all collectives, with MPI_IN_PLACE kept.
struct Pair {
  Staged send, receive;
  int status() const { return send.status() != MPI_SUCCESS ? send.status() : receive.status(); }
  const void* send_pointer(const void* given) const {
    return given == MPI_IN_PLACE ? MPI_IN_PLACE : send.pointer();
  }
  int finish(int code) { return receive.finish(send.finish(code)); }
};

bool any_on_gpu(const void* a, const void* b) {
  return on_gpu(a) || on_gpu(b);
}

// Allreduce, Scan and Exscan: the same buffers (count elements in, count out), one PMPI call.
using ElementwiseReduction = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);
int staged_reduction(ElementwiseReduction reduce, const void* sendbuf, void* recvbuf, int count,
                     MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf)) return reduce(sendbuf, recvbuf, count, type, op, comm);
  const std::size_t bytes = span_of(count, type);
  Pair buffers{{sendbuf, bytes, true, false}, {recvbuf, bytes, true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code =
      reduce(buffers.send_pointer(sendbuf), buffers.receive.pointer(), count, type, op, comm);
  return report(comm, buffers.finish(code));
}

}  // namespace

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  return staged_reduction(PMPI_Allreduce, sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  const bool is_root = comm_rank(comm) == root;
  const std::size_t bytes = span_of(count, type);
  Pair buffers{{sendbuf, bytes, true, false}, {recvbuf, is_root ? bytes : 0, true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Reduce(buffers.send_pointer(sendbuf), buffers.receive.pointer(), count,
                               type, op, root, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!on_gpu(buffer)) return PMPI_Bcast(buffer, count, type, root, comm);
  const bool is_root = comm_rank(comm) == root;
  Staged staged(buffer, span_of(count, type), is_root, !is_root);
  if (staged.status() != MPI_SUCCESS) return report(comm, staged.status());
  return report(comm, staged.finish(PMPI_Bcast(staged.pointer(), count, type, root, comm)));
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  Pair buffers{{sendbuf, span_of(sendcount, sendtype), true, false},
               {recvbuf, span_of(recvcount * comm_size(comm), recvtype), true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Allgather(buffers.send_pointer(sendbuf), sendcount, sendtype,
                                  buffers.receive.pointer(), recvcount, recvtype, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  Pair buffers{
      {sendbuf, span_of(sendcount, sendtype), true, false},
      {recvbuf, span_of_blocks(recvcounts, displs, comm_size(comm), recvtype), true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Allgatherv(buffers.send_pointer(sendbuf), sendcount, sendtype,
                                   buffers.receive.pointer(), recvcounts, displs, recvtype, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  const bool is_root = comm_rank(comm) == root;
  Pair buffers{{sendbuf, span_of(sendcount, sendtype), true, false},
               {recvbuf, is_root ? span_of(recvcount * comm_size(comm), recvtype) : 0, true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Gather(buffers.send_pointer(sendbuf), sendcount, sendtype,
                               buffers.receive.pointer(), recvcount, recvtype, root, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  const bool is_root = comm_rank(comm) == root;
  Pair buffers{
      {sendbuf, span_of(sendcount, sendtype), true, false},
      {recvbuf, is_root ? span_of_blocks(recvcounts, displs, comm_size(comm), recvtype) : 0, true,
       true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code =
      PMPI_Gatherv(buffers.send_pointer(sendbuf), sendcount, sendtype, buffers.receive.pointer(),
                   recvcounts, displs, recvtype, root, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  const bool is_root = comm_rank(comm) == root;
  Staged send(sendbuf, is_root ? span_of(sendcount * comm_size(comm), sendtype) : 0, true, false);
  Staged receive(recvbuf, recvbuf == MPI_IN_PLACE ? 0 : span_of(recvcount, recvtype), true, true);
  if (send.status() != MPI_SUCCESS || receive.status() != MPI_SUCCESS)
    return report(comm, send.status() != MPI_SUCCESS ? send.status() : receive.status());
  const int code = PMPI_Scatter(send.pointer(), sendcount, sendtype,
                                recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : receive.pointer(),
                                recvcount, recvtype, root, comm);
  return report(comm, receive.finish(send.finish(code)));
}

int MPI_Scatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  const bool is_root = comm_rank(comm) == root;
  Staged send(sendbuf, is_root ? span_of_blocks(sendcounts, displs, comm_size(comm), sendtype) : 0,
              true, false);
  Staged receive(recvbuf, recvbuf == MPI_IN_PLACE ? 0 : span_of(recvcount, recvtype), true, true);
  if (send.status() != MPI_SUCCESS || receive.status() != MPI_SUCCESS)
    return report(comm, send.status() != MPI_SUCCESS ? send.status() : receive.status());
  const int code = PMPI_Scatterv(send.pointer(), sendcounts, displs, sendtype,
                                 recvbuf == MPI_IN_PLACE ? MPI_IN_PLACE : receive.pointer(),
                                 recvcount, recvtype, root, comm);
  return report(comm, receive.finish(send.finish(code)));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  const int size = comm_size(comm);
  Pair buffers{{sendbuf, span_of(sendcount * size, sendtype), true, false},
               {recvbuf, span_of(recvcount * size, recvtype), true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Alltoall(buffers.send_pointer(sendbuf), sendcount, sendtype,
                                 buffers.receive.pointer(), recvcount, recvtype, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::size_t all = span_of(recvcount * comm_size(comm), type);
  Pair buffers{{sendbuf, all, true, false},
               {recvbuf, in_place ? all : span_of(recvcount, type), true, true}};
  if (buffers.status() != MPI_SUCCESS) return report(comm, buffers.status());
  const int code = PMPI_Reduce_scatter_block(buffers.send_pointer(sendbuf),
                                             buffers.receive.pointer(), recvcount, type, op, comm);
  return report(comm, buffers.finish(code));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  return staged_reduction(PMPI_Scan, sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm) {
  return staged_reduction(PMPI_Exscan, sendbuf, recvbuf, count, type, op, comm);
}

// ---- nonblocking forms (PetscSF's gather, scatter and all-to-all patterns use these) --------
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  return as_nonblocking(MPI_Allreduce(sendbuf, recvbuf, count, type, op, comm), request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  return as_nonblocking(MPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm), request);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Request* request) {
  if (!on_gpu(buffer)) return PMPI_Ibcast(buffer, count, type, root, comm, request);
  return as_nonblocking(MPI_Bcast(buffer, count, type, root, comm), request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           request);
  return as_nonblocking(
      MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                            comm, request);
  return as_nonblocking(
      MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),
      request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                        request);
  return as_nonblocking(
      MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                         comm, request);
  return as_nonblocking(
      MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),
      request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request);
  return as_nonblocking(
      MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), request);
}

int MPI_Iscatterv(const void* sendbuf, const int* sendcounts, const int* displs,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, request);
  return as_nonblocking(
      MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),
      request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!any_on_gpu(sendbuf, recvbuf))
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  return as_nonblocking(
      MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), request);
}

}  // extern "C"
