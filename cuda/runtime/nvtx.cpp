// NVTX ranges, CUDA backend: the header-only NVTX 3 API from the CUDA toolkit. Without a
// profiler attached every call returns at once (the injection library is never loaded).

#include <nvtx3/nvToolsExt.h>

#include "foehn/runtime/nvtx.hpp"

namespace foehn {

namespace {

// One domain for all of Foehn, so Nsight can show or hide its ranges as a group.
nvtxDomainHandle_t foehn_domain() noexcept {
  static const nvtxDomainHandle_t domain = nvtxDomainCreateA("Foehn");
  return domain;
}

nvtxEventAttributes_t attributes_for(const char* name) noexcept {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name != nullptr ? name : "(unnamed)";
  return attributes;
}

}  // namespace

namespace detail {

void nvtx_push(const char* name) noexcept {
  const nvtxEventAttributes_t attributes = attributes_for(name);
  nvtxDomainRangePushEx(foehn_domain(), &attributes);
}

void nvtx_pop() noexcept {
  nvtxDomainRangePop(foehn_domain());
}

}  // namespace detail

void nvtx_mark(const char* name) noexcept {
  const nvtxEventAttributes_t attributes = attributes_for(name);
  nvtxDomainMarkEx(foehn_domain(), &attributes);
}

}  // namespace foehn
