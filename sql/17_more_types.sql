--
-- 17_more_types: the operator classes of bool, "char", money, time,
-- macaddr and macaddr8 against btree and a sequential scan: the keys keep
-- btree's order and decode to the very value, every operator with bounds
-- at the ends of each type's range and between stored values, NULLs,
-- duplicates, ORDER BY both ways, index-only scans returning the stored
-- values (the same as btree's), parallel index-only scans, bitmap scans,
-- unique indexes, the structural check after inserts and after VACUUM.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

-- the columns under test: name, type, key functions' suffix
CREATE TABLE mt_cols (c text, typ text, fn text);
INSERT INTO mt_cols VALUES
  ('b', 'bool', 'bool'), ('ch', '"char"', 'char'), ('m', 'money', 'money'),
  ('t', 'time', 'time'), ('ma', 'macaddr', 'macaddr'), ('m8', 'macaddr8', 'macaddr8');

-- generated values with duplicates and NULLs, then the ends of each
-- type's range and the values next to its sign bit, if it had one
CREATE TABLE mt (id int4, b bool, ch "char", m money, t time, ma macaddr, m8 macaddr8)
	WITH (autovacuum_enabled = off);
INSERT INTO mt
SELECT g,
       CASE WHEN g % 11 = 0 THEN NULL ELSE g % 3 = 0 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE ((g * 7) % 256 - 128)::"char" END,
       CASE WHEN g % 17 = 0 THEN NULL ELSE (((g * 37) % 2001 - 1000) / 100.0)::numeric::money END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE time '00:00' + g * interval '97 seconds 1234 microseconds' END,
       CASE WHEN g % 23 = 0 THEN NULL ELSE substr(md5((g % 700)::text), 1, 12)::macaddr END,
       CASE WHEN g % 29 = 0 THEN NULL ELSE substr(md5((g % 700)::text), 1, 16)::macaddr8 END
FROM generate_series(1, 3000) g;
INSERT INTO mt VALUES
  (-1, false, '', '-92233720368547758.08', '00:00', '00:00:00:00:00:00', '00:00:00:00:00:00:00:00'),
  (-2, true, '\377', '92233720368547758.07', '24:00:00', 'ff:ff:ff:ff:ff:ff', 'ff:ff:ff:ff:ff:ff:ff:ff'),
  (-3, true, '\177', '-0.01', '23:59:59.999999', '7f:ff:ff:ff:ff:ff', '7f:ff:ff:ff:ff:ff:ff:ff'),
  (-4, false, '\200', '0.00', '00:00:00.000001', '80:00:00:00:00:00', '80:00:00:00:00:00:00:00'),
  (-5, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE INDEX mt_b ON mt USING fpbtree (b);
CREATE INDEX mt_ch ON mt USING fpbtree (ch);
CREATE INDEX mt_m ON mt USING fpbtree (m);
CREATE INDEX mt_t ON mt USING fpbtree (t);
CREATE INDEX mt_ma ON mt USING fpbtree (ma);
CREATE INDEX mt_m8 ON mt USING fpbtree (m8);
-- the same rows under btree indexes
CREATE TABLE mtb (LIKE mt) WITH (autovacuum_enabled = off);
INSERT INTO mtb SELECT * FROM mt;
CREATE INDEX mtb_b ON mtb (b);
CREATE INDEX mtb_ch ON mtb (ch);
CREATE INDEX mtb_m ON mtb (m);
CREATE INDEX mtb_t ON mtb (t);
CREATE INDEX mtb_ma ON mtb (ma);
CREATE INDEX mtb_m8 ON mtb (m8);
VACUUM ANALYZE mt, mtb;
SELECT c, (SELECT opcname FROM pg_opclass WHERE oid = i.indclass[0]) AS opclass
FROM mt_cols, pg_index i
WHERE i.indexrelid = ('mt_' || c)::regclass
ORDER BY c;

-- the keys: every pair of neighbouring distinct values (in btree's order)
-- has increasing keys as unsigned numbers, and decode gives back each
-- value exactly (as text, which shows every byte of these types)
CREATE FUNCTION mt_keys(c text, fn text) RETURNS TABLE (misordered int8, not_decoded int8, n int8)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format(
		'SELECT count(*) FILTER (WHERE NOT fpbtree_encode_%2$s(a)::bit(64) < fpbtree_encode_%2$s(nxt)::bit(64)),
		        count(*) FILTER (WHERE fpbtree_decode_%2$s(fpbtree_encode_%2$s(a))::text IS DISTINCT FROM a::text),
		        count(*)
		 FROM (SELECT a, lead(a) OVER (ORDER BY a) AS nxt
		       FROM (SELECT DISTINCT %1$I AS a FROM mtb WHERE %1$I IS NOT NULL) d) s',
		c, fn);
END $$;
SELECT c, k.* FROM mt_cols, mt_keys(c, fn) k ORDER BY c;
-- the ends as keys (int8 shows the bit pattern, so a key with the top bit
-- set is negative)
SELECT fpbtree_encode_bool(false) AS f, fpbtree_encode_bool(true) AS t,
       fpbtree_encode_char('') AS c0, fpbtree_encode_char('\177') AS c127,
       fpbtree_encode_char('\200') AS c128, fpbtree_encode_char('\377') AS c255;
SELECT to_hex(fpbtree_encode_money('-92233720368547758.08')) AS money_min,
       to_hex(fpbtree_encode_money('92233720368547758.07')) AS money_max,
       to_hex(fpbtree_encode_time('00:00')) AS time_min,
       to_hex(fpbtree_encode_time('24:00:00')) AS time_max;
SELECT to_hex(fpbtree_encode_macaddr('08:00:2b:01:02:03')) AS macaddr,
       to_hex(fpbtree_encode_macaddr('ff:ff:ff:ff:ff:ff')) AS macaddr_max,
       to_hex(fpbtree_encode_macaddr8('08:00:2b:01:02:03:04:05')) AS macaddr8,
       to_hex(fpbtree_encode_macaddr8('ff:ff:ff:ff:ff:ff:ff:ff')) AS macaddr8_max;
SELECT fpbtree_decode_money(fpbtree_encode_money('-92233720368547758.08'))::numeric AS money_min,
       fpbtree_decode_time(fpbtree_encode_time('24:00:00')) AS time_max,
       fpbtree_decode_char(fpbtree_encode_char('\377')) = '\377' AS c255;
-- keys no value of the type has
SELECT fpbtree_decode_bool(2);
SELECT fpbtree_decode_char(256);
SELECT fpbtree_decode_time(fpbtree_encode_int8(86400000001));
SELECT fpbtree_decode_time(fpbtree_encode_int8(-1));
SELECT fpbtree_decode_macaddr(281474976710656);

-- the bounds: the ends of each range, stored values, values between them
CREATE TABLE mt_bounds (c text, b text);
INSERT INTO mt_bounds VALUES
  ('b', 'false'), ('b', 'true'),
  ('ch', ''''''), ('ch', '''\001'''), ('ch', '''a'''), ('ch', '''\177'''), ('ch', '''\200'''),
  ('ch', '''\201'''), ('ch', '''\376'''), ('ch', '''\377'''),
  ('m', '''-92233720368547758.08'''), ('m', '''-92233720368547758.07'''), ('m', '''-5.55'''),
  ('m', '''-0.01'''), ('m', '''0'''), ('m', '''0.01'''), ('m', '''3.21'''), ('m', '''9.99'''),
  ('m', '''10.00'''), ('m', '''92233720368547758.06'''), ('m', '''92233720368547758.07'''),
  ('t', '''00:00'''), ('t', '''00:00:00.000001'''), ('t', '''01:37:01.234'''),
  ('t', '''01:37:01.233999'''), ('t', '''12:00'''), ('t', '''23:59:59.999999'''), ('t', '''24:00:00'''),
  ('ma', '''00:00:00:00:00:00'''), ('ma', '''00:00:00:00:00:01'''), ('ma', '''7f:ff:ff:ff:ff:ff'''),
  ('ma', '''80:00:00:00:00:00'''), ('ma', '''c4:ca:42:38:a0:b9'''), ('ma', '''c4:ca:42:38:a0:ba'''),
  ('ma', '''c4:ca:42:38:a0:b8'''), ('ma', '''ff:ff:ff:ff:ff:fe'''), ('ma', '''ff:ff:ff:ff:ff:ff'''),
  ('m8', '''00:00:00:00:00:00:00:00'''), ('m8', '''00:00:00:00:00:00:00:01'''),
  ('m8', '''7f:ff:ff:ff:ff:ff:ff:ff'''), ('m8', '''80:00:00:00:00:00:00:00'''),
  ('m8', '''c4:ca:42:38:a0:b9:23:82'''), ('m8', '''c4:ca:42:38:a0:b9:23:83'''),
  ('m8', '''c4:ca:42:38:a0:b9:23:81'''), ('m8', '''ff:ff:ff:ff:ff:ff:ff:fe'''),
  ('m8', '''ff:ff:ff:ff:ff:ff:ff:ff''');
-- every bound is of the column's type
UPDATE mt_bounds bs SET b = b || '::' || typ FROM mt_cols mc WHERE mc.c = bs.c;

-- every column, operator and bound through the index (index-only scan and
-- bitmap scan) against a sequential scan: the failures, if any.  The
-- planner folds "b = true" into "b" and "b = false" into "NOT b", which
-- it matches to an index only for btree's and hash's own bool families
-- (IsBooleanOpfamily): fpbtree shows it btree's (pattern.c), so they are
-- index conditions here too.
CREATE VIEW mt_queries AS
SELECT c, op, b
FROM mt_bounds, unnest(ARRAY['<', '<=', '=', '>=', '>']) op;
SELECT c, op, b, r
FROM (SELECT c, op, b,
             fpb_same(format('SELECT %I FROM mt WHERE %I %s %s', c, c, op, b), 'mt_' || c) AS r
      FROM mt_queries) s
WHERE r <> 'ok';
SELECT count(*) AS checked FROM mt_queries;
-- a bool column: "=" is an index condition, as with btree
SELECT fpb_plan('SELECT b FROM mt WHERE b = true', 'index');
SELECT fpb_plan('SELECT b FROM mt WHERE NOT b', 'index');
SELECT fpb_same('SELECT b FROM mt WHERE b >= true', 'mt_b');
SELECT mt_q, fpb_rows(mt_q, 'index') = fpb_rows(mt_q, 'seq') AS same
FROM unnest(ARRAY['SELECT count(*) FROM mt WHERE b = true', 'SELECT count(*) FROM mt WHERE b = false',
                  'SELECT count(*) FROM mt WHERE NOT b']) mt_q;

-- the same queries under the btree indexes, which must return the same
-- rows as fpbtree's, in the same order when ordered
CREATE FUNCTION mt_vs_btree(q text, ordered bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	fp text[] := fpb_rows(replace(q, '$T', 'mt'), 'index');
	bt text[] := fpb_rows(replace(q, '$T', 'mtb'), 'index');
BEGIN
	IF NOT ordered THEN
		fp := fpb_sorted(fp);
		bt := fpb_sorted(bt);
	END IF;
	IF fp IS DISTINCT FROM bt THEN
		RETURN format('fpbtree %s, btree %s', fp, bt);
	END IF;
	RETURN 'ok';
END $$;
SELECT c, op, b, r
FROM (SELECT c, op, b,
             mt_vs_btree(format('SELECT %I FROM $T WHERE %I %s %s', c, c, op, b), false) AS r
      FROM mt_bounds, unnest(ARRAY['<', '<=', '=', '>=', '>']) op) s
WHERE r <> 'ok';

-- ORDER BY both ways, NULLs where btree puts them, ranges with two
-- bounds, IS NULL: against a sequential scan and against btree
SELECT c, q, fpb_same(format(q, c), 'mt_' || c, true) AS seq,
       mt_vs_btree(replace(format(q, c), 'mt ', '$T '), true) AS btree
FROM mt_cols,
     unnest(ARRAY['SELECT %1$I FROM mt ORDER BY %1$I',
                  'SELECT %1$I FROM mt ORDER BY %1$I DESC',
                  'SELECT %1$I FROM mt ORDER BY %1$I DESC NULLS LAST',
                  'SELECT %1$I FROM mt ORDER BY %1$I NULLS FIRST LIMIT 7',
                  'SELECT %1$I FROM mt WHERE %1$I IS NULL',
                  'SELECT %1$I FROM mt WHERE %1$I IS NOT NULL ORDER BY %1$I DESC LIMIT 50']) q
WHERE fpb_same(format(q, c), 'mt_' || c, true) <> 'ok'
   OR mt_vs_btree(replace(format(q, c), 'mt ', '$T '), true) <> 'ok';
SELECT fpb_same('SELECT ch FROM mt WHERE ch > ''\177'' AND ch <= ''\377'' ORDER BY ch DESC', 'mt_ch', true);
SELECT fpb_same('SELECT m FROM mt WHERE m BETWEEN ''-3.00'' AND ''4.50'' ORDER BY m', 'mt_m', true);
SELECT fpb_same('SELECT t FROM mt WHERE t >= ''23:00'' AND t < ''24:00:00'' ORDER BY t DESC', 'mt_t', true);
SELECT fpb_same('SELECT ma FROM mt WHERE ma > ''7f:00:00:00:00:00'' AND ma < ''90:00:00:00:00:00'' ORDER BY ma', 'mt_ma', true);
SELECT fpb_same('SELECT m8 FROM mt WHERE m8 >= ''7f:00:00:00:00:00:00:00'' AND m8 <= ''80:00:00:00:00:00:00:00'' ORDER BY m8 DESC', 'mt_m8', true);
SELECT fpb_same('SELECT b, count(*) FROM mt WHERE b = true GROUP BY b', 'mt_b');
-- the plans are index-only scans, which return the decoded values
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT ma FROM mt WHERE ma >= 'ff:ff:ff:ff:ff:ff';
SELECT ma FROM mt WHERE ma >= 'ff:ff:ff:ff:ff:ff';
EXPLAIN (COSTS OFF) SELECT m8 FROM mt ORDER BY m8 DESC NULLS LAST LIMIT 1;
SELECT m8 FROM mt ORDER BY m8 DESC NULLS LAST LIMIT 1;
SELECT m::numeric FROM (SELECT m FROM mt ORDER BY m LIMIT 1) s;
SELECT t FROM mt ORDER BY t DESC NULLS LAST LIMIT 2;
SELECT ch = '\377' AS ch_max FROM mt ORDER BY ch DESC NULLS LAST LIMIT 1;
SELECT b, count(*) FROM mt GROUP BY b ORDER BY b;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- parallel index-only scans: the workers decode the values too
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_index_scan_size = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) CREATE TABLE mt_par_ma AS SELECT ma::text AS v FROM mt WHERE ma > '80:00:00:00:00:00';
EXPLAIN (COSTS OFF) CREATE TABLE mt_par_t AS SELECT t::text AS v FROM mt WHERE t < '20:00';
CREATE TABLE mt_par_ma AS SELECT ma::text AS v FROM mt WHERE ma > '80:00:00:00:00:00';
CREATE TABLE mt_par_m8 AS SELECT m8::text AS v FROM mt WHERE m8 <= '80:00:00:00:00:00:00:00';
CREATE TABLE mt_par_m AS SELECT m::text AS v FROM mt WHERE m >= '-1.00';
CREATE TABLE mt_par_t AS SELECT t::text AS v FROM mt WHERE t < '20:00';
-- the same under a sequential scan
SET max_parallel_workers_per_gather = 0;
SET enable_seqscan = on;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
CREATE TABLE mt_ref_ma AS SELECT ma::text AS v FROM mt WHERE ma > '80:00:00:00:00:00';
CREATE TABLE mt_ref_m8 AS SELECT m8::text AS v FROM mt WHERE m8 <= '80:00:00:00:00:00:00:00';
CREATE TABLE mt_ref_m AS SELECT m::text AS v FROM mt WHERE m >= '-1.00';
CREATE TABLE mt_ref_t AS SELECT t::text AS v FROM mt WHERE t < '20:00';
RESET enable_indexscan;
RESET enable_indexonlyscan;
SELECT 'ma' AS c, (SELECT count(*) FROM mt_ref_ma) AS n,
       (SELECT count(*) FROM (SELECT v FROM mt_par_ma EXCEPT ALL SELECT v FROM mt_ref_ma) x) AS not_in_seq,
       (SELECT count(*) FROM (SELECT v FROM mt_ref_ma EXCEPT ALL SELECT v FROM mt_par_ma) x) AS not_in_par
UNION ALL
SELECT 'm8' AS c, (SELECT count(*) FROM mt_ref_m8) AS n,
       (SELECT count(*) FROM (SELECT v FROM mt_par_m8 EXCEPT ALL SELECT v FROM mt_ref_m8) x) AS not_in_seq,
       (SELECT count(*) FROM (SELECT v FROM mt_ref_m8 EXCEPT ALL SELECT v FROM mt_par_m8) x) AS not_in_par
UNION ALL
SELECT 'm' AS c, (SELECT count(*) FROM mt_ref_m) AS n,
       (SELECT count(*) FROM (SELECT v FROM mt_par_m EXCEPT ALL SELECT v FROM mt_ref_m) x) AS not_in_seq,
       (SELECT count(*) FROM (SELECT v FROM mt_ref_m EXCEPT ALL SELECT v FROM mt_par_m) x) AS not_in_par
UNION ALL
SELECT 't' AS c, (SELECT count(*) FROM mt_ref_t) AS n,
       (SELECT count(*) FROM (SELECT v FROM mt_par_t EXCEPT ALL SELECT v FROM mt_ref_t) x) AS not_in_seq,
       (SELECT count(*) FROM (SELECT v FROM mt_ref_t EXCEPT ALL SELECT v FROM mt_par_t) x) AS not_in_par;
DROP TABLE mt_par_ma, mt_ref_ma, mt_par_m8, mt_ref_m8, mt_par_m, mt_ref_m, mt_par_t, mt_ref_t;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_index_scan_size;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- inserts through the index, deletes, VACUUM: the structure and every
-- heap tuple still indexed, and the scans still agree
INSERT INTO mt SELECT id + 10000, b, ch, m, t, ma, m8 FROM mt WHERE id % 3 = 0;
INSERT INTO mt SELECT g, NULL, (g % 256 - 128)::"char", (g - 5000)::int8::money,
       time '12:00' + g * interval '1 microsecond', substr(md5(g::text), 1, 12)::macaddr,
       substr(md5(g::text), 1, 16)::macaddr8
FROM generate_series(20000, 20999) g;
SELECT fpbtree_check('mt_' || c, true) FROM mt_cols ORDER BY c;
DELETE FROM mt WHERE id % 5 = 1;
VACUUM mt;
SELECT fpbtree_check('mt_' || c, true) FROM mt_cols ORDER BY c;
SELECT c, op, b, r
FROM (SELECT c, op, b,
             fpb_same(format('SELECT %I FROM mt WHERE %I %s %s', c, c, op, b), 'mt_' || c) AS r
      FROM mt_queries) s
WHERE r <> 'ok';
SELECT c, fpb_same(format('SELECT %1$I FROM mt ORDER BY %1$I DESC', c), 'mt_' || c, true)
FROM mt_cols ORDER BY c;

-- unique indexes: built on distinct values, then a duplicate of a stored
-- value, of each end of the range, and a new value, under btree and
-- fpbtree: the same outcomes
CREATE FUNCTION mt_unique(c text, typ text, dup text, fresh text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text := '';
	am text;
	v text;
BEGIN
	FOREACH am IN ARRAY ARRAY['btree', 'fpbtree'] LOOP
		EXECUTE format('CREATE TABLE mt_u (v %s)', typ);
		EXECUTE format('INSERT INTO mt_u SELECT DISTINCT %I FROM mtb WHERE %I IS DISTINCT FROM %s::%s',
					   c, c, fresh, typ);
		INSERT INTO mt_u VALUES (NULL);
		EXECUTE format('CREATE UNIQUE INDEX mt_u_v ON mt_u USING %s (v)', am);
		r := r || am || ':';
		FOREACH v IN ARRAY ARRAY[dup, fresh, fresh, 'NULL'] LOOP
			BEGIN
				EXECUTE format('INSERT INTO mt_u VALUES (%s::%s)', v, typ);
				r := r || ' ok;';
			EXCEPTION WHEN unique_violation THEN
				r := r || ' ' || SQLERRM || ';';
			END;
		END LOOP;
		IF am = 'fpbtree' THEN
			PERFORM fpbtree_check('mt_u_v', true);
		END IF;
		DROP TABLE mt_u;
		-- a unique index cannot be built over duplicates
		EXECUTE format('CREATE TABLE mt_d AS SELECT %1$I AS v FROM mtb UNION ALL SELECT %1$I FROM mtb WHERE id = -2', c);
		BEGIN
			EXECUTE format('CREATE UNIQUE INDEX mt_d_v ON mt_d USING %s (v)', am);
			r := r || ' built over duplicates';
		EXCEPTION WHEN unique_violation THEN
			r := r || ' duplicates refused';
		END;
		DROP TABLE mt_d;
		r := r || E'\n';
	END LOOP;
	RETURN r;
END $$;
SELECT mt_unique('b', 'bool', 'true', 'false');
SELECT mt_unique('ch', '"char"', '''\377''', '''\200''');
SELECT mt_unique('m', 'money', '''92233720368547758.07''', '''-92233720368547758.08''');
SELECT mt_unique('t', 'time', '''00:00''', '''24:00:00''');
SELECT mt_unique('ma', 'macaddr', '''00:00:00:00:00:00''', '''ff:ff:ff:ff:ff:ff''');
SELECT mt_unique('m8', 'macaddr8', '''ff:ff:ff:ff:ff:ff:ff:ff''', '''00:00:00:00:00:00:00:00''');

DROP VIEW mt_queries;
DROP TABLE mt, mtb, mt_cols, mt_bounds;
DROP FUNCTION mt_keys(text, text), mt_vs_btree(text, bool),
	mt_unique(text, text, text, text);
