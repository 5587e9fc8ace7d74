/* The DDA host passes (detection, the contacts' geometry, the pattern, the update's transpose)
 * run in parallel with OpenMP above this many items; below it threads cost more than they save. */
#ifndef CL_DDA_HOST_PARALLEL_H
#define CL_DDA_HOST_PARALLEL_H

#define CL_DDA_PARALLEL_MIN 512

#endif
