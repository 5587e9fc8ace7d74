# Peridynamic neighbour search (kernels/pd/neighbors.h). Include it from the
# top-level CMakeLists.txt after cleave_core is defined:
#   include(cmake/pd_neighbors.cmake)
# kernels/pd/neighbors_cpu.c and neighbors_cuda.cu are compiled by the
# kernels/*/*_cpu.c and *_cuda.cu globs (once per precision); the host file
# neighbors.c is compiled once, into cleave_core (added here unless a glob of
# the top-level file already did).
get_filename_component(CLEAVE_PD_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

get_target_property(CLEAVE_CORE_SOURCES cleave_core SOURCES)
if(NOT "${CLEAVE_PD_ROOT}/kernels/pd/neighbors.c" IN_LIST CLEAVE_CORE_SOURCES)
  target_sources(cleave_core PRIVATE ${CLEAVE_PD_ROOT}/kernels/pd/neighbors.c)
endif()

# bench_pd_neighbors [cpu|cuda] [N] [2|3] [f32|f64]: lattice neighbour search timings
add_executable(bench_pd_neighbors ${CLEAVE_PD_ROOT}/scripts/bench/bench_pd_neighbors.c)
target_link_libraries(bench_pd_neighbors PRIVATE cleave_core)
