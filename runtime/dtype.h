/* Element types of fields and output arrays. */
#ifndef CL_DTYPE_H
#define CL_DTYPE_H

#include <stddef.h>

typedef enum cl_dtype { CL_F32 = 0, CL_F64, CL_I32, CL_U32, CL_U8, CL_DTYPE_COUNT } cl_dtype;

size_t cl_dtype_size(cl_dtype t);
const char *cl_dtype_name(cl_dtype t);
/* Parses "f32", "f64", "i32", "u32", "u8"; returns -1 when unknown. */
int cl_dtype_parse(const char *name);
/* Reads element i of a host array of type t as a double / writes v into it
 * (integers: truncated toward zero, saturated at the type's range, NaN -> 0). */
double cl_dtype_get(cl_dtype t, const void *base, size_t i);
void cl_dtype_put(cl_dtype t, void *base, size_t i, double v);
/* Whether v can be stored in type t (integers: within range after truncation; NaN never). */
int cl_dtype_fits(cl_dtype t, double v);

#endif
