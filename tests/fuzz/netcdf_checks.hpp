#pragma once
// A check for the netCDF fuzz targets that LeakSanitizer cannot make: that the reader closed
// every file it opened, whether it returned or threw. (Leaks inside netCDF and HDF5 are
// suppressed, lsan.supp, since netCDF 4.9.0 leaks on its own when nc_open fails; a Foehn reader
// that forgot nc_close would hide behind that suppression.) netCDF gives a new dataset the
// lowest free slot of its table, so the id of a probe dataset grows when one is left open.

#include <netcdf.h>
#include <netcdf_mem.h>

#include "fuzz_support.hpp"

namespace foehn::fuzz {

inline int next_netcdf_slot() {
  int id = -1;
  require(nc_create_mem("foehn-fuzz-probe", NC_CLOBBER, 0, &id) == NC_NOERR,
          "(harness) an in-memory netCDF probe can be created");
  nc_abort(id);
  return id;
}

// Call after every input: the first call records the slot of a process with no file open.
inline void require_no_open_netcdf_file() {
  static const int free_slot = next_netcdf_slot();
  require(next_netcdf_slot() == free_slot, "every netCDF file the reader opened is closed");
}

}  // namespace foehn::fuzz
