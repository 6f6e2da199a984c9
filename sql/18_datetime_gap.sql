--
-- 18_datetime_gap: a timestamp column against timestamptz keys, with column
-- values inside and around a daylight-saving gap.  The core compares by
-- converting each column value to timestamptz, which is not monotonic
-- there, so the values satisfying a key need not form one key range and a
-- scan's interval can hold entries that fail the key: they must never be
-- returned (the executor rechecks them).  Every row an index or bitmap
-- scan returns must be one a sequential scan returns, and, unlike btree's,
-- the other way round: a scan widens its interval near a gap.
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

-- The other direction: rows a sequential scan returns that the index scans
-- leave out.  A bisected bound lands on one side of a gap; values that
-- satisfy the key may lie on the other (here 02:30 to 02:55, read as EST,
-- equal or precede 07:30 UTC, as do 03:30 and on).  The scan widens its
-- interval by twice the jumps of nearby transitions, so none is missed,
-- where a btree index scan misses them.
CREATE FUNCTION gap_missing(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	res text := '';
	got text[];
	mode text;
BEGIN
	FOREACH mode IN ARRAY ARRAY['index', 'bitmap'] LOOP
		IF fpb_plan(q, mode) !~ ' gap_ts' THEN
			RETURN mode || ': plan does not use gap_ts';
		END IF;
		got := fpb_rows(q, mode);
		res := res || format('%s: %s ', mode, (SELECT coalesce(array_agg(x ORDER BY x), '{}')
			FROM unnest(fpb_rows(q, 'seq')) x WHERE x <> ALL (got)));
	END LOOP;
	RETURN res;
END $$;

SELECT q, gap_missing(q) FROM (VALUES
	('SELECT ts FROM gap WHERE ts = timestamptz ''2024-03-10 07:30+00'''),
	('SELECT ts FROM gap WHERE ts <= timestamptz ''2024-03-10 07:30+00'' AND ts > ''2024-03-10 01:00'''),
	('SELECT ts FROM gap WHERE ts < timestamptz ''2024-03-10 07:31+00'' AND ts > ''2024-03-10 01:00'''),
	('SELECT ts FROM gap WHERE ts >= timestamptz ''2024-03-10 07:30+00'' AND ts < ''2024-03-10 05:00'''),
	('SELECT ts FROM gap WHERE ts > timestamptz ''2024-03-10 07:29+00'' AND ts < ''2024-03-10 05:00'''),
	('SELECT ts FROM gap WHERE ts = ANY (ARRAY[''2024-03-10 07:30+00'', ''2024-03-10 07:45+00'']::timestamptz[])'),
	('SELECT ts FROM gap WHERE ts <= ANY (ARRAY[''2024-03-10 07:30+00'', ''2024-03-10 06:00+00'']::timestamptz[]) AND ts > ''2024-03-10 01:00'''),
	('SELECT ts FROM gap WHERE ts >= ALL (ARRAY[''2024-03-10 07:30+00'', ''2024-03-10 06:00+00'']::timestamptz[]) AND ts < ''2024-03-10 05:00''')) v(q);

-- Random keys around five transitions: spring forward in New York (1 hour)
-- and London, Lord Howe's half hour, Apia's skipped day (2011-12-30 does
-- not exist there), and New York's fall back (no gap: exact bounds).
-- Every key is compared with a sequential scan, index and bitmap scans,
-- ordered with LIMIT both ways (fpb_probe): no failure.
CREATE TABLE gapw (id int4, g int4, ts timestamp) WITH (autovacuum_enabled = off);
INSERT INTO gapw (ts)
SELECT d + m * interval '5 minutes'
FROM unnest(ARRAY[timestamp '2024-03-09', '2024-11-02', '2024-03-30',
				  '2024-10-05', '2011-12-28']) d,
	 generate_series(0, 3 * 288) m;
UPDATE gapw SET id = x.n, g = x.n % 3
FROM (SELECT ctid, row_number() OVER (ORDER BY ts) n FROM gapw) x
WHERE gapw.ctid = x.ctid;
INSERT INTO gapw VALUES (0, 0, NULL);
CREATE TABLE gapm AS SELECT * FROM gapw;
CREATE INDEX gapw_ts ON gapw USING fpbtree (ts);
CREATE INDEX gapm_gts ON gapm USING fpbtree (g, ts DESC);
VACUUM ANALYZE gapw, gapm;

CREATE FUNCTION gapw_probe(zone text, center text, span int, n int, seed float8)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	keyq text := format('(timestamptz %L + (floor(random() * %s) - %s) * interval ''5 minutes'' + (floor(random() * 3) - 1) * interval ''1 second'')::text',
						center, 2 * span + 1, span);
	ops text[] := ARRAY['<', '<=', '=', '>=', '>'];
	k text;
	q text;
	r text;
BEGIN
	PERFORM set_config('TimeZone', zone, false);
	RETURN QUERY SELECT zone || ': ' || x FROM fpb_probe('gapw', 'gapw_ts', 'ts', keyq,
												 '::timestamptz', n, seed) x;
	-- the second column of a multi-column index, descending
	FOR i IN 1..n / 3 LOOP
		EXECUTE 'SELECT ' || keyq INTO k;
		q := format('SELECT id, ts FROM gapm WHERE g = %s AND ts %s %L::timestamptz',
					i % 3, ops[1 + i % 5], k);
		r := fpb_same(q, 'gapm_gts');
		IF r <> 'ok' THEN
			RETURN NEXT zone || ': ' || q || ': ' || r;
		END IF;
	END LOOP;
END $$;

SELECT * FROM gapw_probe('America/New_York', '2024-03-10 07:00+00', 30, 120, 0.1);
SELECT * FROM gapw_probe('Europe/London', '2024-03-31 01:00+00', 30, 80, 0.2);
SELECT * FROM gapw_probe('Australia/Lord_Howe', '2024-10-05 15:30+00', 30, 80, 0.3);
SELECT * FROM gapw_probe('Pacific/Apia', '2011-12-30 10:00+00', 300, 120, 0.4);
SELECT * FROM gapw_probe('America/New_York', '2024-11-03 06:00+00', 30, 80, 0.5);
RESET TimeZone;
