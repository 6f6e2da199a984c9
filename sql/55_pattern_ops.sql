--
-- 55_pattern_ops: LIKE and regular-expression prefix searches.  An
-- fpbtree index of text_pattern_ops, varchar_pattern_ops or
-- bpchar_pattern_ops (bytewise order whatever the column's collation), a
-- text_ops index under "C", and a bytea index turn "col LIKE 'abc%'" into
-- an index range, as btree does; a text_ops index under another collation
-- does not (as btree).  Every result equals a btree index's on the same
-- rows, and the plans show the Index Cond.  inet's subnet operators become
-- index ranges the same way.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE FUNCTION ps_text(g int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN g % 53 = 0 THEN NULL
		WHEN g % 11 = 0 THEN ''
		WHEN g % 7 = 0 THEN 'abc' || (g % 300)
		WHEN g % 5 = 0 THEN (ARRAY['é', 'Ärger', 'ärger', 'abd', 'ABC', 'ab_c', 'ab%c'])[1 + g % 7] || (g % 40)
		WHEN g % 3 = 0 THEN 'ab' || chr(255) || (g % 17)
		ELSE md5((g % 2500)::text)
	END
$$;
CREATE TABLE pt (id int, t text, tc text COLLATE "C", ti text COLLATE "en-x-icu",
				 v varchar(40), b char(40), y bytea)
WITH (autovacuum_enabled = off);
INSERT INTO pt SELECT g, ps_text(g), ps_text(g), ps_text(g), ps_text(g),
	ps_text(g), convert_to(ps_text(g), 'UTF8')
FROM generate_series(1, 6000) g;
SELECT count(*), count(DISTINCT t) FROM pt;
CREATE TABLE pb (LIKE pt) WITH (autovacuum_enabled = off);
INSERT INTO pb SELECT * FROM pt;

-- fpbtree on pt, btree on pb; ti's pattern index is built in bytewise
-- order although its column's collation orders otherwise
CREATE INDEX pt_t ON pt USING fpbtree (t text_pattern_ops);
CREATE INDEX pt_tc ON pt USING fpbtree (tc);
CREATE INDEX pt_ti ON pt USING fpbtree (ti text_pattern_ops);
CREATE INDEX pt_v ON pt USING fpbtree (v varchar_pattern_ops);
CREATE INDEX pt_b ON pt USING fpbtree (b bpchar_pattern_ops);
CREATE INDEX pt_y ON pt USING fpbtree (y);
CREATE INDEX pb_t ON pb USING btree (t text_pattern_ops);
CREATE INDEX pb_tc ON pb USING btree (tc);
CREATE INDEX pb_ti ON pb USING btree (ti text_pattern_ops);
CREATE INDEX pb_v ON pb USING btree (v varchar_pattern_ops);
CREATE INDEX pb_b ON pb USING btree (b bpchar_pattern_ops);
CREATE INDEX pb_y ON pb USING btree (y);
VACUUM ANALYZE pt;
VACUUM ANALYZE pb;

-- the plans: a LIKE prefix becomes an index range, a pattern without
-- wildcards an equality
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT t FROM pt WHERE t LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT tc FROM pt WHERE tc LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT ti FROM pt WHERE ti LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT v FROM pt WHERE v LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT b FROM pt WHERE b LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT y FROM pt WHERE y LIKE 'abc1%';
EXPLAIN (COSTS OFF) SELECT t FROM pt WHERE t LIKE 'abd';
EXPLAIN (COSTS OFF) SELECT t FROM pt WHERE t ~ '^ab_';
EXPLAIN (COSTS OFF) SELECT t FROM pt WHERE t ~>=~ 'abc' ORDER BY t USING ~<~;
-- a text_ops index under a collation other than "C" gets no range, as
-- with btree
CREATE INDEX pt_t_plain ON pt USING fpbtree (t);
EXPLAIN (COSTS OFF) SELECT t FROM pt WHERE t LIKE 'abc1%';
DROP INDEX pt_t_plain;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Run q ($t: the table) on pt through its fpbtree index idx ($i: the
-- index name's column part) and on pb through the btree index: 'ok' or
-- what differs; in order when q orders.
CREATE FUNCTION ps_same(q text, col text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	fq text := replace(q, '$t', 'pt');
	bq text := replace(q, '$t', 'pb');
	ref text[];
	got text[];
	plan text;
BEGIN
	plan := fpb_plan(fq, 'index');
	IF plan !~ (' pt_' || col || '([ \n]|$)') OR plan !~ 'Index Cond' THEN
		RETURN 'no index range: ' || plan;
	END IF;
	plan := fpb_plan(bq, 'index');
	IF plan !~ (' pb_' || col || '([ \n]|$)') THEN
		RETURN 'btree: plan does not use pb_' || col || ': ' || plan;
	END IF;
	ref := fpb_rows(bq, 'index');
	got := fpb_rows(fq, 'index');
	IF q !~* '\morder by\M' THEN
		got := fpb_sorted(got);
		ref := fpb_sorted(ref);
	END IF;
	IF got IS DISTINCT FROM ref THEN
		RETURN format('index: got %s, expected %s', got, ref);
	END IF;
	got := fpb_rows(fq, 'bitmap');
	IF fpb_sorted(got) IS DISTINCT FROM fpb_sorted(ref) THEN
		RETURN format('bitmap: got %s, expected %s', fpb_sorted(got),
					  fpb_sorted(ref));
	END IF;
	RETURN 'ok';
END $$;

CREATE TABLE ps_q (q text, col text);
INSERT INTO ps_q SELECT replace(q, '$c', col), col
FROM unnest(ARRAY['t', 'tc', 'ti', 'v', 'b']) col,
(VALUES
 ('SELECT $c, id FROM $t WHERE $c LIKE ''abc1%'''),
 ('SELECT $c FROM $t WHERE $c LIKE ''abc1%'' ORDER BY $c'),
 ('SELECT $c FROM $t WHERE $c LIKE ''ab%'' ORDER BY $c DESC'),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''ab\_c%'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''ab\%c%'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''ab_c%'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''é%'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''Ä%1'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''abd'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''abd7'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''ab' || chr(255) || '1%'''),
 ('SELECT $c, id FROM $t WHERE $c ~ ''^abc2[0-3]'''),
 ('SELECT $c, id FROM $t WHERE $c LIKE ''zzz%''')
) x(q);
-- the pattern operators themselves, on the pattern classes
INSERT INTO ps_q SELECT replace(replace(q, '$c_type', CASE col WHEN 'b' THEN 'bpchar' ELSE 'text' END), '$c', col), col
FROM unnest(ARRAY['t', 'ti', 'v', 'b']) col,
(VALUES
 ('SELECT $c, id FROM $t WHERE $c = ANY (ARRAY[''abc17'', '''', NULL, ''Ärger1'', ''abc17'']::$c_type[])'),
 ('SELECT $c FROM $t WHERE $c ~>=~ ''ab'' AND $c ~<~ ''abd'' ORDER BY $c'),
 ('SELECT $c FROM $t WHERE $c ~<=~ ''Ärger'' ORDER BY $c DESC'),
 ('SELECT $c FROM $t WHERE $c ~>~ ''é'' ORDER BY $c'),
 ('SELECT $c, id FROM $t WHERE $c = ''abc17''')
) x(q);
INSERT INTO ps_q VALUES
 ('SELECT y, id FROM $t WHERE y LIKE ''abc1%''', 'y'),
 ('SELECT y FROM $t WHERE y LIKE ''ab%'' ORDER BY y', 'y'),
 ('SELECT y, id FROM $t WHERE y LIKE ''ab\303\2771%''', 'y');

SELECT count(*) AS queries FROM ps_q;
CREATE FUNCTION ps_diffs() RETURNS TABLE (q text, diff text) LANGUAGE sql AS $$
	SELECT q, left(r, 300) FROM (SELECT q, ps_same(q, col) r FROM ps_q) s
	WHERE r <> 'ok'
$$;
SELECT * FROM ps_diffs();

-- inserts that split pages, then deletes and VACUUM
INSERT INTO pt SELECT g, ps_text(g), ps_text(g), ps_text(g), ps_text(g),
	ps_text(g), convert_to(ps_text(g), 'UTF8')
FROM generate_series(6001, 12000) g;
INSERT INTO pb SELECT * FROM pt WHERE id > 6000;
DELETE FROM pt WHERE id % 3 = 0 OR (id > 1500 AND id < 4500);
DELETE FROM pb WHERE id % 3 = 0 OR (id > 1500 AND id < 4500);
VACUUM pt;
VACUUM pb;
SELECT * FROM ps_diffs();
SELECT c.relname, fpbtree_check(c.oid, true) FROM pg_class c
JOIN pg_am a ON a.oid = c.relam AND a.amname = 'fpbtree'
WHERE c.relname LIKE 'pt\_%' ORDER BY 1;

-- a unique pattern index refuses bytewise duplicates only
CREATE TABLE pt_uq (t text);
CREATE UNIQUE INDEX pt_uq_t ON pt_uq USING fpbtree (t text_pattern_ops);
INSERT INTO pt_uq VALUES ('abc'), ('ABC'), ('abc ');
INSERT INTO pt_uq VALUES ('abc');
CREATE TABLE pt_uqb (b char(8));
CREATE UNIQUE INDEX pt_uqb_b ON pt_uqb USING fpbtree (b bpchar_pattern_ops);
INSERT INTO pt_uqb VALUES ('abc'), ('abc  x');
INSERT INTO pt_uqb VALUES ('abc   ');

-- a nondeterministic collation: refused, as btree refuses its pattern
-- classes there ("=" under the collation is no range of the byte order)
CREATE COLLATION pt_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE pt_nd (id int, v text COLLATE pt_ci, w varchar(20) COLLATE pt_ci, b char(8) COLLATE pt_ci);
INSERT INTO pt_nd SELECT g, CASE WHEN g % 2 = 0 THEN 'abc' ELSE 'ABC' END || g % 100,
	'x' || g % 7, 'y' || g % 5 FROM generate_series(1, 2000) g;
CREATE INDEX ON pt_nd USING btree (v text_pattern_ops);
CREATE INDEX ON pt_nd USING fpbtree (v text_pattern_ops);
CREATE INDEX ON pt_nd USING fpbtree (w varchar_pattern_ops);
CREATE INDEX ON pt_nd USING fpbtree (b bpchar_pattern_ops);
CREATE INDEX ON pt_nd USING fpbtree (id, v text_pattern_ops);
-- the column's own class is fine, and answers "=" under the collation
CREATE INDEX pt_nd_v ON pt_nd USING fpbtree (v);
SELECT fpb_same('SELECT id FROM pt_nd WHERE v = ''abc7''', 'pt_nd_v');
DROP TABLE pt_nd;
DROP COLLATION pt_ci;

-- inet: "ip << '10.2.0.0/16'" and the other subnet operators become an
-- index range with the operator as a filter, as on btree, on any fpbtree
-- inet index (the planner is shown btree's network family)
CREATE TABLE pn (id int, ip inet) WITH (autovacuum_enabled = off);
INSERT INTO pn SELECT g, CASE WHEN g % 97 = 0 THEN NULL
	WHEN g % 3 = 0 THEN ('2001:db8:' || to_hex(g % 7) || '::' || to_hex(g) || '/' || (32 + g % 97))::inet
	ELSE ('10.' || (g % 5) || '.' || (g % 256) || '.' || (g % 251) || '/' || (8 + g % 25))::inet END
FROM generate_series(1, 6000) g;
CREATE INDEX pn_ip ON pn USING fpbtree (ip);
VACUUM ANALYZE pn;
SELECT fpb_plan('SELECT id FROM pn WHERE ip << ''10.2.0.0/16''', 'index');
SELECT q, fpb_same(q, 'pn_ip', q LIKE '%ORDER BY%') FROM (VALUES
	('SELECT id, ip FROM pn WHERE ip << ''10.2.0.0/16'''),
	('SELECT id, ip FROM pn WHERE ip <<= ''10.2.0.0/16'''),
	('SELECT id, ip FROM pn WHERE ''10.3.0.0/16'' >> ip'),
	('SELECT id, ip FROM pn WHERE ''10.3.0.0/16'' >>= ip'),
	('SELECT id, ip FROM pn WHERE ip << ''2001:db8:3::/48'''),
	('SELECT id, ip FROM pn WHERE ip <<= ''0.0.0.0/0'''),
	('SELECT id, ip FROM pn WHERE ip << ''10.1.2.0/24'' ORDER BY ip DESC, id')) v(q);
SELECT fpbtree_check('pn_ip', true);
