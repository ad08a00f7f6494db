# Sourced by the issue-36 device scripts: the shared preamble (results folder, the bundle's
# runner, MPI as root, the PMIx noise filter) and the "before" variant of the core.
set -uo pipefail
out=${OUT:-/tmp/issue36}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
r=.gpu/run
quiet() { grep -v "pmix\|dlopen error\|Perhaps a missing"; }
# The core as it ran before issue 36's levers, with this tree's binary: cold Picard starts,
# Jacobi's zero-diagonal check on for the six Jacobi systems, the projection by CG to rtol 1e-10.
fixdiag_options=""
for system in theta qv qc qr momentum projection; do
  fixdiag_options+=" -${system}_pc_jacobi_fixdiagonal 1"
done
before_options="-picard_warm_start 0 $fixdiag_options -projection_ksp_type cg \
 -projection_ksp_norm_type preconditioned -projection_ksp_max_it 1000"
