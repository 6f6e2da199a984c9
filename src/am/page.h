/*-------------------------------------------------------------------------
 *
 * page.h
 *	  What page.c shares with page_insert.c: the checked access to a node
 *	  and the in-page descent.
 *
 *-------------------------------------------------------------------------
 */
#ifndef FPB_PAGE_H
#define FPB_PAGE_H

#include "fpbtree.h"

extern void fpb_page_corrupt(BlockNumber blkno, const char *what);
extern uint16 fpb_descend(Page page, const FpbCmp *cmp, const FpbEntry *key,
						  BlockNumber blkno, uint16 *path, int *pidx);
extern int	fpb_node_find_lower(const FpbCmp *cmp, Page page, BlockNumber blkno,
								const uint64 *keys,
								const ItemPointerData *tids, int n,
								const FpbEntry *key);

/* Lines a page's nodes may use: up to its slotted area, if any. */
static inline int
fpb_page_nlines(Page page)
{
	return (((PageHeader) page)->pd_upper - FPB_DATA_START) / FPB_LINE;
}

/*
 * Validate a node reference found inside the page before following it.
 */
static inline char *
fpb_get_node(Page page, FpbPageOpaque opq, uint16 line, int width, int cap,
			 int kind, BlockNumber blkno)
{
	char	   *node;
	FpbNodeHeader *hdr;

	if (line == FPB_NONE || (int) line + width > opq->hwm)
		fpb_page_corrupt(blkno, "node reference outside the used lines");
	node = fpb_line(page, line);
	hdr = (FpbNodeHeader *) node;
	if (hdr->kind != kind || hdr->start + hdr->n > cap ||
		(hdr->start != 0 &&
		 (kind != FPB_NODE_LEAF || !(opq->flags & FPB_F_STARTS))))
		fpb_page_corrupt(blkno, "node header is invalid");
	return node;
}

#endif							/* FPB_PAGE_H */
