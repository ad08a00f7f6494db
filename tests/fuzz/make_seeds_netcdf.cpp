// Writes the generated seeds of the met_reader and particle_reader corpora (README.md):
//   foehn-fuzz-make-seeds-netcdf <corpus folder>   (tests/fuzz/corpus)
// Small valid files, written by write_met_file and write_particle_file (netCDF-4, so HDF5
// inside), their copies in the netCDF-3 formats the readers accept as well (CDF-1, CDF-2,
// CDF-5: a flat header the fuzzer mutates far more productively than HDF5's B-trees), and an
// ERA5-like met file written with netCDF-C directly. Each file names what it is.

#include <netcdf.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "foehn/particles/io/met_netcdf.hpp"
#include "foehn/particles/io/particle_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace foehn::particles;
constexpr double pi = std::numbers::pi;

void nc(int status, const char* what) {
  if (status == NC_NOERR) return;
  std::fprintf(stderr, "make_seeds_netcdf: %s: %s\n", what, nc_strerror(status));
  std::exit(1);
}

// netCDF-3 has no 64-bit or unsigned integers before CDF-5: the closest classic type.
nc_type classic_type(nc_type type, int format) {
  if (format == NC_64BIT_DATA) return type;
  if (type == NC_INT64 || type == NC_UINT64 || type == NC_UINT) return NC_INT;
  if (type == NC_UBYTE) return NC_BYTE;
  if (type == NC_USHORT) return NC_SHORT;
  return type;
}

// Copies a netCDF-4 file into a netCDF-3 format (format: NC_CLASSIC_MODEL's cmode flags, 0 for
// CDF-1), values converted through double (exact for the small integers and reals here).
void copy_to_classic(const fs::path& from, const fs::path& to, int format) {
  int in = -1, out = -1;
  nc(nc_open(from.c_str(), NC_NOWRITE, &in), "open");
  nc(nc_create(to.c_str(), NC_CLOBBER | format, &out), "create");
  int dimensions = 0, variables = 0, attributes = 0, unlimited = -1;
  nc(nc_inq(in, &dimensions, &variables, &attributes, &unlimited), "inq");
  for (int d = 0; d < dimensions; ++d) {
    char name[NC_MAX_NAME + 1] = {};
    std::size_t length = 0;
    nc(nc_inq_dim(in, d, name, &length), "inq_dim");
    int id = -1;
    nc(nc_def_dim(out, name, d == unlimited ? NC_UNLIMITED : length, &id), "def_dim");
  }
  for (int a = 0; a < attributes; ++a) {
    char name[NC_MAX_NAME + 1] = {};
    nc(nc_inq_attname(in, NC_GLOBAL, a, name), "inq_attname");
    nc(nc_copy_att(in, NC_GLOBAL, name, out, NC_GLOBAL), "copy_att");
  }
  for (int v = 0; v < variables; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    nc_type type = NC_NAT;
    int rank = 0, dims[NC_MAX_VAR_DIMS] = {}, natts = 0;
    nc(nc_inq_var(in, v, name, &type, &rank, dims, &natts), "inq_var");
    int id = -1;
    nc(nc_def_var(out, name, classic_type(type, format), rank, dims, &id), "def_var");
    for (int a = 0; a < natts; ++a) {
      char attribute[NC_MAX_NAME + 1] = {};
      nc(nc_inq_attname(in, v, a, attribute), "inq_attname");
      nc_type attribute_type = NC_NAT;
      std::size_t length = 0;
      nc(nc_inq_att(in, v, attribute, &attribute_type, &length), "inq_att");
      if (attribute_type == NC_CHAR || attribute_type == classic_type(attribute_type, format)) {
        nc(nc_copy_att(in, v, attribute, out, id), "copy_att");
      } else {
        std::vector<double> values(length);
        nc(nc_get_att_double(in, v, attribute, values.data()), "get_att");
        nc(nc_put_att_double(out, id, attribute, classic_type(attribute_type, format), length,
                             values.data()),
           "put_att");
      }
    }
  }
  nc(nc_enddef(out), "enddef");
  for (int v = 0; v < variables; ++v) {
    int rank = 0, dims[NC_MAX_VAR_DIMS] = {};
    nc(nc_inq_varndims(in, v, &rank), "inq_varndims");
    nc(nc_inq_vardimid(in, v, dims), "inq_vardimid");
    std::vector<std::size_t> start(static_cast<std::size_t>(rank), 0), count;
    std::size_t total = 1;
    for (int d = 0; d < rank; ++d) {
      std::size_t length = 0;
      nc(nc_inq_dimlen(in, dims[d], &length), "inq_dimlen");
      count.push_back(length);
      total *= length;
    }
    if (total == 0) continue;
    std::vector<double> values(total);
    nc(nc_get_vara_double(in, v, start.data(), count.data(), values.data()), "get_vara");
    nc(nc_put_vara_double(out, v, start.data(), count.data(), values.data()), "put_vara");
  }
  nc(nc_close(out), "close");
  nc(nc_close(in), "close");
}

MetGridGeometry tiny_grid() {
  MetGridGeometry g;
  g.nlon = 4;
  g.nlat = 3;
  g.first_longitude = -pi;
  g.first_latitude = -0.5 * pi;
  g.latitude_spacing = 0.5 * pi;
  g.pressure_levels = {100000.0, 50000.0};
  return g;
}

WindLevel tiny_wind(const MetGridGeometry& g, int time) {
  WindLevel w;
  for (std::size_t p = 0; p < g.point_count(); ++p) {
    w.u.push_back(10.0 + time + 0.25 * static_cast<double>(p));
    w.v.push_back(-2.0 + 0.5 * static_cast<double>(p));
    w.omega.push_back(0.125 * static_cast<double>(p % 5) - 0.25);
  }
  return w;
}

void write_met_seeds(const fs::path& folder) {
  const MetGridGeometry g = tiny_grid();
  const std::vector<double> times{0.0, 21600.0};
  const std::vector<WindLevel> winds{tiny_wind(g, 0), tiny_wind(g, 1)};
  write_met_file(folder / "gen_met_double.nc", g, times, winds);
  MetFileWriteOptions era5;
  era5.value_type = MetValueType::float32;
  era5.latitude_north_to_south = true;
  era5.pressure_in_hpa = true;
  era5.vertical_velocity = "w";
  era5.time_units = "hours since 1900-01-01 00:00:00";
  const std::vector<double> hours{3600.0, 7200.0};
  write_met_file(folder / "gen_met_float_n2s_hpa_w.nc", g, hours, winds, era5);
  write_met_file(folder / "gen_met_one_time.nc", g, {60.0}, {winds[0]});
  copy_to_classic(folder / "gen_met_double.nc", folder / "gen_met_cdf1.nc", 0);
  copy_to_classic(folder / "gen_met_float_n2s_hpa_w.nc", folder / "gen_met_cdf2_n2s.nc",
                  NC_64BIT_OFFSET);
  copy_to_classic(folder / "gen_met_one_time.nc", folder / "gen_met_cdf5_one_time.nc",
                  NC_64BIT_DATA);

  // As ERA5 files come: classic format, integer hPa levels, float winds with _FillValue and
  // missing_value, time in hours since 1900 as an int.
  int id = -1, time = -1, lev = -1, lat = -1, lon = -1;
  const fs::path path = folder / "gen_met_era5_like_cdf1.nc";
  nc(nc_create(path.c_str(), NC_CLOBBER, &id), "create");
  nc(nc_def_dim(id, "time", NC_UNLIMITED, &time), "def_dim");
  nc(nc_def_dim(id, "lev", 2, &lev), "def_dim");
  nc(nc_def_dim(id, "lat", 3, &lat), "def_dim");
  nc(nc_def_dim(id, "lon", 4, &lon), "def_dim");
  int time_var = -1, lev_var = -1, lat_var = -1, lon_var = -1, wind[3] = {-1, -1, -1};
  nc(nc_def_var(id, "time", NC_INT, 1, &time, &time_var), "def_var");
  nc(nc_def_var(id, "lev", NC_INT, 1, &lev, &lev_var), "def_var");
  nc(nc_def_var(id, "lat", NC_FLOAT, 1, &lat, &lat_var), "def_var");
  nc(nc_def_var(id, "lon", NC_FLOAT, 1, &lon, &lon_var), "def_var");
  const int dims[4] = {time, lev, lat, lon};
  const char* names[3] = {"u", "v", "w"};
  for (int c = 0; c < 3; ++c) nc(nc_def_var(id, names[c], NC_FLOAT, 4, dims, &wind[c]), "def_var");
  const auto text = [&](int var, const char* name, const std::string& value) {
    nc(nc_put_att_text(id, var, name, value.size(), value.c_str()), "put_att_text");
  };
  text(time_var, "units", "hours since 1900-01-01 00:00:00.0");
  text(lev_var, "units", "millibars");
  text(lat_var, "units", "degrees_north");
  text(lon_var, "units", "degrees_east");
  const float fill = -32767.0f;
  for (int c = 0; c < 3; ++c) {
    text(wind[c], "units", c < 2 ? "m s**-1" : "Pa s**-1");
    nc(nc_put_att_float(id, wind[c], "_FillValue", NC_FLOAT, 1, &fill), "put_att");
    nc(nc_put_att_float(id, wind[c], "missing_value", NC_FLOAT, 1, &fill), "put_att");
  }
  nc(nc_enddef(id), "enddef");
  const int hours_since_1900[2] = {1051896, 1051902};
  const int levels[2] = {1000, 500};
  const float latitudes[3] = {90.0f, 0.0f, -90.0f};
  const float longitudes[4] = {0.0f, 90.0f, 180.0f, 270.0f};
  const std::size_t start0[1] = {0}, two[1] = {2};
  nc(nc_put_vara_int(id, time_var, start0, two, hours_since_1900), "put time");
  nc(nc_put_var_int(id, lev_var, levels), "put lev");
  nc(nc_put_var_float(id, lat_var, latitudes), "put lat");
  nc(nc_put_var_float(id, lon_var, longitudes), "put lon");
  std::vector<float> values(2 * 2 * 3 * 4);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * static_cast<float>(i % 7);
  const std::size_t start[4] = {0, 0, 0, 0}, count[4] = {2, 2, 3, 4};
  for (int c = 0; c < 3; ++c)
    nc(nc_put_vara_float(id, wind[c], start, count, values.data()), "put");
  nc(nc_close(id), "close");
}

void write_particle_seeds(const fs::path& folder) {
  ParticleSet parcels;
  parcels.add(0.1, 0.7, 85000.0, 0.0, 1);
  parcels.add(-3.0, -1.5, 25000.0, 0.0, 7);
  parcels.add(6.2, 0.0, 101325.0, 0.0, 1234567890123);
  parcels.add_quantity("mass", 1.5);
  parcels.status[1] = ParcelStatus::left_domain;
  write_particle_file(parcels, folder / "gen_parcels_three.nc");
  ParticleSet plain;
  plain.add(1.0, 0.5, 50000.0, 3600.0, 42);
  write_particle_file(plain, folder / "gen_parcels_one.nc");
  write_particle_file(ParticleSet{}, folder / "gen_parcels_empty.nc");
  copy_to_classic(folder / "gen_parcels_three.nc", folder / "gen_parcels_three_cdf5.nc",
                  NC_64BIT_DATA);
  copy_to_classic(folder / "gen_parcels_one.nc", folder / "gen_parcels_one_cdf1.nc", 0);
  copy_to_classic(folder / "gen_parcels_empty.nc", folder / "gen_parcels_empty_cdf2.nc",
                  NC_64BIT_OFFSET);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus folder, e.g. tests/fuzz/corpus>\n", argv[0]);
    return 2;
  }
  const fs::path corpus = argv[1];
  fs::create_directories(corpus / "met_reader");
  fs::create_directories(corpus / "particle_reader");
  write_met_seeds(corpus / "met_reader");
  write_particle_seeds(corpus / "particle_reader");
  return 0;
}
