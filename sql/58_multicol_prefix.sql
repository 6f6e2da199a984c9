--
-- 58_multicol_prefix: the coded prefix of multi-column indexes (README
-- "Multi-column keys", Prefix).  Each shape of columns gets two tables of
-- the same rows: one index in the coded format, one in the old format
-- (fpbtree.debug_multi_prefix_first, the prefix of indexes built before it).
-- Random predicates on both, against sequential scans, after the build and
-- after inserts, deletes and VACUUM; nested-loop rescans; each index checked.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\i sql/include/pageinspect.sql
\set ECHO all

-- Shapes: name, column definitions, index columns, the index order
-- reversed, a row expression of g (values near zero, extremes, NULLs,
-- repeats), and per column a literal generator (an expression of r, a
-- random number in [0, 1)).
CREATE TABLE shapes (name text, cols text, icols text, rcols text,
					 rowexpr text, gens text[]);
INSERT INTO shapes VALUES
('ii', 'a int4, b int8', 'a, b', 'a DESC, b DESC',
 $$CASE WHEN g % 97 = 0 THEN NULL WHEN g % 89 = 0 THEN -2147483648
		WHEN g % 83 = 0 THEN 2147483647 ELSE (g % 13) - 6 END,
   CASE WHEN g % 79 = 0 THEN NULL WHEN g % 73 = 0 THEN -9223372036854775808
		WHEN g % 71 = 0 THEN 9223372036854775807
		ELSE (hashint4(g) % 5000)::int8 END$$,
 ARRAY[$$(CASE WHEN r < 0.05 THEN -2147483648 WHEN r > 0.95 THEN 2147483647
			   ELSE (r * 17)::int - 8 END)::text$$,
	   $$((r * 10400)::int - 5200)::text$$]),
('desc', 'a int2, b int4', 'a DESC, b NULLS FIRST', 'a, b DESC NULLS LAST',
 $$CASE WHEN g % 61 = 0 THEN NULL WHEN g % 59 = 0 THEN -32768
		WHEN g % 53 = 0 THEN 32767 ELSE (g % 9) - 4 END,
   CASE WHEN g % 47 = 0 THEN NULL ELSE hashint4(g) % 100 END$$,
 ARRAY[$$((r * 13)::int - 6)::text$$, $$((r * 220)::int - 110)::text$$]),
('unsigned', 'a "char", b oid, c int4', 'a, b, c', 'a DESC, b DESC, c DESC',
 $$CASE WHEN g % 43 = 0 THEN NULL ELSE chr(65 + g % 3)::"char" END,
   CASE WHEN g % 41 = 0 THEN 4294967295::oid ELSE (g % 50)::oid END,
   g % 7$$,
 ARRAY[$$quote_literal(chr(64 + (r * 5)::int)) || '::"char"'$$,
	   $$quote_literal((r * 60)::int) || '::oid'$$,
	   $$((r * 9)::int - 1)::text$$]),
('float', 'a float8, b int4', 'a, b', 'a DESC, b DESC',
 $$CASE g % 11 WHEN 0 THEN '-0'::float8 WHEN 1 THEN 0 WHEN 2 THEN 'NaN'
		WHEN 3 THEN '-Infinity' WHEN 4 THEN 'Infinity' WHEN 5 THEN NULL
		ELSE ((g % 7) - 3) * 0.5 END,
   g % 5$$,
 ARRAY[$$quote_literal((ARRAY['-0', 'NaN', 'Infinity', '-Infinity', '0', '0.5',
							  '-1', '1.5'])[1 + (r * 8)::int % 8]) || '::float8'$$,
	   $$((r * 7)::int - 1)::text$$]),
('float2', 'a int4, b float8', 'a, b DESC', 'a DESC, b',
 $$g % 3,
   CASE g % 11 WHEN 0 THEN '-0'::float8 WHEN 1 THEN 0 WHEN 2 THEN 'NaN'
		WHEN 3 THEN '-Infinity' WHEN 4 THEN 'Infinity' WHEN 5 THEN NULL
		ELSE ((g % 7) - 3) * 0.5 END$$,
 ARRAY[$$((r * 4)::int - 1)::text$$,
	   $$quote_literal((ARRAY['-0', 'NaN', 'Infinity', '-Infinity', '0', '0.5',
							  '-1', '1.5'])[1 + (r * 8)::int % 8]) || '::float8'$$]),
('wide', 'a int8, b text, c int4', 'a, b, c', 'a DESC, b DESC, c DESC',
 $$(g % 5)::int8, CASE WHEN g % 37 = 0 THEN NULL ELSE 'v' || (g % 4) END, g % 11$$,
 ARRAY[$$((r * 7)::int - 1)::text$$, $$quote_literal('v' || (r * 5)::int)$$,
	   $$((r * 13)::int - 1)::text$$]),
('widedesc', 'a int4, b text COLLATE "C", c int4', 'a NULLS FIRST, b DESC NULLS LAST, c',
 'a DESC NULLS LAST, b NULLS FIRST, c DESC',
 $$CASE WHEN g % 41 = 0 THEN NULL ELSE g % 3 END,
   CASE WHEN g % 29 = 0 THEN NULL ELSE 'w' || (g % 7) || repeat('x', g % 3) END, g % 13$$,
 ARRAY[$$((r * 5)::int - 1)::text$$, $$quote_literal('w' || (r * 8)::int)$$,
	   $$((r * 15)::int - 1)::text$$]),
('ts', 'a timestamptz, b int4', 'a, b', 'a DESC, b DESC',
 $$timestamptz '2026-01-01 00:00+00' + (g % 40) * interval '0.3 s', g % 3$$,
 ARRAY[$$quote_literal(timestamptz '2026-01-01 00:00+00' + ((r * 44)::int - 2) * interval '0.3 s') || '::timestamptz'$$,
	   $$((r * 4)::int)::text$$]),
('four', 'a int4, b int4, c int4, d int4', 'a, b, c, d', 'a DESC, b DESC, c DESC, d DESC',
 $$g % 3, (g / 3) % 5, CASE WHEN g % 31 = 0 THEN NULL ELSE (g / 15) % 300 END,
   hashint4(g) % 100000$$,
 ARRAY[$$((r * 4)::int)::text$$, $$((r * 6)::int)::text$$, $$((r * 310)::int)::text$$,
	   $$((r * 200000)::int - 100000)::text$$]),
('zero', 'a int8, b int8', 'a DESC, b NULLS FIRST', 'a, b DESC NULLS LAST',
 $$CASE g % 5 WHEN 0 THEN 9223372036854775807 WHEN 1 THEN NULL
		WHEN 2 THEN -9223372036854775808 ELSE g % 7 END,
   CASE g % 4 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN NULL
		WHEN 2 THEN 9223372036854775807 ELSE g % 3 END$$,
 ARRAY[$$(CASE WHEN r < 0.4 THEN 9223372036854775807 WHEN r > 0.9 THEN -9223372036854775808
			   ELSE (r * 9)::int - 1 END)::text$$,
	   $$(CASE WHEN r < 0.3 THEN -9223372036854775808 WHEN r > 0.9 THEN 9223372036854775807
			   ELSE (r * 5)::int - 1 END)::text$$]),
('extremes', 'a int8, b int8', 'a DESC NULLS LAST, b DESC', 'a NULLS FIRST, b',
 $$CASE g % 6 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
		WHEN 2 THEN NULL WHEN 3 THEN 0 WHEN 4 THEN -1 ELSE g END,
   CASE g % 4 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
		WHEN 2 THEN NULL ELSE g % 10 END$$,
 ARRAY[$$(CASE WHEN r < 0.2 THEN -9223372036854775808 WHEN r > 0.8 THEN 9223372036854775807
			   ELSE (r * 30)::int - 2 END)::text$$,
	   $$((r * 12)::int - 1)::text$$]);

-- the tables of a shape: name_coded and name_first
CREATE FUNCTION pg_temp.tabs(s shapes) RETURNS text[]
LANGUAGE sql AS $$ SELECT ARRAY[s.name || '_coded', s.name || '_first'] $$;

-- make both tables of a shape, rows in a scrambled order, and their indexes
CREATE FUNCTION pg_temp.make(s shapes, n int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY pg_temp.tabs(s) LOOP
		EXECUTE format('CREATE TABLE %I (%s) WITH (autovacuum_enabled = off)', t, s.cols);
		EXECUTE format('INSERT INTO %I SELECT %s FROM generate_series(1, %s) g ORDER BY hashint4(g)',
					   t, s.rowexpr, n);
		PERFORM set_config('fpbtree.debug_multi_prefix_first',
						   (t LIKE '%_first')::text, true);
		EXECUTE format('CREATE INDEX %I ON %I USING fpbtree (%s)', t || '_i', t, s.icols);
	END LOOP;
END $$;

-- grow both tables by the same inserts (into the indexes' own formats) and
-- delete the same rows
CREATE FUNCTION pg_temp.churn(s shapes, n int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	t text;
BEGIN
	FOREACH t IN ARRAY pg_temp.tabs(s) LOOP
		EXECUTE format('INSERT INTO %I SELECT %s FROM generate_series(%s, %s) g ORDER BY hashint4(g + 7)',
					   t, s.rowexpr, n + 1, n + n / 2);
		EXECUTE format('DELETE FROM %I x WHERE hashtext(x::text) %% 5 = 0', t);
	END LOOP;
END $$;

-- n random predicates on the leading columns of a shape: equalities (or
-- IS NULL) on columns 1..m-1 and any operator on column m; each query run
-- on both tables (fpb_same: index and bitmap scans against a sequential
-- scan), some of them ordered either way.  Returns those that differ.
CREATE FUNCTION pg_temp.probe(s shapes, n int, seed float8) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	ncols int := array_length(s.gens, 1);
	colnames text[] := (ARRAY['a', 'b', 'c', 'd'])[1:ncols];
	ops text[] := ARRAY['=', '<', '<=', '>', '>=', 'IS NULL', 'BETWEEN'];
	lit text;
	lit2 text;
	q text;
	w text;
	m int;
	op text;
	res text;
	ordered bool;
	t text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		m := 1 + floor(random() * ncols)::int;
		w := '';
		FOR j IN 1..m LOOP
			EXECUTE format('SELECT %s FROM (SELECT %s::float8 AS r) x', s.gens[j], random()) INTO lit;
			IF j < m THEN
				op := CASE WHEN random() < 0.1 THEN 'IS NULL' ELSE '=' END;
			ELSE
				op := ops[1 + floor(random() * array_length(ops, 1))::int];
			END IF;
			IF op = 'IS NULL' THEN
				w := w || format(' AND %s IS NULL', colnames[j]);
			ELSIF op = 'BETWEEN' THEN
				EXECUTE format('SELECT %s FROM (SELECT %s::float8 AS r) x', s.gens[j], random()) INTO lit2;
				w := w || format(' AND %s BETWEEN %s AND %s', colnames[j], lit, lit2);
			ELSE
				w := w || format(' AND %s %s %s', colnames[j], op, lit);
			END IF;
		END LOOP;
		-- (not floats: -0 and 0 are equal, and their order free)
		ordered := random() < 0.3 AND s.name NOT LIKE 'float%';
		FOREACH t IN ARRAY pg_temp.tabs(s) LOOP
			q := format('SELECT %s FROM %I WHERE true%s', array_to_string(colnames, ', '), t, w);
			IF ordered THEN
				q := q || ' ORDER BY ' || CASE WHEN i % 2 = 0 THEN s.icols ELSE s.rcols END;
			END IF;
			res := fpb_same(q, t || '_i', ordered);
			IF res <> 'ok' THEN
				RETURN NEXT q || ': ' || res;
			END IF;
		END LOOP;
	END LOOP;
END $$;

SELECT pg_temp.make(s, 6000) FROM shapes s;
-- the versions and formats the metapages record: version 4 for every new
-- index; the old format where asked for (as an older build made it:
-- version 1, or 3 where a text column gives the format flag for compressed
-- long values), and where the first column is a float or a timestamp (no
-- room for more)
SELECT s.name, fpb_meta_version((s.name || '_coded_i')::regclass) AS coded,
	   fpb_meta_version((s.name || '_first_i')::regclass) AS first,
	   fpb_meta_mprefix((s.name || '_coded_i')::regclass) AS coded_fmt,
	   fpb_meta_mprefix((s.name || '_first_i')::regclass) AS first_fmt
FROM shapes s ORDER BY 1;
-- each index sound, its prefixes those of its format
SELECT s.name, t, fpbtree_check((t || '_i')::regclass, true)
FROM shapes s, unnest(pg_temp.tabs(s)) t ORDER BY 1, 2;
SELECT s.name, pg_temp.probe(s, 60, 0.25) FROM shapes s;

-- inserts (each into its index's format), deletes and VACUUM
SELECT pg_temp.churn(s, 6000) FROM shapes s;
VACUUM ANALYZE ii_coded, ii_first, desc_coded, desc_first, unsigned_coded,
	unsigned_first, float_coded, float_first, wide_coded, wide_first,
	ts_coded, ts_first, four_coded, four_first, extremes_coded, extremes_first,
	zero_coded, zero_first, float2_coded, float2_first;
SELECT s.name, t, fpbtree_check((t || '_i')::regclass, true)
FROM shapes s, unnest(pg_temp.tabs(s)) t ORDER BY 1, 2;
SELECT s.name, pg_temp.probe(s, 60, 0.5) FROM shapes s;

-- nested-loop probes by both leading columns, rescanned with each outer row
SET enable_hashjoin = off;
SET enable_mergejoin = off;
CREATE TABLE outer_ii AS
SELECT a, b FROM ii_coded WHERE b % 7 = 0
UNION ALL VALUES (NULL, 1), (-6, NULL), (2147483647, 0), (-2147483648, -1);
SELECT fpb_same('SELECT o.a, o.b, k.a, k.b FROM outer_ii o JOIN ii_coded k ON k.a = o.a AND k.b = o.b', 'ii_coded_i');
SELECT fpb_same('SELECT o.a, o.b, k.b FROM outer_ii o JOIN ii_first k ON k.a = o.a AND k.b >= o.b', 'ii_first_i');
SELECT fpb_same('SELECT o.a, k.b FROM outer_ii o JOIN four_coded k ON k.a = o.a % 3 AND k.b = o.b % 5 AND k.c < 40', 'four_coded_i');
RESET enable_hashjoin;
RESET enable_mergejoin;

-- a cursor both ways over a coded DESC index
BEGIN;
SELECT fpb_mode('index');
DECLARE k SCROLL CURSOR FOR SELECT a, b FROM desc_coded WHERE a BETWEEN -1 AND 1 ORDER BY a DESC, b NULLS FIRST;
FETCH 3 FROM k;
FETCH LAST FROM k;
FETCH BACKWARD 3 FROM k;
FETCH ABSOLUTE 40 FROM k;
COMMIT;

-- the developer setting is for superusers
CREATE ROLE fpb_prefix_user;
SET ROLE fpb_prefix_user;
SET fpbtree.debug_multi_prefix_first = on;
RESET ROLE;
DROP ROLE fpb_prefix_user;
