#pragma once
// Counter-based random numbers for the stochastic parcel physics, drawn inside the kernels.
//
// Each draw is Philox4x32-10 (Random123, Debian librandom123-dev) keyed by the parcel's
// persistent 64-bit id, with the counter (step index, draw index, seed). A parcel therefore
// gets the same numbers whatever its position in the arrays, which thread runs it, or how
// often the set was sorted: sorted and unsorted runs are identical parcel by parcel. One
// draw gives two standard normals (Box-Muller on two 64-bit uniforms).

#include <cstdint>

#include <Random123/boxmuller.hpp>
#include <Random123/philox.h>
#include <Random123/uniform.hpp>

#include "foehn/runtime/host_device.hpp"

namespace foehn::particles {

struct NumberPair {
  double first, second;
};

namespace detail {
struct Bits128 {
  std::uint64_t low, high;
};
// 128 random bits for key `id` and counter (index, draw, seed).
FOEHN_HD Bits128 philox_bits(std::int64_t id, std::int64_t index, std::uint32_t draw,
                             std::uint32_t seed) {
  const auto id_bits = static_cast<std::uint64_t>(id);
  const auto index_bits = static_cast<std::uint64_t>(index);
  const r123::Philox4x32::key_type key = {
      {static_cast<std::uint32_t>(id_bits), static_cast<std::uint32_t>(id_bits >> 32)}};
  const r123::Philox4x32::ctr_type counter = {
      {static_cast<std::uint32_t>(index_bits), static_cast<std::uint32_t>(index_bits >> 32), draw,
       seed}};
  const r123::Philox4x32::ctr_type bits = r123::Philox4x32{}(counter, key);
  return Bits128{bits.v[0] | (static_cast<std::uint64_t>(bits.v[1]) << 32),
                 bits.v[2] | (static_cast<std::uint64_t>(bits.v[3]) << 32)};
}
}  // namespace detail

// Two independent N(0, 1) numbers for (parcel id, step, draw, seed). `draw` separates the
// uses within one step (diffusion, subgrid winds, ...).
FOEHN_HD NumberPair parcel_normals(std::int64_t parcel_id, std::int64_t step, std::uint32_t draw,
                                   std::uint32_t seed) {
  const detail::Bits128 bits = detail::philox_bits(parcel_id, step, draw, seed);
  const r123::double2 normals = r123::boxmuller(bits.low, bits.high);
  return NumberPair{normals.x, normals.y};
}

// Two independent uniform numbers in (0, 1] from the same generator, for synthetic fields that
// need reproducible random phases.
FOEHN_HD NumberPair keyed_uniforms(std::int64_t stream_id, std::int64_t index, std::uint32_t draw,
                                   std::uint32_t seed) {
  const detail::Bits128 bits = detail::philox_bits(stream_id, index, draw, seed);
  return NumberPair{r123::u01<double>(bits.low), r123::u01<double>(bits.high)};
}

}  // namespace foehn::particles
