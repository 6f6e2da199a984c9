--
-- 63_upsert: INSERT ... ON CONFLICT on tables with unique fpbtree indexes
-- (src/am/upsert.c).  PostgreSQL 15's executor refuses every ON CONFLICT on
-- a table with a unique index of another access method than btree; fpbtree
-- opens the indexes of such a statement itself.  The same random statements
-- run against a table whose unique indexes are btree's and one whose unique
-- indexes are fpbtree's: inferred arbiters of one column, of text, of two
-- columns with NULLS NOT DISTINCT, and a partial one; DO NOTHING with and
-- without a target, DO UPDATE with excluded values and a WHERE, several rows
-- per statement, RETURNING, deletes and updates between them.  Then a
-- generic plan, a WITH query, EXPLAIN (ANALYZE), a nondeterministic
-- collation, which tables the hook leaves alone, a btree primary key beside
-- an fpbtree unique index, partitions, and MERGE and COPY.
--

\set ECHO none
\i sql/include/setup.sql
\set ECHO all

CREATE TABLE ups_bt (k int4, t text, a int4, b int4, p int4, n int4);
CREATE TABLE ups_fp (LIKE ups_bt);
CREATE UNIQUE INDEX ups_bt_k ON ups_bt (k);
CREATE UNIQUE INDEX ups_bt_t ON ups_bt (t);
CREATE UNIQUE INDEX ups_bt_ab ON ups_bt (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX ups_bt_p ON ups_bt (p) WHERE p > 0;
CREATE UNIQUE INDEX ups_fp_k ON ups_fp USING fpbtree (k);
CREATE UNIQUE INDEX ups_fp_t ON ups_fp USING fpbtree (t);
CREATE UNIQUE INDEX ups_fp_ab ON ups_fp USING fpbtree (a, b) NULLS NOT DISTINCT;
CREATE UNIQUE INDEX ups_fp_p ON ups_fp USING fpbtree (p) WHERE p > 0;

-- the outcome of a statement on table tab: its RETURNING rows, sorted, or
-- its error's SQLSTATE and message with the index names made alike
CREATE FUNCTION pg_temp.ups_run(stmt text, tab text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	res text;
BEGIN
	EXECUTE format('WITH r AS (%s RETURNING *) SELECT coalesce(string_agg(r::text, '' '' ORDER BY r::text), '''') FROM r',
				   replace(stmt, 'TAB', tab))
		INTO res;
	RETURN res;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ' ' || replace(SQLERRM, tab, 'TAB');
END $$;

CREATE FUNCTION pg_temp.ups_val(dom int) RETURNS text
LANGUAGE sql AS $$
	SELECT CASE WHEN random() < 0.1 THEN 'NULL'
				ELSE floor(random() * dom)::int::text END
$$;

CREATE FUNCTION pg_temp.ups_row() RETURNS text
LANGUAGE sql AS $$
	SELECT format('(%s, %s, %s, %s, %s, 1)', pg_temp.ups_val(40),
				  CASE WHEN random() < 0.1 THEN 'NULL'
					   ELSE quote_literal('t' || floor(random() * 40)::int) END,
				  pg_temp.ups_val(6), pg_temp.ups_val(6),
				  (floor(random() * 30)::int - 10)::text)
$$;

CREATE TEMP TABLE ups_outcome (outcome text);
CREATE FUNCTION pg_temp.ups_probe(n int, seed float8) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	targets text[] := ARRAY['', '(k)', '(t)', '(a, b)', '(p) WHERE p > 0'];
	stmt text;
	target text;
	r float8;
	rb text;
	rf text;
BEGIN
	PERFORM setseed(seed);
	FOR i IN 1..n LOOP
		r := random();
		target := targets[1 + floor(random() * 5)::int];
		stmt := 'INSERT INTO TAB AS x VALUES ' || pg_temp.ups_row();
		IF random() < 0.3 THEN
			stmt := stmt || ', ' || pg_temp.ups_row();
		END IF;
		IF r < 0.35 THEN
			stmt := stmt || ' ON CONFLICT ' || target || ' DO NOTHING';
		ELSIF r < 0.8 AND target <> '' THEN
			stmt := stmt || ' ON CONFLICT ' || target ||
				' DO UPDATE SET n = x.n + excluded.n';
			IF random() < 0.3 THEN
				stmt := stmt || ' WHERE x.n < 3';
			END IF;
		ELSIF r < 0.9 THEN
			stmt := format('DELETE FROM TAB WHERE k = %s', floor(random() * 40)::int);
		ELSE
			stmt := format('UPDATE TAB SET k = %s WHERE t = %L', floor(random() * 40)::int,
						   't' || floor(random() * 40)::int);
		END IF;
		rb := pg_temp.ups_run(stmt, 'ups_bt');
		rf := pg_temp.ups_run(stmt, 'ups_fp');
		INSERT INTO ups_outcome VALUES (CASE WHEN rb ~ '^[0-9A-Z]{5} ' THEN left(rb, 5)
			WHEN rb = '' THEN 'no row' ELSE 'rows' END);
		IF rb IS DISTINCT FROM rf THEN
			RETURN NEXT format('%s: btree %s, fpbtree %s', stmt, rb, rf);
		END IF;
	END LOOP;
END $$;
SELECT pg_temp.ups_probe(600, 0.25);
-- what the statements did: rows, none, unique_violation, cardinality_violation
SELECT outcome, count(*) FROM ups_outcome GROUP BY 1 ORDER BY 1;
SELECT count(*) FROM ups_fp;
-- the same rows in the end
SELECT count(*) FROM (SELECT * FROM ups_bt EXCEPT ALL SELECT * FROM ups_fp) d;
SELECT count(*) FROM (SELECT * FROM ups_fp EXCEPT ALL SELECT * FROM ups_bt) d;
SELECT fpbtree_check('ups_fp_k', true), fpbtree_check('ups_fp_t', true),
	   fpbtree_check('ups_fp_ab', true), fpbtree_check('ups_fp_p', true);

-- the fpbtree index is the inferred arbiter
EXPLAIN (COSTS OFF) INSERT INTO ups_fp VALUES (1, 'x', 1, 1, 1, 1)
	ON CONFLICT (t) DO UPDATE SET n = ups_fp.n + 1;

-- a generic plan, executed again and again
SET plan_cache_mode = force_generic_plan;
PREPARE ups_p(int4) AS INSERT INTO ups_fp (k, a, b, n) VALUES ($1, $1, -1, 1)
	ON CONFLICT (k) DO UPDATE SET n = ups_fp.n + 1 RETURNING k, n;
DELETE FROM ups_fp WHERE k IN (100, 101);
EXECUTE ups_p(100);
EXECUTE ups_p(100);
EXECUTE ups_p(101);
EXECUTE ups_p(100);
DEALLOCATE ups_p;
RESET plan_cache_mode;

-- in a WITH query, and the statement reads its own table
WITH w AS (INSERT INTO ups_fp (k, a, b, n) VALUES (100, 100, -1, 10), (102, 102, -1, 10)
		   ON CONFLICT (k) DO UPDATE SET n = ups_fp.n + excluded.n RETURNING k, n)
SELECT * FROM w ORDER BY k;
INSERT INTO ups_fp (k, a, b, n) SELECT k + 1000, a, -2, n FROM ups_fp WHERE k >= 100
	ON CONFLICT DO NOTHING;
SELECT k, n FROM ups_fp WHERE k >= 100 ORDER BY k;

-- EXPLAIN ANALYZE runs the upsert
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
INSERT INTO ups_fp (k, a, b, n) VALUES (100, 100, -1, 1)
	ON CONFLICT (k) DO UPDATE SET n = ups_fp.n + 1;
SELECT n FROM ups_fp WHERE k = 100;

-- a unique text index under a nondeterministic collation: one key in two
-- spellings ('straße' and 'STRASSE' differ at this strength)
CREATE COLLATION ups_ci (provider = icu, locale = 'und-u-ks-level2',
						 deterministic = false);
CREATE TABLE ups_ci_t (k text COLLATE ups_ci, n int4);
CREATE UNIQUE INDEX ups_ci_k ON ups_ci_t USING fpbtree (k);
INSERT INTO ups_ci_t VALUES ('Key7', 1), ('straße', 1);
INSERT INTO ups_ci_t VALUES ('KEY7', 1) ON CONFLICT (k) DO UPDATE SET n = ups_ci_t.n + 1;
INSERT INTO ups_ci_t VALUES ('STRASSE', 1) ON CONFLICT DO NOTHING;
INSERT INTO ups_ci_t VALUES ('key8', 1) ON CONFLICT (k) DO UPDATE SET n = ups_ci_t.n + 1;
SELECT k, n FROM ups_ci_t ORDER BY k COLLATE "C";

-- statements on tables without a unique fpbtree index are the executor's
-- alone: a statement trigger, which fires before the first row, sees the
-- indexes of such a table not yet opened (locked), as without the
-- extension; on a table with one, the hook has opened them at start
CREATE TABLE ups_plain (k int4, n int4);
CREATE UNIQUE INDEX ups_plain_k ON ups_plain (k);
CREATE TABLE ups_lockseen (tbl text, indexes_locked int8);
CREATE FUNCTION ups_seelocks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO ups_lockseen
	SELECT TG_TABLE_NAME, count(*) FROM pg_locks l
	JOIN pg_index i ON i.indexrelid = l.relation
	WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND i.indrelid = TG_RELID;
	RETURN NULL;
END $$;
CREATE TRIGGER ups_plain_seelocks BEFORE INSERT ON ups_plain
	FOR EACH STATEMENT EXECUTE FUNCTION ups_seelocks();
CREATE TRIGGER ups_fp_seelocks BEFORE INSERT ON ups_fp
	FOR EACH STATEMENT EXECUTE FUNCTION ups_seelocks();
INSERT INTO ups_plain VALUES (1, 1) ON CONFLICT DO NOTHING;
INSERT INTO ups_fp (k, a, b) VALUES (500, 500, -1) ON CONFLICT DO NOTHING;
SELECT * FROM ups_lockseen ORDER BY tbl;
DROP TRIGGER ups_fp_seelocks ON ups_fp;

-- a btree primary key beside a unique fpbtree index: ON CONFLICT on either
CREATE TABLE ups_pk (id int8 PRIMARY KEY, email text, n int4 DEFAULT 0);
CREATE UNIQUE INDEX ups_pk_email ON ups_pk USING fpbtree (email);
INSERT INTO ups_pk VALUES (1, 'a@x'), (2, 'b@x');
INSERT INTO ups_pk VALUES (1, 'c@x') ON CONFLICT (id) DO UPDATE SET n = ups_pk.n + 1;
INSERT INTO ups_pk VALUES (3, 'b@x') ON CONFLICT (email) DO UPDATE SET n = ups_pk.n + 10;
-- a conflict in the index that is not the arbiter is an error (as btree's)
INSERT INTO ups_pk VALUES (4, 'a@x') ON CONFLICT (id) DO NOTHING;
SELECT * FROM ups_pk ORDER BY id;

-- tuple routing opens a partition's indexes itself: a unique fpbtree index
-- of a partition still stops ON CONFLICT through the parent (the core's
-- check, whatever the arbiter: here a btree index of the parent), with an
-- error that says why instead of the core's internal one; but not into the
-- partition directly
CREATE TABLE ups_part (k int4, n int4, e int4) PARTITION BY RANGE (k);
CREATE UNIQUE INDEX ups_part_k ON ups_part (k);
CREATE TABLE ups_part1 PARTITION OF ups_part FOR VALUES FROM (0) TO (100);
INSERT INTO ups_part VALUES (1, 0, 1) ON CONFLICT (k) DO UPDATE SET n = ups_part.n + 1;
CREATE UNIQUE INDEX ups_part1_e ON ups_part1 USING fpbtree (e);
\set VERBOSITY sqlstate
INSERT INTO ups_part VALUES (1, 0, 1) ON CONFLICT (k) DO UPDATE SET n = ups_part.n + 1;
\set VERBOSITY default
INSERT INTO ups_part VALUES (2, 0, 2) ON CONFLICT DO NOTHING;
WITH w AS (INSERT INTO ups_part VALUES (3, 0, 3) ON CONFLICT DO NOTHING RETURNING k)
SELECT count(*) FROM w;
-- an exception handler sees the new error code
DO $$
BEGIN
	INSERT INTO ups_part VALUES (2, 0, 2) ON CONFLICT DO NOTHING;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'caught: %', SQLERRM;
END $$;
-- other errors of such statements are left as they are
INSERT INTO ups_part VALUES (1000, 0, 4) ON CONFLICT DO NOTHING;
SELECT * FROM ups_part;
DELETE FROM ups_part;
DROP INDEX ups_part1_e;
DROP INDEX ups_part_k;
ALTER TABLE ups_part DROP COLUMN e;
CREATE UNIQUE INDEX ups_part1_k ON ups_part1 USING fpbtree (k);
INSERT INTO ups_part VALUES (1, 1) ON CONFLICT DO NOTHING;
INSERT INTO ups_part1 VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET n = ups_part1.n + 1;
INSERT INTO ups_part1 VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET n = ups_part1.n + 1;
SELECT * FROM ups_part;

-- MERGE and COPY need no speculative insertion: a unique fpbtree index
-- takes them as btree's does
CREATE TABLE ups_tgt (k int4, n int4);
CREATE UNIQUE INDEX ups_tgt_k ON ups_tgt USING fpbtree (k);
CREATE TABLE ups_src (k int4, n int4);
INSERT INTO ups_tgt SELECT g, 0 FROM generate_series(1, 50) g;
INSERT INTO ups_src SELECT g, 1 FROM generate_series(40, 60) g;
MERGE INTO ups_tgt t USING ups_src s ON t.k = s.k
	WHEN MATCHED THEN UPDATE SET n = t.n + s.n
	WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.n);
SELECT count(*), sum(n) FROM ups_tgt;
MERGE INTO ups_tgt t USING (SELECT 70 AS k, 1 AS n UNION ALL SELECT 70, 2) s ON t.k = s.k
	WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.n);
COPY ups_tgt FROM STDIN;
100	1
101	1
\.
COPY ups_tgt FROM STDIN;
100	1
\.
SELECT count(*), fpbtree_check('ups_tgt_k', true) FROM ups_tgt;
