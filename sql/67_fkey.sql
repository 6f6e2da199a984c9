--
-- 67_fkey: foreign keys referencing a table that has unique fpbtree
-- indexes.  PostgreSQL 15 rests a foreign key that names its referenced
-- columns on the oldest matching unique index and accepts only a btree
-- one; an older unique fpbtree index on the primary key's columns made it
-- fail with an internal error.  Such a foreign key now takes the primary
-- key; one that would rest on an fpbtree index otherwise is refused with
-- the foreign-key SQLSTATE and a hint.
--

\set ECHO none
\i sql/include/setup.sql
\set ECHO all

CREATE TABLE fk_acct (id int PRIMARY KEY, code int NOT NULL, a int, b int);
INSERT INTO fk_acct SELECT g, g + 1000, g % 10, g / 10 FROM generate_series(1, 100) g;
-- older than the primary key after the latter's REINDEX CONCURRENTLY
CREATE UNIQUE INDEX fk_acct_id_fp ON fk_acct USING fpbtree (id);
CREATE TABLE fk_o1 (acct_id int REFERENCES fk_acct (id));
REINDEX INDEX CONCURRENTLY fk_acct_pkey;
CREATE TABLE fk_o2 (acct_id int REFERENCES fk_acct (id), x int);
ALTER TABLE fk_o1 ADD FOREIGN KEY (acct_id) REFERENCES fk_acct (id);
ALTER TABLE fk_o2 ADD COLUMN y int REFERENCES fk_acct (id) ON DELETE CASCADE;
CREATE TABLE fk_o3 (acct_id int, CONSTRAINT fk_o3_c FOREIGN KEY (acct_id) REFERENCES fk_acct (id));
SELECT conrelid::regclass, conname, pg_get_constraintdef(oid), conindid::regclass
FROM pg_constraint WHERE contype = 'f' AND conrelid::regclass::text LIKE 'fk_o%'
ORDER BY 1, 2;

-- the constraints work
INSERT INTO fk_o2 VALUES (5, 0, 7);
INSERT INTO fk_o2 VALUES (500, 0, NULL);
INSERT INTO fk_o2 VALUES (NULL, 0, 5000);
DELETE FROM fk_acct WHERE id = 7;
SELECT count(*) FROM fk_o2;
INSERT INTO fk_o2 VALUES (6, 0, NULL);
DELETE FROM fk_acct WHERE id = 6;

-- the same from a function's cached plan (its statement is copied first)
CREATE FUNCTION fk_add() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	ALTER TABLE fk_o3 ADD CONSTRAINT fk_o3_d FOREIGN KEY (acct_id) REFERENCES fk_acct (id);
END $$;
SELECT fk_add();
ALTER TABLE fk_o3 DROP CONSTRAINT fk_o3_d;
SELECT fk_add();
SELECT conname, conindid::regclass FROM pg_constraint WHERE conname = 'fk_o3_d';

-- a foreign key on columns whose only unique index is fpbtree's
CREATE UNIQUE INDEX fk_acct_code_fp ON fk_acct USING fpbtree (code);
CREATE TABLE fk_o5 (c int REFERENCES fk_acct (code));
-- ... and once a btree one exists, but is the newer: refused with a hint,
-- then accepted after the fpbtree index's REINDEX CONCURRENTLY
CREATE UNIQUE INDEX fk_acct_code_bt ON fk_acct (code);
CREATE TABLE fk_o5 (c int REFERENCES fk_acct (code));
REINDEX INDEX CONCURRENTLY fk_acct_code_fp;
CREATE TABLE fk_o5 (c int REFERENCES fk_acct (code));
-- two columns, named in another order than the btree index's: kept as named
CREATE UNIQUE INDEX fk_acct_ab_fp ON fk_acct USING fpbtree (a, b);
CREATE UNIQUE INDEX fk_acct_ab_bt ON fk_acct (a, b);
CREATE TABLE fk_o6 (b int, a int, FOREIGN KEY (b, a) REFERENCES fk_acct (b, a));
REINDEX INDEX CONCURRENTLY fk_acct_ab_fp;
CREATE TABLE fk_o6 (b int, a int, FOREIGN KEY (b, a) REFERENCES fk_acct (b, a));
INSERT INTO fk_o6 VALUES (2, 3);
INSERT INTO fk_o6 VALUES (3, 2);
SELECT conrelid::regclass, pg_get_constraintdef(oid), conindid::regclass
FROM pg_constraint WHERE conrelid IN ('fk_o5'::regclass, 'fk_o6'::regclass);

-- a statement that may change the referenced table's indexes before its
-- foreign key is added is left to the core as it is (here its internal
-- error; never a foreign key on other columns than those named)
CREATE TABLE fk_t (id int NOT NULL, id2 int NOT NULL, p int);
CREATE UNIQUE INDEX fk_t_id_fp ON fk_t USING fpbtree (id);
ALTER TABLE fk_t ADD CONSTRAINT fk_t_pkey PRIMARY KEY (id);
ALTER TABLE fk_t DROP CONSTRAINT fk_t_pkey, ADD CONSTRAINT fk_t_pkey2 PRIMARY KEY (id2),
	ADD CONSTRAINT fk_t_fk FOREIGN KEY (p) REFERENCES fk_t (id);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
WHERE conrelid = 'fk_t'::regclass ORDER BY 1;
-- a foreign key to a table of the same name in another schema: the one
-- the statement names
CREATE SCHEMA fk_s;
CREATE TABLE fk_s.fk_acct (id int PRIMARY KEY);
CREATE TABLE fk_o8 (c int REFERENCES fk_s.fk_acct (id));
SELECT conname, confrelid::regclass, conindid::regclass FROM pg_constraint
WHERE conrelid = 'fk_o8'::regclass;
CREATE UNIQUE INDEX fk_s_acct_fp ON fk_s.fk_acct USING fpbtree (id);
REINDEX INDEX CONCURRENTLY fk_s.fk_acct_pkey;
SET search_path = fk_s, public;
CREATE TABLE public.fk_o9 (c int REFERENCES fk_acct (id));
RESET search_path;
SELECT conname, confrelid::regclass, conindid::regclass FROM pg_constraint
WHERE conrelid = 'fk_o9'::regclass;
-- a column named twice: the core's error
CREATE TABLE fk_o10 (a int, b int, FOREIGN KEY (a, b) REFERENCES fk_acct (id, id));

-- what the core reports is left to it: missing tables and columns, a
-- self-reference in the table being created
CREATE TABLE fk_o7 (c int REFERENCES fk_nothing (id));
CREATE TABLE fk_o7 (c int REFERENCES fk_acct (nothing));
CREATE TABLE fk_tree (id int PRIMARY KEY, parent int REFERENCES fk_tree (id));
CREATE UNIQUE INDEX fk_tree_fp ON fk_tree USING fpbtree (id);
REINDEX INDEX CONCURRENTLY fk_tree_pkey;
ALTER TABLE fk_tree ADD FOREIGN KEY (parent) REFERENCES fk_tree (id);
SELECT count(*) FROM pg_constraint WHERE conrelid = 'fk_tree'::regclass
	AND contype = 'f' AND conindid = 'fk_tree_pkey'::regclass;
