#pragma once
// The Python object behind foehn.Mesh: it owns a C ABI mesh handle (destroyed with it).
#include "foehn/foehn.h"

struct foehn_mesh_s;

namespace foehn::python {

struct MeshHandle {
  foehn_mesh handle = nullptr;
  MeshHandle() = default;
  MeshHandle(const MeshHandle&) = delete;
  MeshHandle& operator=(const MeshHandle&) = delete;
  ~MeshHandle();
  // The mesh; invalid_input after close().
  const foehn_mesh_s& get() const;
};

}  // namespace foehn::python
