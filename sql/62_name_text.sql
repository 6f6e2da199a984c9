--
-- 62_name_text: the name/text operators of btree's text_ops family
-- (src/am/README.md, "Cross-type keys of wide columns").  A name column
-- against text values, and LIKE on a name column, which the planner turns
-- into name/text comparisons; a text column against name values.  A text
-- longer than a name holds (63 bytes) has no name value: the scan is bounded
-- by its prefix and rechecked, or, on a multi-column index, the key is a
-- filter.  Results against sequential scans (fpb_same) under "C" (the
-- collation of name), ICU and a nondeterministic collation, with NULLs,
-- duplicates, the empty string, multibyte values cut at the name limit,
-- arrays, both directions and parallel plans.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE COLLATION nt_ci (provider = icu, locale = 'und-u-ks-level2',
						deterministic = false);

-- names near the limit: 63 bytes of ASCII, of two-byte characters (62
-- bytes and one more), cut by the cast where a character would straddle it
CREATE FUNCTION pg_temp.nt_value(g int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE g % 8
		WHEN 0 THEN 'rel_' || (g % 900)
		WHEN 1 THEN repeat('a', 60) || (g % 13)
		WHEN 2 THEN repeat('é', 31) || chr(97 + g % 5)
		WHEN 3 THEN repeat('z', 61 + g % 3)
		WHEN 4 THEN CASE WHEN g % 64 = 4 THEN '' ELSE 'Rel_' || (g % 50) END
		WHEN 5 THEN 'ümlaut_' || (g % 40) || repeat('€', g % 25)
		WHEN 6 THEN CASE WHEN g % 48 = 6 THEN NULL ELSE 'REL_' || (g % 90) END
		ELSE 'rel_' || (g % 900) || '_' || (g % 3)
	END
$$;

CREATE TABLE nt_c (id int, nm name) WITH (autovacuum_enabled = off);
CREATE TABLE nt_icu (id int, nm name COLLATE "en-x-icu") WITH (autovacuum_enabled = off);
CREATE TABLE nt_nd (id int, nm name COLLATE nt_ci) WITH (autovacuum_enabled = off);
INSERT INTO nt_c SELECT g, pg_temp.nt_value(g) FROM generate_series(1, 12000) g
	ORDER BY hashint4(g);
INSERT INTO nt_icu SELECT * FROM nt_c;
INSERT INTO nt_nd SELECT * FROM nt_c;
CREATE INDEX nt_c_i ON nt_c USING fpbtree (nm);
CREATE INDEX nt_icu_i ON nt_icu USING fpbtree (nm);
CREATE INDEX nt_nd_i ON nt_nd USING fpbtree (nm);
VACUUM ANALYZE nt_c, nt_icu, nt_nd;
SELECT fpbtree_check('nt_c_i', true), fpbtree_check('nt_icu_i', true),
	   fpbtree_check('nt_nd_i', true);

-- text values are index conditions, also ones longer than a name
SELECT fpb_plan($$SELECT id FROM nt_c WHERE nm = 'rel_17'::text$$, 'index');
SELECT fpb_plan($$SELECT id FROM nt_c WHERE nm < repeat('z', 70)$$, 'index');
SELECT fpb_plan($$SELECT id FROM nt_icu WHERE nm >= 'Rel_1'::text$$, 'index');
SELECT fpb_plan($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY['rel_1', 'rel_2'])$$, 'index');

-- random keys: values of the table, the same made longer than a name,
-- their starts, long runs of the repeated characters, the empty string
CREATE FUNCTION pg_temp.nt_key(t text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	v text;
	r float8 := random();
BEGIN
	EXECUTE format('SELECT nm::text FROM %I WHERE id = $1', t)
		INTO v USING 1 + floor(random() * 12000)::int;
	v := coalesce(v, 'rel_5');
	RETURN CASE
		WHEN r < 0.3 THEN v
		WHEN r < 0.5 THEN v || repeat(chr(97 + floor(random() * 26)::int),
									  1 + floor(random() * 70)::int)
		WHEN r < 0.65 THEN left(v, floor(random() * (length(v) + 1))::int)
		WHEN r < 0.75 THEN repeat('é', 31 + floor(random() * 3)::int)
		WHEN r < 0.85 THEN repeat('z', 62 + floor(random() * 4)::int)
		WHEN r < 0.9 THEN ''
		ELSE repeat('a', 60) || floor(random() * 14)::int ||
			 repeat('0', floor(random() * 6)::int)
	END;
END $$;

SELECT fpb_probe('nt_c', 'nt_c_i', 'nm', $$pg_temp.nt_key('nt_c')$$, '::text', 120, 0.1);
SELECT fpb_probe('nt_icu', 'nt_icu_i', 'nm', $$pg_temp.nt_key('nt_icu')$$, '::text', 120, 0.2);
SELECT fpb_probe('nt_nd', 'nt_nd_i', 'nm', $$pg_temp.nt_key('nt_nd')$$, '::text', 120, 0.3);

-- the keys the scan treats loosely, one by one
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = repeat('z', 64)$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm < repeat('z', 64)$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm > repeat('é', 32)$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm <= repeat('é', 31) || 'cc'$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY['rel_3', repeat('z', 64)])$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY[repeat('z', 64)])$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_nd WHERE nm = ANY (ARRAY['REL_3', repeat('Z', 64)])$$, 'nt_nd_i');
SELECT fpb_same($$SELECT id FROM nt_nd WHERE nm = upper(repeat('é', 31) || 'b' || 'more')$$, 'nt_nd_i');
SELECT fpb_same($$SELECT id FROM nt_icu WHERE nm > ANY (ARRAY['rel_3', repeat('z', 64)])$$, 'nt_icu_i');
-- an equality no name meets under "C" is empty without a recheck; an
-- inequality reads the entries of the argument's prefix and rechecks them
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	SELECT id FROM nt_c WHERE nm = repeat('z', 64);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
	SELECT id FROM nt_c WHERE nm > repeat('z', 64);
RESET enable_seqscan;
RESET enable_bitmapscan;

-- LIKE on a name column: a range under "C", an exact pattern under ICU
SELECT fpb_plan($$SELECT id FROM nt_c WHERE nm LIKE 'rel_1%'$$, 'index');
SELECT fpb_same($$SELECT id, nm FROM nt_c WHERE nm LIKE 'rel_1%'$$, 'nt_c_i');
SELECT fpb_same($$SELECT id, nm FROM nt_c WHERE nm LIKE 'ümlaut_3%'$$, 'nt_c_i');
SELECT fpb_same($$SELECT id, nm FROM nt_c WHERE nm LIKE 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1%'$$, 'nt_c_i');
SELECT fpb_same($$SELECT id, nm FROM nt_c WHERE nm LIKE repeat('z', 63) || '%'$$, 'nt_c_i');
SELECT fpb_same($$SELECT id, nm FROM nt_c WHERE nm LIKE repeat('z', 64) || '%'$$, 'nt_c_i');
SELECT fpb_plan($$SELECT id FROM nt_icu WHERE nm LIKE 'rel\_17'$$, 'index');
SELECT fpb_same($$SELECT id, nm FROM nt_icu WHERE nm LIKE 'rel\_17'$$, 'nt_icu_i');

-- arrays of varchar and of a domain over text take the (name, text)
-- operators too
CREATE DOMAIN nt_dom AS text;
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY['rel_3', 'REL_4']::varchar[])$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY['rel_3', repeat('z', 70)]::varchar[])$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm < ANY (ARRAY['rel_3', repeat('z', 70)]::varchar[])$$, 'nt_c_i');
SELECT fpb_same($$SELECT id FROM nt_c WHERE nm = ANY (ARRAY['rel_3'::nt_dom, repeat('é', 40)::nt_dom])$$, 'nt_c_i');

-- a cursor over a loosely bounded scan, forward and back
SELECT fpb_mode('index');
BEGIN;
SELECT fpb_mode('index');
DECLARE nt_cur SCROLL CURSOR FOR
	SELECT id, nm FROM nt_c WHERE nm >= repeat('é', 32) ORDER BY nm, id;
FETCH 3 FROM nt_cur;
MOVE FORWARD ALL IN nt_cur;
FETCH BACKWARD 3 FROM nt_cur;
COMMIT;
SELECT id, nm FROM nt_c WHERE nm >= repeat('é', 32) ORDER BY nm, id LIMIT 3;
SELECT id, nm FROM nt_c WHERE nm >= repeat('é', 32) ORDER BY nm DESC, id DESC LIMIT 3;

-- multi-column indexes: a long text on either column is a filter
CREATE TABLE nt_m (grp int, nm name, id int) WITH (autovacuum_enabled = off);
INSERT INTO nt_m SELECT CASE WHEN g % 101 = 0 THEN NULL ELSE g % 7 END,
	pg_temp.nt_value(g), g FROM generate_series(1, 12000) g ORDER BY hashint4(g);
CREATE INDEX nt_m_gn ON nt_m USING fpbtree (grp, nm);
VACUUM ANALYZE nt_m;
SELECT fpb_plan($$SELECT id FROM nt_m WHERE grp = 3 AND nm < repeat('z', 64)$$, 'index');
CREATE FUNCTION pg_temp.nt_probe_m(idx text, n int, seed float8)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	ops text[] := ARRAY['<', '<=', '=', '>=', '>'];
	q text;
	r text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		q := format('SELECT grp, nm, id FROM nt_m WHERE nm %s %L::text',
					ops[1 + floor(random() * 5)::int], pg_temp.nt_key('nt_m'));
		IF i % 2 = 0 THEN
			q := q || format(' AND grp %s %s', ops[1 + floor(random() * 5)::int],
							 floor(random() * 8)::int);
		ELSE
			q := q || format(' AND grp = %s', floor(random() * 8)::int);
		END IF;
		IF i % 4 = 0 THEN
			q := q || format(' AND nm = ANY (ARRAY[%L, %L]::text[])',
							 pg_temp.nt_key('nt_m'), pg_temp.nt_key('nt_m'));
		END IF;
		IF i % 3 = 0 THEN
			q := q || ' ORDER BY grp, nm, id LIMIT 40';
		END IF;
		r := fpb_same(q, idx, q LIKE '%ORDER BY%');
		IF r <> 'ok' THEN
			RETURN NEXT q || ': ' || r;
		END IF;
	END LOOP;
END $$;
SELECT pg_temp.nt_probe_m('nt_m_gn', 80, 0.4);
DROP INDEX nt_m_gn;
CREATE INDEX nt_m_ng ON nt_m USING fpbtree (nm, grp) INCLUDE (id);
SELECT fpb_plan($$SELECT id FROM nt_m WHERE nm = repeat('a', 60) || '7' AND grp > 2$$, 'index');
SELECT pg_temp.nt_probe_m('nt_m_ng', 80, 0.5);
-- an equality array on the first column drops the elements longer than a
-- name (no name equals them under "C") and bounds the scan by the others
SELECT fpb_same($$SELECT id FROM nt_m WHERE nm = ANY (ARRAY['rel_3', repeat('z', 70), 'REL_5']) AND grp > 2$$, 'nt_m_ng');
SELECT fpb_same($$SELECT id FROM nt_m WHERE nm = ANY (ARRAY[repeat('z', 70), repeat('é', 40)])$$, 'nt_m_ng');
SELECT fpb_same($$SELECT id FROM nt_m WHERE nm = ANY (ARRAY['rel_3', repeat('z', 70)]) AND nm = ANY (ARRAY['rel_3', 'rel_4'])$$, 'nt_m_ng');

-- a nested loop probing the (nm, grp) index with text values of both
-- kinds in turn: a rescan sets and clears the filter of a long one
CREATE TABLE nt_mprobe (v text COLLATE "C", g int);
INSERT INTO nt_mprobe SELECT CASE WHEN i % 2 = 0 THEN nm::text ELSE nm::text || repeat('q', 60) END,
	i % 7 FROM (SELECT nm, row_number() OVER (ORDER BY nm, id) AS i FROM nt_m
				WHERE id % 211 = 0) s;
ANALYZE nt_mprobe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_memoize = off;
SELECT fpb_plan($$SELECT count(*) FROM nt_mprobe p JOIN nt_m m ON m.nm = p.v AND m.grp = p.g$$, 'index');
SELECT fpb_same($$SELECT m.id FROM nt_mprobe p JOIN nt_m m ON m.nm = p.v AND m.grp = p.g$$, 'nt_m_ng');
SELECT fpb_same($$SELECT m.id FROM nt_mprobe p JOIN nt_m m ON m.nm > p.v AND m.grp = p.g AND m.nm < p.v || 'zz'$$, 'nt_m_ng');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_memoize;

-- a multi-column index under a nondeterministic collation: a long key is
-- a filter by the collation's comparison
CREATE TABLE nt_mnd (nm name COLLATE nt_ci, grp int, id int);
INSERT INTO nt_mnd SELECT nm, grp, id FROM nt_m;
CREATE INDEX nt_mnd_i ON nt_mnd USING fpbtree (nm, grp);
ANALYZE nt_mnd;
SELECT fpb_same($$SELECT id FROM nt_mnd WHERE nm = upper(repeat('é', 31) || 'b' || 'more') AND grp > 1$$, 'nt_mnd_i');
SELECT fpb_same($$SELECT id FROM nt_mnd WHERE nm >= upper(repeat('Z', 64)) AND grp = 3$$, 'nt_mnd_i');
SELECT fpb_same($$SELECT id FROM nt_mnd WHERE nm = 'REL_4'::text AND grp < 5$$, 'nt_mnd_i');

-- a text column against name values, under "C" and under ICU
CREATE TABLE nt_t (id int, tc text COLLATE "C", ti text COLLATE "en-x-icu")
	WITH (autovacuum_enabled = off);
INSERT INTO nt_t SELECT g, v, v FROM (SELECT g, pg_temp.nt_value(g) || CASE WHEN g % 5 = 0
	THEN repeat('q', g % 40) ELSE '' END AS v FROM generate_series(1, 8000) g) s
	ORDER BY hashint4(g);
CREATE INDEX nt_t_c ON nt_t USING fpbtree (tc);
CREATE INDEX nt_t_i ON nt_t USING fpbtree (ti);
VACUUM ANALYZE nt_t;
SELECT fpb_plan($$SELECT id FROM nt_t WHERE tc = 'rel_17'::name$$, 'index');
SELECT fpb_plan($$SELECT id FROM nt_t WHERE ti > 'rel_17'::name COLLATE "en-x-icu"$$, 'index');
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc = 'rel_17'::name$$, 'nt_t_c');
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc >= repeat('é', 40)::name$$, 'nt_t_c');
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc < repeat('z', 62)::name ORDER BY tc DESC, id LIMIT 30$$, 'nt_t_c', true);
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc = ANY (ARRAY['rel_3', 'Rel_4', '']::name[])$$, 'nt_t_c');
SELECT fpb_same($$SELECT id FROM nt_t WHERE ti <= 'rel_17'::name COLLATE "en-x-icu"$$, 'nt_t_i');
SELECT fpb_same($$SELECT id FROM nt_t WHERE ti = 'ümlaut_3'::name COLLATE "en-x-icu"$$, 'nt_t_i');

-- a two-column text index probed by name values
DROP INDEX nt_t_c;
CREATE INDEX nt_t_c2 ON nt_t USING fpbtree (tc, id);
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc = 'rel_17'::name AND id > 100$$, 'nt_t_c2');
SELECT fpb_same($$SELECT id FROM nt_t WHERE tc >= 'Rel_4'::name AND tc < 'rel'::name$$, 'nt_t_c2');
DROP INDEX nt_t_c2;

-- join: a name column probed by text values from another table
CREATE TABLE nt_probe (v text COLLATE "C");
INSERT INTO nt_probe SELECT nm::text FROM nt_c WHERE id % 97 = 0
	UNION ALL SELECT repeat('z', 64) UNION ALL SELECT NULL;
ANALYZE nt_probe;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT fpb_plan($$SELECT count(*) FROM nt_probe p JOIN nt_c c ON c.nm = p.v$$, 'index');
SELECT fpb_same($$SELECT c.id FROM nt_probe p JOIN nt_c c ON c.nm = p.v$$, 'nt_c_i');
RESET enable_hashjoin;
RESET enable_mergejoin;

-- parallel plans (Gather over the index scan), against the serial answer
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT fpb_explain($$SELECT count(*) FROM nt_c WHERE nm > 'rel_5'::text$$) ~ 'Parallel Index Only Scan';
SELECT count(*), sum(id) FROM nt_c WHERE nm > 'rel_5'::text;
SELECT count(*), sum(id) FROM nt_c WHERE nm < repeat('é', 32);
RESET ALL;
SELECT fpb_mode('seq');
SELECT count(*), sum(id) FROM nt_c WHERE nm > 'rel_5'::text;
SELECT count(*), sum(id) FROM nt_c WHERE nm < repeat('é', 32);

-- inserts and deletes, then the same probes and the check
INSERT INTO nt_c SELECT g, pg_temp.nt_value(g * 7) FROM generate_series(12001, 16000) g;
DELETE FROM nt_c WHERE id % 5 = 0;
VACUUM nt_c;
SELECT fpbtree_check('nt_c_i', true);
SELECT fpb_probe('nt_c', 'nt_c_i', 'nm', $$pg_temp.nt_key('nt_c')$$, '::text', 60, 0.6);

-- the families validate with their new members
SELECT c.opcname, amvalidate(c.oid) FROM pg_opclass c
	JOIN pg_am a ON a.oid = c.opcmethod
	WHERE a.amname = 'fpbtree' AND c.opcname IN ('name_ops', 'text_ops', 'varchar_ops')
	ORDER BY 1;
