/*-------------------------------------------------------------------------
 *
 * cpucache.c
 *	  Read cpu0's cache descriptions from
 *	  /sys/devices/system/cpu/cpu0/cache/index<N>/{level,type,size}.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "cpucache.h"

static bool
fpb_read_sysfs(int idx, const char *name, char *buf, int len)
{
	char		path[MAXPGPATH];
	FILE	   *f;
	bool		ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s",
			 idx, name);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	return ok;
}

/*
 * Fill caches[] (FPB_MAX_CPU_CACHES entries at most) with the caches whose
 * level, type and size can be read; returns how many.  None on a system
 * without that sysfs tree.
 */
int
fpb_cpu_caches(FpbCpuCache *caches)
{
	int			n = 0;
	int			idx;

	for (idx = 0; idx < FPB_MAX_CPU_CACHES; idx++)
	{
		char		level[32];
		char		type[32];
		char		size[32];
		char	   *unit;
		int64		bytes;

		if (!fpb_read_sysfs(idx, "level", level, sizeof(level)))
			break;				/* the index directories are numbered densely */
		if (!fpb_read_sysfs(idx, "type", type, sizeof(type)) ||
			!fpb_read_sysfs(idx, "size", size, sizeof(size)))
			continue;
		bytes = strtol(size, &unit, 10);
		if (*unit == 'K')
			bytes *= 1024;
		else if (*unit == 'M')
			bytes *= 1024 * 1024;
		if (bytes <= 0)
			continue;
		caches[n].level = atoi(level);
		caches[n].instruction = strncmp(type, "Instruction", 11) == 0;
		caches[n].bytes = bytes;
		n++;
	}
	return n;
}
