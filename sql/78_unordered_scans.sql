--
-- 78_unordered_scans: index-only scans whose row order no plan node uses
-- (a plain aggregate of order-insensitive functions, through Gather,
-- Append, Result or a subquery) hand each leaf's rows over grouped by
-- visibility-map page.  They count what btree counts, serially and in
-- parallel, on narrow, wide, multi-column and run pages, on partitions and
-- in rescanned subplans; scans whose order something uses keep key order.
-- fpbtree.debug_group_blocks makes a group a few heap blocks, so that these
-- small tables have many groups.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/parallel.sql
\set ECHO all

-- ug_f with fpbtree indexes, ug_b with btree ones: the heap in random key
-- order, NULLs, duplicates, a low-cardinality column (pages of runs)
CREATE FUNCTION ug_make() RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	am text;
BEGIN
	FOREACH am IN ARRAY ARRAY['f', 'b'] LOOP
		EXECUTE format('CREATE TABLE ug_%s (a int8, b int4, d int4, t text COLLATE "C", pad text) WITH (autovacuum_enabled = off)', am);
		EXECUTE format($q$INSERT INTO ug_%s
			SELECT CASE WHEN g %% 29 = 0 THEN NULL ELSE hashint8(g) %% 5000 END,
				   g %% 7, g %% 11,
				   CASE WHEN g %% 31 = 0 THEN NULL ELSE md5((g %% 4000)::text) END,
				   repeat('x', 40)
			FROM generate_series(1, 20000) g ORDER BY hashint4(g)$q$, am);
		EXECUTE format('CREATE INDEX ug_%s_a ON ug_%s USING %s (a)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
		EXECUTE format('CREATE INDEX ug_%s_t ON ug_%s USING %s (t)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
		EXECUTE format('CREATE INDEX ug_%s_ba ON ug_%s USING %s (b, a)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
		EXECUTE format('CREATE INDEX ug_%s_d ON ug_%s USING %s (d)', am, am,
					   CASE am WHEN 'f' THEN 'fpbtree' ELSE 'btree' END);
	END LOOP;
END $$;
SELECT ug_make();
VACUUM ANALYZE ug_f, ug_b;

-- q ({T} = the table) on ug_f, serially and with 2 and 4 workers (in a
-- parallel index-only scan), against ug_b
CREATE FUNCTION ug_same(q text) RETURNS text
LANGUAGE sql AS $$
	SELECT par_same(replace(q, '{T}', 'ug_f'), replace(q, '{T}', 'ug_b'),
					'ug_f_[a-z]+', false, 0)
$$;

-- the same for plans the planner keeps serial, the rows alone (serially
-- only, without par: where the rows show the order, which a parallel
-- plan's interleaving changes)
CREATE FUNCTION ug_same_rows(q text, par bool DEFAULT true) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ref text[] := par_rows(replace(q, '{T}', 'ug_b'), 0);
BEGIN
	IF fpb_explain(replace(q, '{T}', 'ug_f')) !~ 'Index Only Scan (Backward )?using ug_f_' THEN
		RETURN 'no index-only scan';
	END IF;
	FOR w IN 0..CASE WHEN par THEN 2 ELSE 0 END BY 2 LOOP
		IF par_rows(replace(q, '{T}', 'ug_f'), w) IS DISTINCT FROM ref THEN
			RETURN format('%s workers: got %s, expected %s', w,
						  par_rows(replace(q, '{T}', 'ug_f'), w), ref);
		END IF;
	END LOOP;
	RETURN 'ok';
END $$;

-- counters of the session's grouping scans: did q group?
CREATE FUNCTION ug_grouped(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	s record;
BEGIN
	PERFORM fpbtree_scan_stats_reset();
	PERFORM par_mode(0);
	EXECUTE replace(q, '{T}', 'ug_f');
	SELECT * INTO s FROM fpbtree_scan_stats();
	RETURN format('scans %s, batches %s', s.grouping_scans,
				  CASE WHEN s.grouped_batches > 0 THEN 'some' ELSE 'none' END);
END $$;

SET fpbtree.debug_group_blocks = 3;

-- a count over most of the table: Index Only Scan under a plain Aggregate
SELECT fpb_explain('SELECT count(*) FROM ug_f WHERE a >= 100');
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE a >= 100');
SELECT ug_same('SELECT count(*) FROM {T} WHERE a >= 100');

-- the aggregates whose result does not depend on the row order
SELECT ug_grouped('SELECT count(a), sum(a), avg(a), min(a), max(a), bit_and(a), bit_or(a), bit_xor(a), bool_and(a > 0), bool_or(a > 4990), every(a <> 7) FROM {T} WHERE a >= 100');
SELECT ug_same('SELECT count(a), sum(a), avg(a), min(a), max(a), bit_and(a), bit_or(a), bit_xor(a), bool_and(a > 0), bool_or(a > 4990), every(a <> 7) FROM {T} WHERE a >= 100');
SELECT ug_same('SELECT count(DISTINCT a), count(*) FILTER (WHERE a % 3 = 0) FROM {T} WHERE a < 4000');
SELECT ug_same('SELECT count(*) FROM {T} WHERE a IS NULL');
SELECT ug_same('SELECT count(*) FROM {T} WHERE a IS NOT NULL');
SELECT ug_same_rows('SELECT count(*) FROM {T} WHERE a = ANY (ARRAY[1, 7, 7, 4000, 4999, -3])');
SELECT ug_same_rows('SELECT count(*) FROM {T} WHERE a > 9999');
-- through a subquery, a projection and a HAVING on the aggregate
SELECT ug_same('SELECT count(*), sum(x) FROM (SELECT a + 1 AS x FROM {T} WHERE a BETWEEN 10 AND 3000) s');
SELECT ug_same('SELECT count(*) FROM {T} WHERE a > 10 HAVING count(*) > 5');
-- a backward scan (a subquery's ORDER BY that nothing uses), whose sorted
-- batches end with the group it holds
SELECT fpb_explain('SELECT count(*), sum(a) FROM (SELECT a FROM ug_f WHERE a >= 100 ORDER BY a DESC) s');
SELECT ug_grouped('SELECT count(*), sum(a) FROM (SELECT a FROM {T} WHERE a >= 100 ORDER BY a DESC) s');
SELECT ug_same_rows('SELECT count(*), sum(a), min(a), max(a) FROM (SELECT a FROM {T} WHERE a >= 100 ORDER BY a DESC) s');

-- under a Buffer (src/exec), which hands its child's rows on in their order
SET fpbtree.l1i_cache_size = '4kB';
SELECT fpb_explain('SELECT count(*) FROM ug_f WHERE a >= 100');
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE a >= 100');
SELECT ug_same('SELECT count(*), sum(a) FROM {T} WHERE a >= 100');
RESET fpbtree.l1i_cache_size;

-- a wide index (text under "C"), a multi-column one, pages of runs
SELECT ug_grouped('SELECT count(t) FROM {T} WHERE t >= ''3''');
SELECT ug_same('SELECT count(t), count(DISTINCT t) FROM {T} WHERE t >= ''3''');
SELECT ug_same('SELECT count(*), sum(a) FROM {T} WHERE b = 3 AND a > 1000');
SELECT ug_same('SELECT count(*), sum(b) FROM {T} WHERE b >= 2');
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE d BETWEEN 2 AND 8');
SELECT ug_same('SELECT count(*), sum(d) FROM {T} WHERE d BETWEEN 2 AND 8');

-- a covering index: numeric sums of an INCLUDE column
CREATE TABLE ugi_f (a int4, n numeric) WITH (autovacuum_enabled = off);
INSERT INTO ugi_f SELECT hashint4(g) % 1000, CASE WHEN g % 19 = 0 THEN NULL ELSE (g % 997) / power(10, g % 4)::numeric END
FROM generate_series(1, 20000) g;
CREATE TABLE ugi_b AS SELECT * FROM ugi_f;
CREATE INDEX ugi_f_a ON ugi_f USING fpbtree (a) INCLUDE (n);
CREATE INDEX ugi_b_a ON ugi_b (a) INCLUDE (n);
VACUUM ANALYZE ugi_f, ugi_b;
SELECT ug_grouped('SELECT sum(n), avg(n) FROM ugi_f WHERE a > -500');
SELECT par_same('SELECT sum(n), avg(n), count(n) FROM ugi_f WHERE a > -500',
				'SELECT sum(n), avg(n), count(n) FROM ugi_b WHERE a > -500',
				'ugi_f_a', false, 0);

-- rows in key order where something uses it: no grouping, btree's order
SELECT ug_grouped('SELECT array_agg(a) FROM {T} WHERE a >= 100');
SELECT ug_grouped('SELECT string_agg(t, '','') FROM {T} WHERE t >= ''3''');
SELECT ug_grouped('SELECT sum(a::float8) FROM {T} WHERE a >= 100');
SELECT ug_grouped('SELECT min(t), max(t) FROM {T} WHERE t >= ''3''');
SELECT ug_grouped('SELECT a FROM {T} WHERE a >= 100 ORDER BY a LIMIT 10');
SELECT ug_grouped('SELECT a, count(*) FROM {T} WHERE a >= 100 GROUP BY a');
SELECT ug_grouped('SELECT count(*) FROM (SELECT a FROM {T} WHERE a >= 100 LIMIT 9000) s');
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE a >= 100 AND random() < 2');
-- a function that may fail or speak on a row's value (not leakproof), in
-- the scan's filter or an aggregate's argument: the error names the row
-- btree's scan meets first
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE a >= 100 AND a * 2 > 0');
SELECT ug_grouped('SELECT sum(a * 2) FROM {T} WHERE a >= 100');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET fpbtree.debug_group_blocks = 1;
SELECT count(*) FROM ug_f WHERE a >= 100 AND (a * 10)::text::int2 > 0;
SELECT count(*) FROM ug_b WHERE a >= 100 AND (a * 10)::text::int2 > 0;
SELECT sum((a * 10)::text::int2) FROM ug_f WHERE a >= 100;
SELECT sum((a * 10)::text::int2) FROM ug_b WHERE a >= 100;
-- nor may a node that can fail itself: an array constructor of two array
-- columns fails on the dimensions of the first row it meets
CREATE TABLE ugae_f (k int4, a int4[], b int4[], pad text) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO ugae_f SELECT g, '{1}', '{1}', repeat('x', 200) FROM generate_series(1, 2999) g;
INSERT INTO ugae_f VALUES (3001, '{{{{{{1}}}}}}', '{{{{{{1}}}}}}', repeat('x', 200));
INSERT INTO ugae_f SELECT g, '{1}', '{1}', repeat('x', 200) FROM generate_series(3002, 6000) g;
INSERT INTO ugae_f VALUES (3000, '{1}', '{{1}}', repeat('x', 200));
CREATE TABLE ugae_b AS SELECT * FROM ugae_f;
CREATE INDEX ugae_f_k ON ugae_f USING fpbtree (k) INCLUDE (a, b);
CREATE INDEX ugae_b_k ON ugae_b (k) INCLUDE (a, b);
VACUUM ANALYZE ugae_f, ugae_b;
SELECT count(ARRAY[a, b]) FROM ugae_f;
SELECT count(ARRAY[a, b]) FROM ugae_b;
SELECT count(*) FROM ugae_f WHERE ARRAY[a, b] IS NOT NULL;
SELECT count(*) FROM ugae_b WHERE ARRAY[a, b] IS NOT NULL;
SELECT ug_grouped('SELECT count(ARRAY[k, k]) FROM ugae_f');
-- (without the array the scan may group; but its heap is in key order,
-- so no batch is worth reordering)
SELECT ug_grouped('SELECT count(k) FROM ugae_f');
-- nor the recheck of the index conditions, which the executor evaluates per
-- row where fpbtree asks for it: against a timestamptz bound a timestamp
-- column's scan may group, but its batches keep key order
-- (timestamp_ge_timestamptz is not leakproof)
CREATE TABLE ugts_f (ts timestamp) WITH (autovacuum_enabled = off);
INSERT INTO ugts_f SELECT timestamp '2026-01-01' + (hashint4(g) % 100000) * interval '1 minute'
FROM generate_series(1, 20000) g;
CREATE TABLE ugts_b AS SELECT * FROM ugts_f;
CREATE INDEX ugts_f_ts ON ugts_f USING fpbtree (ts);
CREATE INDEX ugts_b_ts ON ugts_b (ts);
VACUUM ANALYZE ugts_f, ugts_b;
SELECT ug_grouped('SELECT count(*) FROM ugts_f WHERE ts >= timestamptz ''2026-01-20 00:00+00''');
SELECT (SELECT count(*) FROM ugts_f WHERE ts >= timestamptz '2026-01-20 00:00+00') =
	   (SELECT count(*) FROM ugts_b WHERE ts >= timestamptz '2026-01-20 00:00+00') AS same;
SELECT ug_grouped('SELECT count(*) FROM ugts_f WHERE ts >= timestamp ''2026-01-20''');
-- DISTINCT keeps the first of equal values: numeric 1.0 or 1.00
CREATE TABLE ugdn_f (k int4, n numeric, pad text) WITH (fillfactor = 100, autovacuum_enabled = off);
INSERT INTO ugdn_f SELECT g, g + 100000, repeat('x', 200) FROM generate_series(1, 2999) g;
INSERT INTO ugdn_f VALUES (3001, 1.0, repeat('x', 200));
INSERT INTO ugdn_f SELECT g, g + 100000, repeat('x', 200) FROM generate_series(3002, 6000) g;
INSERT INTO ugdn_f VALUES (3000, 1.00, repeat('x', 200));
CREATE TABLE ugdn_b AS SELECT * FROM ugdn_f;
CREATE INDEX ugdn_f_kn ON ugdn_f USING fpbtree (k, n);
CREATE INDEX ugdn_b_kn ON ugdn_b (k, n);
VACUUM ANALYZE ugdn_f, ugdn_b;
SELECT sum(DISTINCT n), avg(DISTINCT n) FROM ugdn_f WHERE k BETWEEN 2000 AND 3001;
SELECT sum(DISTINCT n), avg(DISTINCT n) FROM ugdn_b WHERE k BETWEEN 2000 AND 3001;
SELECT ug_grouped('SELECT sum(DISTINCT n) FROM ugdn_f WHERE k BETWEEN 2000 AND 3001');
SELECT ug_grouped('SELECT count(DISTINCT n), sum(n) FROM ugdn_f WHERE k BETWEEN 2000 AND 3001');
SET fpbtree.debug_group_blocks = 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT ug_same_rows('SELECT array_agg(a) FROM {T} WHERE a >= 100', false);
SELECT ug_same_rows('SELECT string_agg(t, '','') FROM {T} WHERE t >= ''3''', false);
SELECT ug_same_rows('SELECT count(*), sum(a) FROM (SELECT a FROM {T} WHERE a >= 100 ORDER BY a LIMIT 9000) s');
-- a merge join reads both sides in order
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT ug_grouped('SELECT count(*) FROM {T} x JOIN {T} y ON x.a = y.a WHERE x.a > 10 AND y.a > 10');
SELECT ug_same('SELECT count(*) FROM {T} x JOIN {T} y ON x.a = y.a WHERE x.a > 10 AND y.a > 10');
RESET enable_hashjoin;
RESET enable_nestloop;

-- a scan rescanned with new parameters, in a subplan under each outer row
SELECT ug_grouped('SELECT (SELECT count(*) FROM {T} WHERE a >= o.x AND a < o.x + 2500) FROM generate_series(0, 5000, 1000) o(x)');
SELECT ug_same_rows('SELECT o.x, (SELECT count(*) FROM {T} WHERE a >= o.x AND a < o.x + 2500) FROM generate_series(0, 5000, 1000) o(x)');
-- a cursor over the aggregate, fetched back and forth
BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
DECLARE c SCROLL CURSOR FOR
	SELECT (SELECT count(*) FROM ug_f WHERE a >= o.x AND a < o.x + 2500)
		   = (SELECT count(*) FROM ug_b WHERE a >= o.x AND a < o.x + 2500)
	FROM generate_series(0, 5000, 1000) o(x);
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ALL FROM c;
COMMIT;

-- partitions under Append
CREATE TABLE ugp_f (a int8, k int4) PARTITION BY RANGE (k);
CREATE TABLE ugp_f1 PARTITION OF ugp_f FOR VALUES FROM (0) TO (10);
CREATE TABLE ugp_f2 PARTITION OF ugp_f FOR VALUES FROM (10) TO (20);
CREATE TABLE ugp_b (a int8, k int4) PARTITION BY RANGE (k);
CREATE TABLE ugp_b1 PARTITION OF ugp_b FOR VALUES FROM (0) TO (10);
CREATE TABLE ugp_b2 PARTITION OF ugp_b FOR VALUES FROM (10) TO (20);
INSERT INTO ugp_f SELECT hashint4(g) % 3000, g % 20 FROM generate_series(1, 20000) g ORDER BY hashint8(g);
INSERT INTO ugp_b SELECT * FROM ugp_f;
CREATE INDEX ON ugp_f USING fpbtree (a);
CREATE INDEX ON ugp_b (a);
VACUUM ANALYZE ugp_f, ugp_b;
SELECT ug_grouped('SELECT count(*) FROM ugp_f WHERE a > -1000');
SELECT par_same('SELECT count(*), sum(a) FROM ugp_f WHERE a > -1000',
				'SELECT count(*), sum(a) FROM ugp_b WHERE a > -1000',
				'ugp_f[0-9]_a_idx', false, 0);

-- rows changed since the last VACUUM (heap fetches) and dead entries
DELETE FROM ug_f WHERE a % 5 = 0;
DELETE FROM ug_b WHERE a % 5 = 0;
INSERT INTO ug_f SELECT 7000 + g % 900, g % 7, g % 11, NULL, '' FROM generate_series(1, 3000) g;
INSERT INTO ug_b SELECT 7000 + g % 900, g % 7, g % 11, NULL, '' FROM generate_series(1, 3000) g;
SELECT ug_same('SELECT count(*), sum(a) FROM {T} WHERE a >= 100');
-- again: the heap fetches of the first marked the deleted rows' entries dead
SELECT ug_same('SELECT count(*), sum(a) FROM {T} WHERE a >= 100');
VACUUM ug_f, ug_b;
SELECT ug_same('SELECT count(*), sum(a) FROM {T} WHERE a >= 100');

-- one heap block a group: more than 256 groups in a leaf, two passes
CREATE TABLE ugw_f (a int8) WITH (autovacuum_enabled = off);
INSERT INTO ugw_f SELECT hashint8(g) FROM generate_series(1, 80000) g;
CREATE INDEX ugw_f_a ON ugw_f USING fpbtree (a);
CREATE TABLE ugw_b AS SELECT * FROM ugw_f;
CREATE INDEX ugw_b_a ON ugw_b (a);
VACUUM ANALYZE ugw_f, ugw_b;
SET fpbtree.debug_group_blocks = 1;
SELECT ug_grouped('SELECT count(*) FROM ugw_f WHERE a > 0');
SELECT par_same('SELECT count(*), sum(a), min(a), max(a) FROM ugw_f WHERE a > -4611686018427387904',
				'SELECT count(*), sum(a), min(a), max(a) FROM ugw_b WHERE a > -4611686018427387904',
				'ugw_f_a', false, 0);
-- and the default: a visibility-map page, one group for these tables, which
-- then do not group at all
RESET fpbtree.debug_group_blocks;
SELECT ug_grouped('SELECT count(*) FROM ugw_f WHERE a > 0');

-- switched off: no grouping
SET fpbtree.debug_group_blocks = 3;
SET fpbtree.unordered_scan_grouping = off;
SELECT ug_grouped('SELECT count(*) FROM {T} WHERE a >= 100');
RESET fpbtree.unordered_scan_grouping;
RESET fpbtree.debug_group_blocks;

DROP TABLE ug_f, ug_b, ugi_f, ugi_b, ugae_f, ugae_b, ugts_f, ugts_b, ugdn_f, ugdn_b, ugp_f, ugp_b, ugw_f, ugw_b;
DROP FUNCTION ug_make(), ug_same(text), ug_same_rows(text, bool), ug_grouped(text);
