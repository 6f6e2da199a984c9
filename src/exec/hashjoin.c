/*
 * hashjoin.c
 *	  PrefetchHashJoin (issue 5) -- not written yet.
 */
#include "postgres.h"

#include "exec.h"

void
fpb_hashjoin_init(void)
{
}
