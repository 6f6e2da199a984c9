--
-- 80_toast_build: CREATE INDEX over values the table stores out of line
-- (TOAST).  The wide build's scan forms its sorted tuples itself, and took
-- an out-of-line value's 1-byte header for a short value of no bytes: the
-- tuples kept whatever bytes the one before left, and the build crashed or
-- reported "compressed data is corrupt".  Now the scan fetches such values
-- first, as btree's index_form_tuple does.  Serial and parallel builds of
-- one-column ("C", ICU, bytea), multi-column and INCLUDE indexes, against
-- btree, with values stored out of line, compressed in line, and plain.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE COLLATION tb_icu (provider = icu, locale = 'und');

-- pad (stored plain) makes every row too long for a page, so the toaster
-- moves t, b and s out of line (t and b uncompressed: storage external);
-- some rows leave s in line, compressed, and some are short and NULL
CREATE TABLE tb (id int4, pad text, t text COLLATE "C", ti text COLLATE tb_icu,
				 b bytea, s text COLLATE "C")
WITH (autovacuum_enabled = off);
ALTER TABLE tb ALTER COLUMN pad SET STORAGE PLAIN;
ALTER TABLE tb ALTER COLUMN t SET STORAGE EXTERNAL;
ALTER TABLE tb ALTER COLUMN b SET STORAGE EXTERNAL;
INSERT INTO tb
SELECT g, CASE WHEN g % 9 = 0 THEN 'p' ELSE repeat('p', 1400) END,
	   v, v, convert_to(v, 'UTF8'),
	   CASE WHEN g % 11 = 0 THEN NULL
			WHEN g % 5 = 0 THEN repeat('s', 3000) || g
			ELSE repeat(md5((g % 300)::text), 12) END
FROM (SELECT g, CASE WHEN g % 13 = 0 THEN NULL
					 ELSE repeat(md5((g % 700)::text), 8) || (g % 7) END v
	  FROM generate_series(1, 6000) g ORDER BY hashint4(g)) s;
-- values stored out of line: each has its chunks in the TOAST table
CREATE FUNCTION tb_toasted() RETURNS int8 LANGUAGE plpgsql AS $$
DECLARE
	n int8;
BEGIN
	EXECUTE format('SELECT count(DISTINCT chunk_id) FROM %s',
				   (SELECT reltoastrelid::regclass FROM pg_class
					WHERE oid = 'tb'::regclass)) INTO n;
	RETURN n;
END $$;
SELECT tb_toasted() > 3000 AS out_of_line;
CREATE TABLE tb_bt AS SELECT * FROM tb;

-- the same answers as btree's, by index and index-only scans, forward and
-- backward
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE FUNCTION tb_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'tb', 'tb_bt') FROM unnest(ARRAY[
		'SELECT t FROM tb ORDER BY t',
		'SELECT t FROM tb ORDER BY t DESC',
		'SELECT count(*) FROM tb WHERE t = repeat(md5(''17''), 8) || ''3''',
		'SELECT ti FROM tb WHERE ti >= repeat(md5(''5''), 8) ORDER BY ti',
		'SELECT b FROM tb WHERE b < ''\x3030'' ORDER BY b DESC',
		'SELECT id::text || s FROM tb WHERE id < 3000 ORDER BY id, s',
		'SELECT s FROM tb WHERE s > ''s'' ORDER BY s',
		'SELECT t || id FROM tb WHERE t > repeat(md5(''9''), 8) ORDER BY t, id'
	]) q;
$$;

CREATE INDEX tb_t ON tb USING fpbtree (t);
CREATE INDEX tb_ti ON tb USING fpbtree (ti);
CREATE INDEX tb_b ON tb USING fpbtree (b);
CREATE INDEX tb_s ON tb USING fpbtree (s);
CREATE INDEX tb_is ON tb USING fpbtree (id, s);
CREATE INDEX tb_ti_inc ON tb USING fpbtree (t) INCLUDE (id);
CREATE INDEX tb_bt_t ON tb_bt (t);
CREATE INDEX tb_bt_ti ON tb_bt (ti);
CREATE INDEX tb_bt_b ON tb_bt (b);
CREATE INDEX tb_bt_s ON tb_bt (s);
CREATE INDEX tb_bt_is ON tb_bt (id, s);
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['tb_t', 'tb_ti', 'tb_b', 'tb_s', 'tb_is', 'tb_ti_inc']) c;
SELECT * FROM tb_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM tb_all();

-- the same built in parallel, and rows inserted out of line afterwards
DROP INDEX tb_t, tb_ti, tb_b, tb_s, tb_is, tb_ti_inc;
SET max_parallel_maintenance_workers = 2;
SET min_parallel_table_scan_size = 0;
SET maintenance_work_mem = '96MB';
CREATE INDEX tb_t ON tb USING fpbtree (t);
CREATE INDEX tb_ti ON tb USING fpbtree (ti);
CREATE INDEX tb_b ON tb USING fpbtree (b);
CREATE INDEX tb_s ON tb USING fpbtree (s);
CREATE INDEX tb_is ON tb USING fpbtree (id, s);
RESET max_parallel_maintenance_workers;
RESET min_parallel_table_scan_size;
RESET maintenance_work_mem;
INSERT INTO tb SELECT id + 10000, pad, t, ti, b, s FROM tb WHERE id % 4 = 0;
INSERT INTO tb_bt SELECT id + 10000, pad, t, ti, b, s FROM tb_bt WHERE id % 4 = 0;
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['tb_t', 'tb_ti', 'tb_b', 'tb_s', 'tb_is']) c;
SELECT * FROM tb_all() WHERE r <> 'same';

-- too long even compressed: refused as it is in line (54000), not a crash
CREATE TABLE tb_long (pad text, t text COLLATE "C");
ALTER TABLE tb_long ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO tb_long
SELECT repeat('p', 1400),
	   (SELECT string_agg(md5((g * 100 + h)::text), '') FROM generate_series(1, 60) h)
FROM generate_series(1, 200) g;
CREATE INDEX tb_long_t ON tb_long USING fpbtree (t);

DROP TABLE tb, tb_bt, tb_long;
DROP FUNCTION tb_all();
DROP FUNCTION tb_toasted();
DROP COLLATION tb_icu;
RESET enable_seqscan;
RESET enable_bitmapscan;
