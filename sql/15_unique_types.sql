--
-- 15_unique_types: unique fpbtree indexes on every type with an operator
-- class, against unique btree indexes on the same rows: extreme values,
-- infinities, NULLs (distinct or not), and the values "=" identifies
-- although their keys differ (float -0 and +0), at insert and at build,
-- also when the versions of such a value span several leaf pages.
--

-- on its own: the extension and settings
\set ECHO none
\i sql/include/setup.sql
\set ECHO all

-- run stmt (with $T for the table, $AM for its index's USING clause)
-- against ut_bt and then ut_fp; the outcome of each: ok, or the SQLSTATE,
-- message and detail with the index name replaced by $I.  A build over
-- several duplicated values names one of them, which one depends on the
-- order btree's sort compares in: builds leave the detail out.
CREATE FUNCTION ut_one(stmt text, t text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    det text;
BEGIN
    EXECUTE replace(replace(stmt, '$AM',
                            CASE t WHEN 'ut_fp' THEN 'USING fpbtree' ELSE '' END),
                    '$T', t);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
    IF stmt LIKE 'CREATE%' THEN
        det := '';
    END IF;
    RETURN SQLSTATE || ' ' || replace(msg, t || '_k', '$I') || ' / ' || det;
END $$;

CREATE TABLE ut_log (n serial, typ text, stmt text, bt text, fp text);
CREATE FUNCTION ut_run(typ text, stmt text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO ut_log (typ, stmt, bt, fp)
    VALUES (typ, stmt, ut_one(stmt, 'ut_bt'), ut_one(stmt, 'ut_fp'));
$$;

-- For one type and a list of literals: inserts one by one into unique
-- indexes (every literal twice, the list's equal values meeting each
-- other), deletes and re-inserts, then builds over all of them (with
-- their duplicates, and again after deleting down to one row per value),
-- with NULLS DISTINCT and with NULLS NOT DISTINCT.
CREATE FUNCTION ut_type(typ text, vals text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v text;
    nnd text;
BEGIN
    FOREACH nnd IN ARRAY ARRAY['', ' NULLS NOT DISTINCT'] LOOP
        DROP TABLE IF EXISTS ut_bt, ut_fp;
        EXECUTE format('CREATE TABLE ut_bt (k %s, v int4)', typ);
        EXECUTE format('CREATE TABLE ut_fp (k %s, v int4)', typ);
        EXECUTE 'CREATE UNIQUE INDEX ut_bt_k ON ut_bt (k)' || nnd;
        EXECUTE 'CREATE UNIQUE INDEX ut_fp_k ON ut_fp USING fpbtree (k)' || nnd;
        FOR pass IN 1..2 LOOP
            FOREACH v IN ARRAY vals LOOP
                PERFORM ut_run(typ || nnd, format('INSERT INTO $T VALUES (%s, %s)', v, pass));
            END LOOP;
        END LOOP;
        FOREACH v IN ARRAY vals LOOP
            PERFORM ut_run(typ || nnd, format('DELETE FROM $T WHERE k = %s', v));
            PERFORM ut_run(typ || nnd, format('INSERT INTO $T VALUES (%s, 3)', v));
            PERFORM ut_run(typ || nnd, format('INSERT INTO $T VALUES (%s, 4)', v));
        END LOOP;
        PERFORM fpbtree_check('ut_fp_k', true);
        -- builds over the same rows, with every value twice
        DROP INDEX ut_bt_k, ut_fp_k;
        FOREACH v IN ARRAY vals LOOP
            PERFORM ut_run(typ || nnd, format('INSERT INTO $T VALUES (%s, 5)', v));
        END LOOP;
        PERFORM ut_run(typ || nnd, 'CREATE UNIQUE INDEX $T_k ON $T $AM (k)' || nnd);
        PERFORM ut_run(typ || nnd, 'DELETE FROM $T a WHERE EXISTS (SELECT FROM $T b WHERE b.k = a.k AND b.ctid < a.ctid)');
        PERFORM ut_run(typ || nnd, 'CREATE UNIQUE INDEX $T_k ON $T $AM (k)' || nnd);
        PERFORM ut_run(typ || nnd, 'DELETE FROM $T WHERE k IS NULL AND ctid > (SELECT min(ctid) FROM $T WHERE k IS NULL)');
        PERFORM ut_run(typ || nnd, 'CREATE UNIQUE INDEX $T_k ON $T $AM (k)' || nnd);
        IF to_regclass('ut_fp_k') IS NOT NULL THEN
            PERFORM fpbtree_check('ut_fp_k', true);
        END IF;
    END LOOP;
END $$;

SELECT ut_type('int2', ARRAY['-32768', '32767', '0', '-1', 'NULL', '32767']);
SELECT ut_type('int4', ARRAY['-2147483648', '2147483647', '0', 'NULL', '-2147483648']);
SELECT ut_type('int8', ARRAY['-9223372036854775808', '9223372036854775807', '0',
                             '-1', 'NULL', '9223372036854775807', 'NULL']);
SELECT ut_type('oid', ARRAY['0', '4294967295', '2147483648', 'NULL', '0']);
SELECT ut_type('date', ARRAY['''infinity''', '''-infinity''', '''4714-11-24 BC''',
                             '''5874897-12-31''', '''2000-01-01''', 'NULL', '''-infinity''']);
SELECT ut_type('timestamp', ARRAY['''infinity''', '''-infinity''', '''4714-11-24 00:00 BC''',
                                  '''294276-12-31 23:59:59.999999''', '''2000-01-01''', 'NULL',
                                  '''infinity''']);
SELECT ut_type('timestamptz', ARRAY['''infinity''', '''-infinity''', '''2000-01-01 00:00+00''',
                                    '''2000-01-01 01:00+01''', 'NULL']);
-- -0 = 0 and every NaN is equal to every other: one value each
SELECT ut_type('float8', ARRAY['0', '''-0''', '''NaN''', '-''NaN''::float8', '''Infinity''',
                               '''-Infinity''', '4.9e-324', '-4.9e-324', '1.7976931348623157e308',
                               'NULL', '''-0''']);
SELECT ut_type('float4', ARRAY['''-0''', '0', '''NaN''', '''Infinity''', '''-Infinity''',
                               '1.4e-45', '3.4028235e38', 'NULL', '0']);

-- every statement, how many btree refused, and how many fpbtree answered
-- otherwise (the statements where they differ follow)
SELECT typ, count(*) AS stmts, count(*) FILTER (WHERE bt <> 'ok') AS refused,
       count(*) FILTER (WHERE bt IS DISTINCT FROM fp) AS differ
FROM ut_log GROUP BY typ ORDER BY min(n);
SELECT typ, stmt, bt, fp FROM ut_log WHERE bt IS DISTINCT FROM fp ORDER BY n;

-- The versions of a zero span several leaf pages: a thousand dead versions
-- of -0 (an update of another indexed column makes a new entry each time),
-- then the live row is +0, whose entries come after them.  A -0 must still
-- find it, at insert and at build.
CREATE TABLE uz (k float8, v int4) WITH (autovacuum_enabled = off);
CREATE UNIQUE INDEX uz_k ON uz USING fpbtree (k);
CREATE INDEX uz_v ON uz (v);
INSERT INTO uz SELECT g / 7.0, g FROM generate_series(-3000, 3000) g WHERE g <> 0;
INSERT INTO uz VALUES ('-0', 0);
DO $$ BEGIN FOR i IN 1..1000 LOOP UPDATE uz SET v = v + 1 WHERE k = 0; END LOOP; END $$;
UPDATE uz SET k = 0 WHERE k = 0;
SELECT count(*) AS live_zeros FROM uz WHERE k = 0;
INSERT INTO uz VALUES ('-0', 1);
INSERT INTO uz VALUES (0, 1);
SELECT fpbtree_check('uz_k', true);
DROP INDEX uz_k;
INSERT INTO uz VALUES ('-0', 2);
CREATE UNIQUE INDEX uz_k ON uz USING fpbtree (k);
CREATE UNIQUE INDEX uz_kb ON uz (k);
DELETE FROM uz WHERE v = 2;
CREATE UNIQUE INDEX uz_k ON uz USING fpbtree (k);
SELECT fpbtree_check('uz_k', true);
