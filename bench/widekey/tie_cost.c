/*
 * Cost of a prefix tie (src/am/README.md, "Wide keys", "Why 8 bytes"):
 * binary search over 31 prefixes of a node, without and with a full-key
 * compare at each step (all prefixes tie; full keys in a slotted area at
 * the end of 8 KB pages), warm (8 pages) and cold (pages at random from
 * 64 MB).  gcc -O2 -o tie_cost tie_cost.c && ./tie_cost
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#define NP 8192              /* pages: 64 MB */
#define CAP 31
typedef struct { uint64_t k[CAP]; uint16_t off[CAP]; } node;
static unsigned char *pages;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
static int (*volatile cmpfn)(const void*, const void*, size_t) = memcmp;
static int search(unsigned char *pg, uint64_t k, const unsigned char *full, int ties)
{
	node *n = (node *) pg;
	int lo = 0, hi = CAP;
	while (lo < hi) {
		int mid = (lo + hi) / 2, below;
		if (!ties || n->k[mid] != k) below = n->k[mid] < k;
		else below = cmpfn(pg + n->off[mid] + 2, full, pg[n->off[mid]]) < 0;
		if (below) lo = mid + 1; else hi = mid;
	}
	return lo;
}
int main(void)
{
	pages = aligned_alloc(8192, (size_t) NP * 8192);
	srand(1);
	for (int p = 0; p < NP; p++) {
		unsigned char *pg = pages + (size_t) p * 8192;
		node *n = (node *) pg;
		for (int i = 0; i < CAP; i++) {
			n->k[i] = 42;  /* all prefixes tie */
			n->off[i] = 8192 - 64 - (CAP - i) * 40;
			pg[n->off[i]] = 32;
			snprintf((char *) pg + n->off[i] + 2, 33, "%032d", i * 2 + 1);
		}
	}
	int M = 2000000; long sink = 0; unsigned char key[33];
	for (int ties = 0; ties <= 1; ties++)
		for (int cold = 0; cold <= 1; cold++) {
			double t0 = now();
			for (int r = 0; r < M; r++) {
				int p = cold ? (rand() % NP) : (r & 7);
				snprintf((char *) key, 33, "%032d", (r % 62));
				sink += search(pages + (size_t) p * 8192, ties ? 42 : (uint64_t) (r % 62) / 2 + 41, key, ties);
			}
			printf("%s %s: %.1f ns/search\n", ties ? "all ties (5 full compares)" : "prefix only              ", cold ? "cold" : "warm", (now() - t0) / M);
		}
	/* baseline loop cost */
	double t0 = now();
	for (int r = 0; r < M; r++) { int p = rand() % NP; snprintf((char *) key, 33, "%032d", (r % 62)); sink += pages[(size_t) p * 8192 + 4096 + (r&63)]; }
	printf("loop overhead cold (rand+snprintf+1 miss): %.1f ns\n", (now() - t0) / M);
	return (int) (sink & 1);
}
