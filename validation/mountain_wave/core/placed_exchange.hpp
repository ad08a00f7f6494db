#pragma once
// Node fields in PlacedArrays (host or device memory, local nodes) to and from PETSc vectors
// (owned nodes), through a petsc::NodeExchange: the owned values are copied, ghosts receive
// their owners' values.
#include <petscvec.h>

#include <span>

#include "foehn/petsc/node_exchange.hpp"
#include "foehn/runtime/placed_array.hpp"

namespace foehn::mountainwave {

inline void to_global(const petsc::NodeExchange& exchange, const PlacedArray<double>& local,
                      Vec global) {
  if (local.on_device())
    exchange.local_to_global(local.data(), local.size(), global, petsc::ExchangeMode::insert,
                             local.placement().stream());
  else
    exchange.local_to_global(std::span<const double>(local.data(), local.size()), global,
                             petsc::ExchangeMode::insert);
}

inline void to_local(const petsc::NodeExchange& exchange, Vec global, PlacedArray<double>& local) {
  if (local.on_device())
    exchange.global_to_local(global, local.data(), local.size(), local.placement().stream());
  else
    exchange.global_to_local(global, std::span<double>(local.data(), local.size()));
}

}  // namespace foehn::mountainwave
