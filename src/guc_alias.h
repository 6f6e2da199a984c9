/*-------------------------------------------------------------------------
 *
 * guc_alias.h
 *	  Session-only short names for dotted boolean settings (guc_alias.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_GUC_ALIAS_H
#define FPB_GUC_ALIAS_H

extern void fpb_define_session_alias(const char *alias, const char *name,
									 const char *short_desc, bool *valueAddr);

#endif							/* FPB_GUC_ALIAS_H */
