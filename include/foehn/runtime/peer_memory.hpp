#pragma once
// Device memory shared between the processes of one host (CUDA IPC): a rank exports a buffer it
// allocated, a neighbouring rank on the same host maps it and copies into it GPU to GPU (over
// NVLink where the GPUs have it) instead of staging through host memory and MPI. The distributed
// stencil's halo exchange uses it (docs/scaling.md, "Foehn's own exchanges").
//
//   ExportedDeviceMemory mine(bytes);               // rank A
//   send mine.handle() to rank B over MPI;
//   MappedPeerMemory theirs(handle_from_A, bytes);  // rank B
//   copy_device_bytes_async(theirs.data(), local, bytes, stream);
#include <array>
#include <cstddef>

namespace foehn {

class Stream;

// cudaIpcMemHandle_t's 64 opaque bytes, which travel to the other process by MPI.
struct PeerMemoryHandle {
  std::array<unsigned char, 64> bytes{};
};

// `bytes` of the current device's memory from cudaMalloc (the stream-ordered pool's memory cannot
// be exported this way) that processes on this host may map. Throws foehn::Error (out_of_memory,
// or the CUDA error; unavailable in a build without CUDA).
class ExportedDeviceMemory {
 public:
  ExportedDeviceMemory() noexcept = default;
  explicit ExportedDeviceMemory(std::size_t bytes);
  ~ExportedDeviceMemory();
  ExportedDeviceMemory(ExportedDeviceMemory&& other) noexcept;
  ExportedDeviceMemory& operator=(ExportedDeviceMemory&& other) noexcept;
  ExportedDeviceMemory(const ExportedDeviceMemory&) = delete;
  ExportedDeviceMemory& operator=(const ExportedDeviceMemory&) = delete;

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  PeerMemoryHandle handle() const;

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Another process's ExportedDeviceMemory of `bytes` bytes mapped into this one, with peer access
// to its GPU enabled where the two GPUs allow it. Throws foehn::Error when CUDA refuses the
// handle (another host, the same process, a handle that was never exported).
class MappedPeerMemory {
 public:
  MappedPeerMemory() noexcept = default;
  MappedPeerMemory(const PeerMemoryHandle& handle, std::size_t bytes);
  ~MappedPeerMemory();
  MappedPeerMemory(MappedPeerMemory&& other) noexcept;
  MappedPeerMemory& operator=(MappedPeerMemory&& other) noexcept;
  MappedPeerMemory(const MappedPeerMemory&) = delete;
  MappedPeerMemory& operator=(const MappedPeerMemory&) = delete;

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Copies `bytes` from `source` to `destination` in stream order; either may be mapped peer
// memory (the unified address space tells the devices apart).
void copy_device_bytes_async(void* destination, const void* source, std::size_t bytes,
                             const Stream& stream);

}  // namespace foehn
