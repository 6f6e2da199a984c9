--
-- 18_datetime_gap: a timestamp column against timestamptz keys, with column
-- values inside and around a daylight-saving gap.  The core compares by
-- converting each column value to timestamptz, which is not monotonic
-- there, so the values satisfying a key need not form one key range and a
-- scan's interval can hold entries that fail the key: they must never be
-- returned (the executor rechecks them).  Every row an index or bitmap
-- scan returns must be one a sequential scan returns.
--

-- on its own: the extension, settings, fpb_rows() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

SET TimeZone = 'America/New_York';
-- every 5 minutes through the night of 2024-03-10, whose local times
-- 02:00 to 02:59 do not exist (they read as EST, so 02:05 is 07:05 UTC,
-- after 03:00 EDT = 07:00 UTC)
CREATE TABLE gap (id int4, ts timestamp) WITH (autovacuum_enabled = off);
INSERT INTO gap SELECT g, timestamp '2024-03-10 00:00' + g * interval '5 minutes'
FROM generate_series(0, 100) g;
INSERT INTO gap VALUES (101, NULL);
CREATE INDEX gap_ts ON gap USING fpbtree (ts);
VACUUM ANALYZE gap;

-- the rows an index (index-only where it can) and a bitmap scan return
-- that a sequential scan does not: none
CREATE FUNCTION gap_extra(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	ref text[] := fpb_rows(q, 'seq');
	res text := '';
	mode text;
BEGIN
	FOREACH mode IN ARRAY ARRAY['index', 'bitmap'] LOOP
		IF fpb_plan(q, mode) !~ ' gap_ts' THEN
			RETURN mode || ': plan does not use gap_ts';
		END IF;
		res := res || format('%s: %s ', mode, (SELECT coalesce(array_agg(x ORDER BY x), '{}')
			FROM unnest(fpb_rows(q, mode)) x WHERE x <> ALL (ref)));
	END LOOP;
	RETURN res;
END $$;

SELECT q, gap_extra(q) FROM (VALUES
	('SELECT ts FROM gap WHERE ts > timestamptz ''2024-03-10 07:01+00'' AND ts < ''2024-03-10 04:00'''),
	('SELECT id, ts FROM gap WHERE ts > timestamptz ''2024-03-10 07:01+00'' AND ts < ''2024-03-10 04:00'''),
	('SELECT ts FROM gap WHERE ts >= timestamptz ''2024-03-10 07:03+00'' AND ts <= timestamptz ''2024-03-10 07:30+00'''),
	('SELECT ts FROM gap WHERE ts = ANY (ARRAY[''2024-03-10 07:00+00'', ''2024-03-10 07:05+00'']::timestamptz[])'),
	('SELECT ts FROM gap WHERE ts > ANY (ARRAY[''2024-03-10 07:01+00'']::timestamptz[]) AND ts < ''2024-03-10 04:00'''),
	('SELECT ts FROM gap WHERE ts < ANY (ARRAY[''2024-03-10 07:04+00'', ''2024-03-10 06:00+00'']::timestamptz[]) AND ts > ''2024-03-10 01:00''')) v(q);

-- a sequential scan, for reference; index scans return these rows in
-- index order, both ways
SELECT to_char(ts, 'HH24:MI') FROM gap
WHERE ts > timestamptz '2024-03-10 07:01+00' AND ts < '2024-03-10 04:00' ORDER BY ts;
SELECT fpb_rows('SELECT ts FROM gap WHERE ts > timestamptz ''2024-03-10 07:01+00'' AND ts < ''2024-03-10 04:00'' ORDER BY ts DESC', 'index')
	= fpb_rows('SELECT ts FROM gap WHERE ts > timestamptz ''2024-03-10 07:01+00'' AND ts < ''2024-03-10 04:00'' ORDER BY ts DESC', 'seq') AS same_desc;
