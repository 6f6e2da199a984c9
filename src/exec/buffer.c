/*
 * buffer.c
 *	  Buffer operator and plan refinement (issue 6) -- not written yet.
 */
#include "postgres.h"

#include "exec.h"

void
fpb_buffer_init(void)
{
}
