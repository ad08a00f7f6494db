#pragma once
// staged: the published GPU pipeline of Fluidity-Atmosphere (seed paper, sections 3-4), kernel
// by kernel, written from its description. Every stage writes its results to global memory
// and the next stage reads them back:
//   1. gather (ele_val_*): element-local copies of the coordinates and of every nodal field;
//   2. transform_to_physical: physical shape derivatives and detwei for every element and
//      every point of the 11-point rule (E x 11 x 4 x 3 and E x 11 values);
//   3. coefficients at the quadrature points (the diffusion tensor, the advecting velocity of
//      the momentum operator): E x 11 x 9 (or x 3) values;
//   4. element matrices (dshape_tensor_dshape etc.) written as E x 16 R C values, and the
//      element RHS as E x 4 R;
//   5. a separate scatter kernel: binary search of each entry's slot in its CSR row and
//      atomicAdd; 6. the same for the RHS.
// It computes the same numbers as the fused strategies (same element math) and is the
// baseline every benchmark compares to.

#include <memory>
#include <vector>

#include "foehn/fe/cuda/assembler_state.cuh"

namespace foehn::fe {

namespace strategy_detail {

constexpr int kNgi = DefaultRule::ngi;

static __global__ void staged_gather_coordinates(const double* __restrict__ coordinates,
                                                 const std::int32_t* __restrict__ tets,
                                                 std::int64_t tet_count,
                                                 double* __restrict__ x_local) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t node = tets[e * 4 + i];
    for (int d = 0; d < 3; ++d) x_local[e * 12 + i * 3 + d] = coordinates[node * 3 + d];
  }
}

static __global__ void staged_gather_field(const double* __restrict__ field, int components,
                                           const std::int32_t* __restrict__ tets,
                                           std::int64_t tet_count, double* __restrict__ local) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t node = tets[e * 4 + i];
    for (int c = 0; c < components; ++c)
      local[(e * 4 + i) * components + c] = field[node * components + c];
  }
}

static __global__ void staged_transform_to_physical(const double* __restrict__ x_local,
                                                    std::int64_t tet_count,
                                                    double* __restrict__ dshape,
                                                    double* __restrict__ detwei) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  Mat<4, 3> x;
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 3; ++d) x.a[i][d] = x_local[e * 12 + i * 3 + d];
  P1Geometry g;
  if (transform_to_physical(x, DefaultRule{}, g) != TransformStatus::ok)       // unreachable: the
    g.detwei = Vec<kNgi>::filled(__longlong_as_double(0x7ff8000000000000LL));  // host checked
  for (int gi = 0; gi < kNgi; ++gi) {
    detwei[e * kNgi + gi] = g.detwei.v[gi];
    for (int i = 0; i < 4; ++i)
      for (int d = 0; d < 3; ++d) dshape[((e * kNgi + gi) * 4 + i) * 3 + d] = g.dn.a[i][d];
  }
}

// local: element-local nodal values (e * 4 + i) * Components + c -> values at the quadrature
// points, stored component-major, at_quad[(gi * Components + c) * tet_count + e], so that both
// this kernel's stores and the element kernel's loads are coalesced across a warp.
template <int Components>
__global__ void staged_coefficient_at_quadrature(const double* __restrict__ local,
                                                 std::int64_t tet_count,
                                                 double* __restrict__ at_quad) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  const Mat<kNgi, 4> n = p1_shape_at_quad(DefaultRule{});
  double nodal[4][Components];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int c = 0; c < Components; ++c) nodal[i][c] = local[(e * 4 + i) * Components + c];
#pragma unroll
  for (int gi = 0; gi < kNgi; ++gi)
#pragma unroll
    for (int c = 0; c < Components; ++c) {
      double v = 0.0;
#pragma unroll
      for (int i = 0; i < 4; ++i) v += n.a[gi][i] * nodal[i][c];
      at_quad[(gi * Components + c) * tet_count + e] = v;
    }
}

// Pointers to the arrays the earlier stages wrote.
struct StagedArrays {
  const double* x_local;
  const double* dshape;
  const double* detwei;
  const double* quad_coefficient;  // tensor (diffusion) or velocity (momentum) at quad points
};

template <class Op>
__global__ void staged_element_matrices(Op op, StagedArrays in, std::int64_t tet_count,
                                        double* __restrict__ matrices,
                                        double* __restrict__ vectors) {
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  ElementContext ctx{};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    ctx.nodes[i] = static_cast<std::int32_t>(e * 4 + i);  // fields are element-local now
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      ctx.x.a[i][d] = in.x_local[e * 12 + i * 3 + d];
      ctx.geometry.dn.a[i][d] = in.dshape[(e * kNgi * 4 + i) * 3 + d];  // P1: same at every point
    }
  }
#pragma unroll
  for (int gi = 0; gi < kNgi; ++gi) ctx.geometry.detwei.v[gi] = in.detwei[e * kNgi + gi];
  ctx.n = p1_shape_at_quad(DefaultRule{});

  ElementResult<Op> element;
  if constexpr (HasQuadratureCoefficient<Op>) {
    if (in.quad_coefficient) {  // the coefficient at the quadrature points, from stage 3
      constexpr int components = Op::quadrature_coefficient_components;
      double at_quad[kNgi * components];
#pragma unroll
      for (int q = 0; q < kNgi * components; ++q)
        at_quad[q] = in.quad_coefficient[q * tet_count + e];
      op.element_with_quadrature_coefficient(ctx, at_quad, element);
    } else {
      compute_element(op, ctx, element);
    }
  } else {
    compute_element(op, ctx, element);
  }
  double* out = matrices + e * (16 * R * C);
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < C; ++c) out[((i * 4 + j) * R + r) * C + c] = element.entry(i, j, r, c);
  if (vectors) {
#pragma unroll
    for (int k = 0; k < 4 * R; ++k) vectors[e * (4 * R) + k] = element.rhs(k);
  }
}

template <int R, int C>
__global__ void staged_assemble_csr_matrix(const std::int32_t* __restrict__ tets,
                                           std::int64_t tet_count,
                                           const std::int32_t* __restrict__ row_offsets,
                                           const std::int32_t* __restrict__ column_indices,
                                           const double* __restrict__ matrices, double* values) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const std::int32_t slot =
          block_slot(row_offsets, column_indices, tets[e * 4 + i], tets[e * 4 + j]);
      for (int rc = 0; rc < R * C; ++rc)
        atomicAdd(values + static_cast<std::int64_t>(slot) * (R * C) + rc,
                  matrices[e * (16 * R * C) + (i * 4 + j) * (R * C) + rc]);
    }
}

template <int R>
__global__ void staged_rhs_addto(const std::int32_t* __restrict__ tets, std::int64_t tet_count,
                                 const double* __restrict__ vectors, double* rhs) {
  const std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (e >= tet_count) return;
  for (int i = 0; i < 4; ++i)
    for (int r = 0; r < R; ++r)
      atomicAdd(rhs + static_cast<std::int64_t>(tets[e * 4 + i]) * R + r,
                vectors[e * (4 * R) + i * R + r]);
}

// What every stage's launch needs.
struct StagedLaunch {
  const Stream& stream;
  cudaStream_t s;
  std::int64_t e_count;
  unsigned grid;
  int block;
};

// Optional stage timing: events between the stages (the published breakdown).
class StagedPipelineMarks {
 public:
  StagedPipelineMarks(StagedPipelineTimes* profile, const Stream& stream)
      : profile_(profile),
        stream_(stream),
        marks_(profile ? std::make_unique<Event[]>(7) : nullptr) {}

  void stage_done() {
    if (profile_) marks_[mark_++].record(stream_);
  }

  void add_to_profile() {
    if (profile_) {
      marks_[mark_ - 1].synchronize();
      profile_->gather_ms += elapsed_ms(marks_[0], marks_[1]);
      profile_->transform_ms += elapsed_ms(marks_[1], marks_[2]);
      profile_->coefficient_ms += elapsed_ms(marks_[2], marks_[3]);
      profile_->element_ms += elapsed_ms(marks_[3], marks_[4]);
      profile_->scatter_ms += elapsed_ms(marks_[4], marks_[5]);
      profile_->rhs_ms += elapsed_ms(marks_[5], marks_[6]);
      ++profile_->calls;
    }
  }

 private:
  StagedPipelineTimes* profile_;
  const Stream& stream_;
  std::unique_ptr<Event[]> marks_;
  int mark_ = 0;
};

// The operator with its fields pointing at the element-local copies, which `gathered` owns.
// quad_source: the copy of the field the operator takes at the quadrature points (stage 3).
template <class Op>
Op launch_staged_field_gathers(CudaAssembler::Impl& impl, const Op& op, const StagedLaunch& launch,
                               std::vector<DeviceArray<double>>& gathered,
                               const double*& quad_source) {
  // The field the operator takes at the quadrature points, if any (stage 3).
  const double* quad_field = nullptr;
  if constexpr (HasQuadratureCoefficient<Op>) quad_field = op.quadrature_coefficient_field().data;
  return with_fields_replaced(op, [&](const FieldRef& field, int components, const char*) {
    gathered.emplace_back(launch.e_count * 4 * components, launch.stream);
    staged_gather_field<<<launch.grid, launch.block, 0, launch.s>>>(
        field.data, components, impl.tets.data(), launch.e_count, gathered.back().data());
    FOEHN_CUDA_CHECK_LAUNCH("staged gather field");
    if (field.data == quad_field) quad_source = gathered.back().data();
    return FieldRef{gathered.back().data(), launch.e_count * 4 * components};
  });
}

// Empty when the operator takes no coefficient at the quadrature points.
template <class Op>
DeviceArray<double> launch_staged_coefficient_at_quadrature(const StagedLaunch& launch,
                                                            const double* quad_source) {
  DeviceArray<double> at_quad;
  if constexpr (HasQuadratureCoefficient<Op>) {
    if (quad_source) {
      constexpr int components = Op::quadrature_coefficient_components;
      at_quad = DeviceArray<double>(launch.e_count * kNgi * components, launch.stream);
      staged_coefficient_at_quadrature<components>
          <<<launch.grid, launch.block, 0, launch.s>>>(quad_source, launch.e_count, at_quad.data());
      FOEHN_CUDA_CHECK_LAUNCH("staged coefficient at quadrature");
    }
  }
  return at_quad;
}

}  // namespace strategy_detail

template <class Op>
void assemble_staged(CudaAssembler::Impl& impl, const Op& op, const DeviceAssemblyTarget& target) {
  using namespace strategy_detail;
  constexpr int R = Op::block_rows, C = Op::block_cols;
  const Stream& stream = *impl.stream;
  const cudaStream_t s = impl.native_stream();
  const std::int64_t e_count = impl.tet_count;
  const unsigned grid = impl.grid_for(e_count);
  const int block = impl.options.block_size;
  const StagedLaunch launch{stream, s, e_count, grid, block};
  StagedPipelineMarks marks(impl.options.staged_profile, stream);
  marks.stage_done();

  // 1. gathers
  DeviceArray<double> x_local(e_count * 12, stream);
  staged_gather_coordinates<<<grid, block, 0, s>>>(impl.coordinates.data(), impl.tets.data(),
                                                   e_count, x_local.data());
  FOEHN_CUDA_CHECK_LAUNCH("staged gather coordinates");
  std::vector<DeviceArray<double>> gathered;
  gathered.reserve(4);
  const double* quad_source = nullptr;
  const Op local_op = launch_staged_field_gathers(impl, op, launch, gathered, quad_source);
  marks.stage_done();
  // 2. transform_to_physical at every quadrature point
  DeviceArray<double> dshape(e_count * kNgi * 12, stream), detwei(e_count * kNgi, stream);
  staged_transform_to_physical<<<grid, block, 0, s>>>(x_local.data(), e_count, dshape.data(),
                                                      detwei.data());
  FOEHN_CUDA_CHECK_LAUNCH("staged transform_to_physical");
  marks.stage_done();
  // 3. the operator's coefficient at the quadrature points (diffusion tensor, advecting velocity)
  DeviceArray<double> at_quad = launch_staged_coefficient_at_quadrature<Op>(launch, quad_source);
  marks.stage_done();
  // 4. element matrices and vectors to global memory
  DeviceArray<double> matrices(e_count * 16 * R * C, stream);
  const bool with_rhs = target.rhs != nullptr;
  DeviceArray<double> vectors(with_rhs ? e_count * 4 * R : 0, stream);
  const StagedArrays arrays{x_local.data(), dshape.data(), detwei.data(),
                            at_quad.size() > 0 ? at_quad.data() : nullptr};
  staged_element_matrices<Op><<<grid, block, 0, s>>>(local_op, arrays, e_count, matrices.data(),
                                                     with_rhs ? vectors.data() : nullptr);
  FOEHN_CUDA_CHECK_LAUNCH("staged element matrices");
  marks.stage_done();
  // 5. scatter by binary search + atomicAdd; 6. the RHS
  zero_target(impl, target);
  staged_assemble_csr_matrix<R, C>
      <<<grid, block, 0, s>>>(impl.tets.data(), e_count, impl.row_offsets.data(),
                              impl.column_indices.data(), matrices.data(), target.values);
  FOEHN_CUDA_CHECK_LAUNCH("staged assemble_csr_matrix");
  marks.stage_done();
  if (with_rhs) {
    staged_rhs_addto<R>
        <<<grid, block, 0, s>>>(impl.tets.data(), e_count, vectors.data(), target.rhs);
    FOEHN_CUDA_CHECK_LAUNCH("staged rhs_addto");
  }
  marks.stage_done();
  marks.add_to_profile();
}

}  // namespace foehn::fe

#define FOEHN_INSTANTIATE_CUDA_STAGED(Op)                                              \
  template void foehn::fe::assemble_staged(foehn::fe::CudaAssembler::Impl&, const Op&, \
                                           const foehn::fe::DeviceAssemblyTarget&);
