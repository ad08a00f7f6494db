// libfoehn_device_collectives (preloaded by ctest, as bench/scaling/with_cuda_ucx.sh does): every
// collective it intercepts gives, on GPU buffers, what MPI gives on host buffers (in place or
// not, blocking or not), and host buffers pass through untouched. The GPU cases skip where no
// device exists; the pass-through runs everywhere.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

int rank_of() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int size_of() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

bool gpu_present() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return devices > 0;
}

// A device copy of a host vector, freed at scope exit.
class DeviceVector {
 public:
  explicit DeviceVector(const std::vector<double>& host) : size_(host.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_),
                         std::max<std::size_t>(1, size_) * sizeof(double)),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  ~DeviceVector() { cudaFree(data_); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  double* data() { return data_; }
  std::vector<double> host() const {
    std::vector<double> values(size_);
    EXPECT_EQ(cudaMemcpy(values.data(), data_, size_ * sizeof(double), cudaMemcpyDeviceToHost),
              cudaSuccess);
    return values;
  }

 private:
  double* data_ = nullptr;
  std::size_t size_;
};

std::vector<double> values_of_rank(int rank, int count) {
  std::vector<double> values(count);
  for (int i = 0; i < count; ++i) values[i] = 1000.0 * rank + i + 0.25;
  return values;
}

#define REQUIRE_GPU()                                          \
  do {                                                         \
    if (!gpu_present()) GTEST_SKIP() << "no CUDA device here"; \
  } while (0)

TEST(DeviceCollectives, TheLibraryIsTheOneAnsweringMpiCalls) {
  void* symbol = dlsym(RTLD_DEFAULT, "MPI_Allreduce");
  Dl_info where{};
  ASSERT_NE(dladdr(symbol, &where), 0);
  EXPECT_NE(std::string(where.dli_fname).find("libfoehn_device_collectives"), std::string::npos)
      << "MPI_Allreduce comes from " << where.dli_fname << ": run with LD_PRELOAD";
}

TEST(DeviceCollectives, HostBuffersPassThroughUnchanged) {
  const int rank = rank_of(), size = size_of();
  std::vector<double> mine = values_of_rank(rank, 5), sum(5), gathered(5 * size);
  MPI_Allreduce(mine.data(), sum.data(), 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allgather(mine.data(), 5, MPI_DOUBLE, gathered.data(), 5, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Request request;
  std::vector<double> maximum(5);
  MPI_Iallreduce(mine.data(), maximum.data(), 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int i = 0; i < 5; ++i) {
    double expected = 0;
    for (int r = 0; r < size; ++r) expected += values_of_rank(r, 5)[i];
    EXPECT_EQ(sum[i], expected);
    EXPECT_EQ(maximum[i], values_of_rank(size - 1, 5)[i]);
    for (int r = 0; r < size; ++r) EXPECT_EQ(gathered[5 * r + i], values_of_rank(r, 5)[i]);
  }
}

// PETSc's start-up test of a GPU-aware MPI, as PETSc runs it.
TEST(DeviceCollectives, PetscsGpuAwarenessCheckPasses) {
  REQUIRE_GPU();
  DeviceVector buffer({1.0, 0.0});
  ASSERT_EQ(MPI_Allreduce(buffer.data(), buffer.data() + 1, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF),
            MPI_SUCCESS);
  EXPECT_EQ(buffer.host()[1], 1.0);
}

TEST(DeviceCollectives, ReductionsOnGpuBuffersEqualTheHostOnes) {
  REQUIRE_GPU();
  const int rank = rank_of(), count = 1000;
  const std::vector<double> mine = values_of_rank(rank, count);
  std::vector<double> host_sum(count), host_prefix(count);
  MPI_Allreduce(mine.data(), host_sum.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(mine.data(), host_prefix.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  DeviceVector send(mine), receive(std::vector<double>(count, -1.0)), in_place(mine),
      prefix{std::vector<double>(count)};
  ASSERT_EQ(MPI_Allreduce(send.data(), receive.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
            MPI_SUCCESS);
  ASSERT_EQ(
      MPI_Allreduce(MPI_IN_PLACE, in_place.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
      MPI_SUCCESS);
  ASSERT_EQ(MPI_Scan(send.data(), prefix.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(receive.host(), host_sum);
  EXPECT_EQ(in_place.host(), host_sum);
  EXPECT_EQ(prefix.host(), host_prefix);
  EXPECT_EQ(send.host(), mine) << "the send buffer must not change";

  DeviceVector reduced(std::vector<double>(count, -1.0));
  ASSERT_EQ(MPI_Reduce(send.data(), reduced.data(), count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  if (rank == 0) {
    EXPECT_EQ(reduced.host(), host_sum);
  } else {
    EXPECT_EQ(reduced.host(), std::vector<double>(count, -1.0)) << "only the root receives";
  }

  MPI_Request request;
  DeviceVector nonblocking{std::vector<double>(count)};
  ASSERT_EQ(MPI_Iallreduce(send.data(), nonblocking.data(), count, MPI_DOUBLE, MPI_SUM,
                           MPI_COMM_WORLD, &request),
            MPI_SUCCESS);
  MPI_Status status;
  ASSERT_EQ(MPI_Wait(&request, &status), MPI_SUCCESS);
  EXPECT_EQ(nonblocking.host(), host_sum);
}

TEST(DeviceCollectives, GathersScattersAndBroadcastsOnGpuBuffersEqualTheHostOnes) {
  REQUIRE_GPU();
  const int rank = rank_of(), size = size_of();
  // Rank r contributes r + 1 values (the v-forms), placed with a gap of two between blocks.
  std::vector<int> counts(size), displacements(size);
  for (int r = 0; r < size; ++r) {
    counts[r] = r + 1;
    displacements[r] = r == 0 ? 0 : displacements[r - 1] + counts[r - 1] + 2;
  }
  const int total = displacements[size - 1] + counts[size - 1];
  const std::vector<double> mine = values_of_rank(rank, counts[rank]);
  std::vector<double> expected(total, -1.0);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < counts[r]; ++i)
      expected[displacements[r] + i] = values_of_rank(r, counts[r])[i];

  DeviceVector send(mine), all(std::vector<double>(total, -1.0)),
      rooted(std::vector<double>(total, -1.0));
  ASSERT_EQ(MPI_Allgatherv(send.data(), counts[rank], MPI_DOUBLE, all.data(), counts.data(),
                           displacements.data(), MPI_DOUBLE, MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(all.host(), expected);
  MPI_Request request;
  ASSERT_EQ(MPI_Igatherv(send.data(), counts[rank], MPI_DOUBLE, rooted.data(), counts.data(),
                         displacements.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD, &request),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (rank == 0) {
    EXPECT_EQ(rooted.host(), expected);
  }

  // Back again: the root scatters the blocks, each rank receives its own.
  DeviceVector source(expected), back(std::vector<double>(counts[rank], 0.0));
  ASSERT_EQ(MPI_Scatterv(source.data(), counts.data(), displacements.data(), MPI_DOUBLE,
                         back.data(), counts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(back.host(), mine);

  // Fixed-size forms: three values a rank.
  const std::vector<double> three = values_of_rank(rank, 3);
  std::vector<double> three_all(3 * size);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < 3; ++i) three_all[3 * r + i] = values_of_rank(r, 3)[i];
  DeviceVector three_send(three), three_gathered(std::vector<double>(3 * size));
  ASSERT_EQ(MPI_Iallgather(three_send.data(), 3, MPI_DOUBLE, three_gathered.data(), 3, MPI_DOUBLE,
                           MPI_COMM_WORLD, &request),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(three_gathered.host(), three_all);
  DeviceVector exchanged(std::vector<double>(3 * size));
  DeviceVector outgoing(std::vector<double>(3 * size, 10.0 * rank));
  ASSERT_EQ(
      MPI_Alltoall(outgoing.data(), 3, MPI_DOUBLE, exchanged.data(), 3, MPI_DOUBLE, MPI_COMM_WORLD),
      MPI_SUCCESS);
  const std::vector<double> received = exchanged.host();
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(received[3 * r + i], 10.0 * r);

  DeviceVector broadcast(rank == 0 ? three : std::vector<double>(3, 0.0));
  ASSERT_EQ(MPI_Bcast(broadcast.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(broadcast.host(), values_of_rank(0, 3));
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  MPI_Init(&argc, &argv);
  if (gpu_present()) {
    int ranks_on_host = 0, devices = 0;
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &ranks_on_host);
    MPI_Comm_free(&host);
    cudaGetDeviceCount(&devices);
    cudaSetDevice(ranks_on_host % devices);  // one GPU per rank where there are several
  }
  if (rank_of() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
