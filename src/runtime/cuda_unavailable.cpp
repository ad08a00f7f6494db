// The CUDA entry points of a build without CUDA (FOEHN_CUDA=OFF). They all exist, so code
// and tests link the same way in every build, and each one that would need a GPU throws
// foehn::Error (unavailable) saying what was asked. Discovery reports "no device" instead,
// and NVTX ranges do nothing, so that code choosing a backend or instrumenting itself runs.

#include <string>
#include <string_view>

#include "foehn/runtime/cuda_call_counts.hpp"
#include "foehn/runtime/device.hpp"
#include "foehn/runtime/error.hpp"
#include "foehn/runtime/host_registration.hpp"
#include "foehn/runtime/memory.hpp"
#include "foehn/runtime/nvtx.hpp"
#include "foehn/runtime/peer_memory.hpp"
#include "foehn/runtime/scatter.hpp"
#include "foehn/runtime/stream.hpp"

namespace foehn {

bool start_counting_cuda_calls(std::string& why_not) {
  why_not = "Foehn was built without CUDA";
  return false;
}
bool counting_cuda_calls() noexcept {
  return false;
}
CudaCallCounts cuda_call_counts() noexcept {
  return {};
}

int cuda_device_count() noexcept {
  return 0;
}
DeviceInfo device_info(int index) {
  fail_built_without_cuda(detail::concat("device_info(", index, ")"));
}
void select_device(int index) {
  fail_built_without_cuda(detail::concat("select_device(", index, ")"));
}
int current_device() {
  fail_built_without_cuda("current_device()");
}
void synchronize_device() {
  fail_built_without_cuda("synchronize_device()");
}
DeviceMemoryInfo device_memory_info() {
  fail_built_without_cuda("device_memory_info()");
}

Stream::Stream() {
  fail_built_without_cuda("creating a CUDA stream");
}
Stream Stream::borrow(CUstream_st*) {
  fail_built_without_cuda("borrowing a CUDA stream");
}
Stream::~Stream() = default;
Stream::Stream(Stream&& other) noexcept : handle_(other.handle_) {
  other.handle_ = nullptr;
}
Stream& Stream::operator=(Stream&& other) noexcept {
  handle_ = other.handle_;
  other.handle_ = nullptr;
  return *this;
}
void Stream::synchronize() const {
  fail_built_without_cuda("Stream::synchronize");
}
bool Stream::query() const {
  fail_built_without_cuda("Stream::query");
}
void Stream::wait(const Event&) const {
  fail_built_without_cuda("Stream::wait");
}

Event::Event() {
  fail_built_without_cuda("creating a CUDA event");
}
Event::~Event() = default;
Event::Event(Event&& other) noexcept : handle_(other.handle_) {
  other.handle_ = nullptr;
}
Event& Event::operator=(Event&& other) noexcept {
  handle_ = other.handle_;
  other.handle_ = nullptr;
  return *this;
}
void Event::record(const Stream&) {
  fail_built_without_cuda("Event::record");
}
void Event::synchronize() const {
  fail_built_without_cuda("Event::synchronize");
}
bool Event::query() const {
  fail_built_without_cuda("Event::query");
}
int Stream::device() const {
  fail_built_without_cuda("Stream::device");
}
void order_streams(CUstream_st*, CUstream_st*) {
  fail_built_without_cuda("order_streams");
}
float elapsed_ms(const Event&, const Event&) {
  fail_built_without_cuda("elapsed_ms");
}

MemoryPool::MemoryPool(int device) : device_(device) {
  fail_built_without_cuda(detail::concat("MemoryPool(", device, ")"));
}
MemoryPool MemoryPool::current() {
  fail_built_without_cuda("MemoryPool::current()");
}
std::size_t MemoryPool::used_bytes() const {
  fail_built_without_cuda("MemoryPool::used_bytes");
}
std::size_t MemoryPool::reserved_bytes() const {
  fail_built_without_cuda("MemoryPool::reserved_bytes");
}
std::size_t MemoryPool::peak_used_bytes() const {
  fail_built_without_cuda("MemoryPool::peak_used_bytes");
}
void MemoryPool::reset_peak() {
  fail_built_without_cuda("MemoryPool::reset_peak");
}
std::uint64_t MemoryPool::release_threshold() const {
  fail_built_without_cuda("MemoryPool::release_threshold");
}
void MemoryPool::set_release_threshold(std::uint64_t) {
  fail_built_without_cuda("MemoryPool::set_release_threshold");
}
void MemoryPool::trim_to(std::size_t) {
  fail_built_without_cuda("MemoryPool::trim_to");
}

void nvtx_mark(const char*) noexcept {}

HostRegistration HostRegistration::try_register(void*, std::size_t bytes) {
  fail_built_without_cuda(detail::concat("page-locking ", bytes, " bytes of host memory"));
}
HostRegistration::~HostRegistration() = default;
HostRegistration::HostRegistration(HostRegistration&&) noexcept = default;
HostRegistration& HostRegistration::operator=(HostRegistration&&) noexcept = default;
bool HostRegistration::covers(const void*, std::size_t) const noexcept {
  return false;
}
void HostRegistration::release() noexcept {}

void scatter_async(const DeviceArray<double>& source, const DeviceArray<std::int32_t>&,
                   DeviceArray<double>&, const Stream&) {
  fail_built_without_cuda(detail::concat("scattering ", source.size(), " values on the device"));
}
void scatter_async(const double*, std::size_t count, const std::int32_t*, double*, const Stream&) {
  fail_built_without_cuda(detail::concat("scattering ", count, " values on the device"));
}

namespace detail {

void nvtx_push(const char*) noexcept {}
void nvtx_pop() noexcept {}

void* device_allocate(std::size_t count, std::size_t element_size, CUstream_st*) {
  fail_built_without_cuda(concat("allocating ", count * element_size, " bytes (", count,
                                 " elements of ", element_size, " bytes) of device memory"));
}
// Nothing can have been allocated, so there is nothing to free.
void device_free(void*, CUstream_st*) noexcept {}
void* pinned_allocate(std::size_t count, std::size_t element_size) {
  fail_built_without_cuda(concat("allocating ", count * element_size, " bytes (", count,
                                 " elements of ", element_size, " bytes) of pinned host memory"));
}
void pinned_free(void*) noexcept {}
void copy_async(void*, const void*, std::size_t bytes, CopyKind, CUstream_st*) {
  fail_built_without_cuda(concat("copying ", bytes, " bytes to or from device memory"));
}
void fill_bytes_async(void*, unsigned char, std::size_t bytes, CUstream_st*) {
  fail_built_without_cuda(concat("filling ", bytes, " bytes of device memory"));
}
void fill_pattern_async(void*, std::size_t count, const void*, std::size_t, CUstream_st*) {
  fail_built_without_cuda(concat("filling ", count, " elements of device memory"));
}

}  // namespace detail
ExportedDeviceMemory::ExportedDeviceMemory(std::size_t bytes) {
  fail_built_without_cuda(detail::concat("exporting ", bytes, " bytes of device memory"));
}
ExportedDeviceMemory::~ExportedDeviceMemory() = default;
ExportedDeviceMemory::ExportedDeviceMemory(ExportedDeviceMemory&&) noexcept = default;
ExportedDeviceMemory& ExportedDeviceMemory::operator=(ExportedDeviceMemory&&) noexcept = default;
PeerMemoryHandle ExportedDeviceMemory::handle() const {
  fail_built_without_cuda("ExportedDeviceMemory::handle");
}
MappedPeerMemory::MappedPeerMemory(const PeerMemoryHandle&, std::size_t) {
  fail_built_without_cuda("mapping another process's device memory");
}
MappedPeerMemory::~MappedPeerMemory() = default;
MappedPeerMemory::MappedPeerMemory(MappedPeerMemory&&) noexcept = default;
MappedPeerMemory& MappedPeerMemory::operator=(MappedPeerMemory&&) noexcept = default;
void copy_device_bytes_async(void*, const void*, std::size_t, const Stream&) {
  fail_built_without_cuda("copy_device_bytes_async");
}

}  // namespace foehn
