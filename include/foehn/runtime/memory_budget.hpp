#pragma once
// Resource requests checked before they are made: a size option or a file that asks for more
// memory than the machine has gets an error naming the request and the bytes it would need,
// instead of an allocation that the OS kills or that fails deep inside a reader.

#include <cstddef>
#include <string>
#include <string_view>

namespace foehn {

// Bytes of host memory available to a new allocation: the least of MemAvailable (or the
// physical memory), the remaining cgroup v2 limit (containers, batch jobs) and the
// environment variable FOEHN_MAX_MEMORY (bytes, or "64G", "512M": a share of a node that
// several runs use).
double available_host_memory_bytes();

// "1.5 GiB", "512 MiB", "3.0 kiB", "12 B".
std::string format_memory_size(double bytes);

// Throws foehn::Error(invalid_input) when `bytes` exceeds the available host memory:
//   "-parcels 4000000000 (56 B per parcel) would need 209 GiB of host memory, more than the
//    61.2 GiB available"
// `request` names what asks for it (the option and value, or the file and item).
void check_host_memory(std::string_view request, double bytes);

// Same against the free memory of the current CUDA device (`free_bytes`, from
// device_memory_info()); a separate function so that this header needs no CUDA.
void check_device_memory(std::string_view request, double bytes, std::size_t free_bytes);

}  // namespace foehn
