--
-- 59_enum_record: enums and composite types (README "Wide keys", version
-- 1.5).  Every operator on every label against sequential scans, with one-
-- and multi-column indexes, DESC and NULLS FIRST; labels added after the
-- build, also when ALTER TYPE renumbers the labels' sort positions (which
-- no stored prefix could follow); unique indexes; index-only scans; size
-- against btree.  Composite types under record_ops and record_image_ops,
-- with NULL rows and NULL fields, alone and in a multi-column index.
--

\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
-- labels added later have odd OIDs, which enum_cmp orders by sort position
ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok';
ALTER TYPE mood ADD VALUE 'glad' AFTER 'happy';

CREATE TABLE en (m mood, x int4, y mood) WITH (autovacuum_enabled = off);
CREATE FUNCTION en_rows(lo int, hi int) RETURNS SETOF en
LANGUAGE sql AS $$
	SELECT CASE WHEN g % 17 = 0 THEN NULL
				ELSE (enum_range(NULL::mood))[1 + abs(hashint4(g)) % 5] END,
		   g % 400,
		   CASE WHEN g % 13 = 0 THEN NULL
				ELSE (enum_range(NULL::mood))[1 + abs(hashint4(g + 1)) % 5] END
	FROM generate_series(lo, hi) g ORDER BY hashint4(g)
$$;
-- three tables of the same rows, one index each (no choice for the planner)
CREATE TABLE en_mx (LIKE en) WITH (autovacuum_enabled = off);
CREATE TABLE en_xy (LIKE en) WITH (autovacuum_enabled = off);
CREATE FUNCTION pg_temp.en_add(lo int, hi int) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO en SELECT * FROM en_rows(lo, hi);
	INSERT INTO en_mx SELECT * FROM en_rows(lo, hi);
	INSERT INTO en_xy SELECT * FROM en_rows(lo, hi);
$$;
SELECT pg_temp.en_add(1, 20000);
CREATE INDEX en_i ON en USING fpbtree (m);
CREATE INDEX en_mx_i ON en_mx USING fpbtree (m, x);
CREATE INDEX en_xy_i ON en_xy USING fpbtree (x, y DESC NULLS FIRST);
VACUUM ANALYZE en, en_mx, en_xy;
SELECT fpbtree_check('en_i', true), fpbtree_check('en_mx_i', true),
	   fpbtree_check('en_xy_i', true);

-- each operator against each label, and IS NULL, on each index; the
-- results must equal a sequential scan's (fpb_same), ordered where asked
CREATE FUNCTION pg_temp.en_probe(seed float8) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	lab text;
	op text;
	q text;
	r text;
	x int;
	dir text;
BEGIN
	PERFORM setseed(seed);
	FOREACH lab IN ARRAY enum_range(NULL::mood)::text[] LOOP
		FOREACH op IN ARRAY ARRAY['<', '<=', '=', '>=', '>'] LOOP
			x := floor(random() * 400)::int;
			FOREACH q IN ARRAY ARRAY[
				format('SELECT m FROM en WHERE m %s %L', op, lab),
				format('SELECT m, x FROM en_mx WHERE m %s %L AND x < %s', op, lab, x),
				format('SELECT x, y FROM en_xy WHERE x = %s AND y %s %L', x, op, lab)] LOOP
				r := fpb_same(q, substring(q FROM 'FROM (\w+)') || '_i');
				IF r <> 'ok' THEN
					RETURN NEXT q || ': ' || r;
				END IF;
			END LOOP;
			-- ordered, read forward or backward
			dir := CASE WHEN random() < 0.5 THEN 'DESC' ELSE 'ASC' END;
			q := format('SELECT m, x FROM en_mx WHERE m %s %L AND x < %s ORDER BY m %s, x %s',
						op, lab, x, dir, dir);
			r := fpb_same(q, 'en_mx_i', true);
			IF r <> 'ok' THEN
				RETURN NEXT q || ': ' || r;
			END IF;
		END LOOP;
	END LOOP;
	FOREACH q IN ARRAY ARRAY[
		'SELECT m FROM en WHERE m IS NULL',
		'SELECT m, x FROM en_mx WHERE m IS NULL AND x > 390',
		'SELECT x, y FROM en_xy WHERE x = 7 AND y IS NULL',
		'SELECT m FROM en WHERE m = ANY (''{glad,sad,glad}'')',
		'SELECT m, x FROM en_mx WHERE m = ANY (''{meh,happy}'') AND x = 5',
		'SELECT m, x FROM en_mx WHERE m = ANY (''{meh,happy}'') ORDER BY m, x'] LOOP
		r := fpb_same(q, substring(q FROM 'FROM (\w+)') || '_i', q LIKE '%ORDER BY%');
		IF r <> 'ok' THEN
			RETURN NEXT q || ': ' || r;
		END IF;
	END LOOP;
END $$;
SELECT pg_temp.en_probe(0.1);

-- index-only scans return the labels
SELECT fpb_plan('SELECT m FROM en WHERE m >= ''happy''', 'index');
SELECT m, count(*) FROM en WHERE m >= 'meh' GROUP BY m ORDER BY m;

-- a one-column DESC index, read both ways by a cursor
CREATE TABLE end_ (m mood) WITH (autovacuum_enabled = off);
INSERT INTO end_ SELECT m FROM en WHERE x < 40;
CREATE INDEX end_md ON end_ USING fpbtree (m DESC NULLS LAST);
SELECT fpb_same('SELECT m FROM end_ WHERE m < ''glad'' ORDER BY m DESC', 'end_md', true);
SELECT fpb_same('SELECT m FROM end_ WHERE m > ''sad'' ORDER BY m NULLS FIRST', 'end_md', true);
BEGIN;
SELECT fpb_mode('index');
DECLARE c SCROLL CURSOR FOR SELECT m FROM end_ WHERE m <= 'happy' ORDER BY m DESC;
FETCH 2 FROM c;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
COMMIT;

-- Labels added after the build.  Each new label before 'ok' halves the gap
-- below 'ok', until ALTER TYPE runs out of float4 precision and renumbers
-- every label's sort position (RenumberEnumType): the order stays, the
-- positions change.  No prefix taken from them would stay valid.
SELECT enumsortorder AS happy_before FROM pg_enum
WHERE enumtypid = 'mood'::regtype AND enumlabel = 'happy';
DO $$
BEGIN
	FOR i IN 1..30 LOOP
		EXECUTE format('ALTER TYPE mood ADD VALUE %L BEFORE %L', 'n' || i, 'ok');
	END LOOP;
END $$;
SELECT enumsortorder AS happy_after FROM pg_enum
WHERE enumtypid = 'mood'::regtype AND enumlabel = 'happy';
SELECT string_agg(l, ' ' ORDER BY o) AS labels
FROM unnest(enum_range(NULL::mood)::text[]) WITH ORDINALITY u(l, o);
SELECT pg_temp.en_add(20001, 30000);
DELETE FROM en WHERE hashint4(x) % 7 = 0;
DELETE FROM en_mx WHERE hashint4(x) % 7 = 0;
DELETE FROM en_xy WHERE hashint4(x) % 7 = 0;
VACUUM en, en_mx, en_xy;
SELECT fpbtree_check('en_i', true), fpbtree_check('en_mx_i', true),
	   fpbtree_check('en_xy_i', true);
SELECT pg_temp.en_probe(0.2);

-- unique indexes
CREATE TABLE eu (m mood, k int4);
CREATE UNIQUE INDEX eu_m ON eu USING fpbtree (m);
INSERT INTO eu VALUES ('sad', 1), ('n7', 2), ('glad', 3), (NULL, 4), (NULL, 5);
INSERT INTO eu VALUES ('n7', 6);
INSERT INTO eu VALUES ('n8', 7);
UPDATE eu SET m = 'n8' WHERE k = 3;
UPDATE eu SET m = 'n9' WHERE k = 3;
SELECT * FROM eu ORDER BY m, k;
CREATE UNIQUE INDEX eu_mk ON eu USING fpbtree (k, m) NULLS NOT DISTINCT;
INSERT INTO eu VALUES (NULL, 4);
SELECT fpbtree_check('eu_m', true), fpbtree_check('eu_mk', true);

-- NULLS FIRST, and a parallel build equal to the serial one
CREATE TABLE enf (m mood, x int) WITH (parallel_workers = 2);
INSERT INTO enf SELECT m, x FROM en_mx;
CREATE INDEX enf_m ON enf USING fpbtree (m NULLS FIRST, x);
SELECT fpb_same('SELECT m, x FROM enf WHERE m <= ''n3'' ORDER BY m NULLS FIRST, x', 'enf_m', true);
SELECT fpb_same('SELECT m, x FROM enf WHERE m IS NULL AND x < 20', 'enf_m');
SELECT md5(fpb_rows('SELECT m, x FROM enf ORDER BY m NULLS FIRST, x', 'index')::text)
	AS serial_rows \gset
DROP INDEX enf_m;
SET max_parallel_maintenance_workers = 2;
SET client_min_messages = debug1;
CREATE INDEX enf_m ON enf USING fpbtree (m NULLS FIRST, x);
RESET client_min_messages;
RESET max_parallel_maintenance_workers;
SELECT fpbtree_check('enf_m', true),
	   md5(fpb_rows('SELECT m, x FROM enf ORDER BY m NULLS FIRST, x', 'index')::text) =
	   :'serial_rows' AS same_rows;
SELECT fpb_same('SELECT m, x FROM enf WHERE m > ''n20'' ORDER BY m NULLS FIRST, x', 'enf_m', true);

-- runs of equal labels keep their value once: no larger than btree's
-- deduplicated index
CREATE TABLE esz (m mood);
INSERT INTO esz SELECT (enum_range(NULL::mood))[1 + g % 5] FROM generate_series(1, 200000) g;
CREATE INDEX esz_f ON esz USING fpbtree (m);
CREATE INDEX esz_b ON esz USING btree (m);
SELECT pg_relation_size('esz_f') <= pg_relation_size('esz_b') AS no_larger_than_btree;

-- Composite types: record_ops compares the columns with their default
-- btree classes (NULL fields after values), record_image_ops their bytes
-- (numeric 1.0 and 1.00 differ).
CREATE TYPE rc_t AS (a int4, b text, c numeric);
CREATE TABLE rc (id int4, p rc_t) WITH (autovacuum_enabled = off);
INSERT INTO rc
SELECT g, CASE WHEN g % 23 = 0 THEN NULL
			   ELSE ROW(CASE WHEN g % 19 = 0 THEN NULL ELSE g % 30 END,
						CASE WHEN g % 7 = 0 THEN NULL ELSE 'v' || (g % 11) END,
						CASE (g / 30) % 3 WHEN 0 THEN 1.0 WHEN 1 THEN 1.00 ELSE g % 5 END)::rc_t END
FROM generate_series(1, 6000) g ORDER BY hashint4(g);
CREATE INDEX rc_p ON rc USING fpbtree (p);
CREATE INDEX rc_pi ON rc USING fpbtree (p record_image_ops);
CREATE INDEX rc_ip ON rc USING fpbtree ((id % 10), p);
CREATE TABLE rcd (p rc_t) WITH (autovacuum_enabled = off);
INSERT INTO rcd SELECT p FROM rc;
CREATE INDEX rcd_pi ON rcd USING fpbtree (p record_image_ops DESC);
VACUUM ANALYZE rc, rcd;
SELECT fpbtree_check('rc_p', true), fpbtree_check('rc_pi', true),
	   fpbtree_check('rc_ip', true);
SELECT q, fpb_same(q, i, q LIKE '%ORDER BY%')
FROM (VALUES
	('SELECT p FROM rc WHERE p < ROW(10, ''v3'', 1)::rc_t', 'rc_p'),
	('SELECT p FROM rc WHERE p = ROW(4, ''v4'', 1)::rc_t', 'rc_p'),
	('SELECT p FROM rc WHERE p >= ROW(29, NULL, NULL)::rc_t', 'rc_p'),
	('SELECT (p).a, (p).b FROM rc WHERE p > ROW(20, ''v5'', 2)::rc_t ORDER BY p DESC', 'rc_p'),
	('SELECT (p).a, (p).b FROM rc WHERE p <= ROW(3, NULL, NULL)::rc_t ORDER BY p', 'rc_p'),
	('SELECT p FROM rc WHERE p *= ROW(3, ''v3'', 1.00)::rc_t', 'rc_pi'),
	('SELECT p FROM rc WHERE p *< ROW(3, ''v3'', 1.0)::rc_t', 'rc_pi'),
	('SELECT p FROM rc WHERE p *>= ROW(27, ''v1'', 1.0)::rc_t', 'rc_pi'),
	('SELECT id % 10, p FROM rc WHERE id % 10 = 4 AND p <= ROW(12, ''v2'', 4)::rc_t', 'rc_ip'),
	('SELECT p FROM rcd WHERE p *> ROW(25, ''v5'', 1.0)::rc_t ORDER BY p USING *>', 'rcd_pi'))
	v(q, i);
-- = and *= differ on 1.0 against 1.00 (IS NULL on a row tests its fields:
-- never an index condition, for btree neither)
SELECT (SELECT count(*) FROM rc WHERE p = ROW(3, 'v3', 1.00)::rc_t) AS eq,
	   (SELECT count(*) FROM rc WHERE p *= ROW(3, 'v3', 1.00)::rc_t) AS image_eq;
