# Peridynamic neighbour search (kernels/pd/neighbors.h). Include it from the
# top-level CMakeLists.txt after cleave_core is defined:
#   include(cmake/pd_neighbors.cmake)
# kernels/pd/neighbors_cpu.c and neighbors_cuda.cu are already compiled by the
# kernels/*/*_cpu.c and *_cuda.cu globs (once per precision); the dispatch file
# is compiled once, into cleave_core.
get_filename_component(CLEAVE_PD_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

target_sources(cleave_core PRIVATE ${CLEAVE_PD_ROOT}/kernels/pd/neighbors.c)

# bench_pd_neighbors [cpu|cuda] [N] [dim] [f32|f64]: lattice neighbour search timings
add_executable(bench_pd_neighbors ${CLEAVE_PD_ROOT}/scripts/bench/bench_pd_neighbors.c)
target_link_libraries(bench_pd_neighbors PRIVATE cleave_core)
