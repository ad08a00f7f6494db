#include "foehn/runtime/host_registration.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace foehn {

HostRegistration HostRegistration::try_register(void* data, std::size_t bytes) {
  HostRegistration registration;
  if (data == nullptr || bytes == 0) return registration;
  if (cudaHostRegister(data, bytes, cudaHostRegisterDefault) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later checks do not see it
    return registration;
  }
  registration.data_ = data;
  registration.bytes_ = bytes;
  return registration;
}

HostRegistration::~HostRegistration() { release(); }

HostRegistration::HostRegistration(HostRegistration&& other) noexcept
    : data_(other.data_), bytes_(other.bytes_) {
  other.data_ = nullptr;
  other.bytes_ = 0;
}

HostRegistration& HostRegistration::operator=(HostRegistration&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

bool HostRegistration::covers(const void* data, std::size_t bytes) const noexcept {
  if (data_ == nullptr) return false;
  const auto begin = reinterpret_cast<std::uintptr_t>(data_);
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  return start >= begin && start - begin <= bytes_ && bytes <= bytes_ - (start - begin);
}

void HostRegistration::release() noexcept {
  if (data_ != nullptr) {
    cudaHostUnregister(data_);  // nothing useful to do with a failure in a destructor
    data_ = nullptr;
    bytes_ = 0;
  }
}

}  // namespace foehn
