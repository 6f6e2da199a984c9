--
-- 14_datetime_cross: date, timestamp and timestamptz columns scanned with
-- bounds of the other two types (a timestamptz column against a date is
-- the everyday case), every operator, every access path, against a
-- sequential scan: infinities, the ends of each type's range, a date
-- beyond the timestamp range, midnight and the microseconds around it,
-- a time zone with daylight-saving changes.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all
-- an existing 1.0 installation gets the operators by updating
SELECT extversion FROM pg_extension WHERE extname = 'fpbtree';

SET TimeZone = 'America/New_York';
CREATE TABLE xd (d date, ts timestamp, tz timestamptz) WITH (autovacuum_enabled = off);
-- a spread of values, midnight and one microsecond either side of it,
-- DST changes (2026-03-08, 2026-11-01 in New York), the ends of the
-- ranges, the infinities, NULLs
INSERT INTO xd
SELECT date '2026-01-01' + (g % 400) - 200,
       timestamp '2026-01-01' + (g % 400 - 200) * interval '1 day' + (g % 7 - 3) * interval '1 microsecond',
       timestamptz '2026-01-01 00:00 America/New_York' + (g % 400 - 200) * interval '1 day'
         + (g % 5 - 2) * interval '1 microsecond'
FROM generate_series(1, 3000) g;
INSERT INTO xd VALUES
  ('infinity', 'infinity', 'infinity'), ('-infinity', '-infinity', '-infinity'),
  ('5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-30 23:59:59.999999+00'),
  ('4713-01-01 BC', '4713-01-01 00:00 BC', '4713-01-02 00:00 BC'),
  ('2026-03-08', '2026-03-08 01:59:59.999999', '2026-03-08 03:00'),
  ('2026-11-01', '2026-11-01 01:30', '2026-11-01 01:30 EDT'),
  ('2026-11-01', '2026-11-01 01:30', '2026-11-01 01:30 EST'),
  (NULL, NULL, NULL);
CREATE INDEX xd_d ON xd USING fpbtree (d);
CREATE INDEX xd_ts ON xd USING fpbtree (ts);
CREATE INDEX xd_tz ON xd USING fpbtree (tz);
VACUUM ANALYZE xd;

-- the bounds: every type, exact and between values
CREATE TABLE xd_bounds (b text);
INSERT INTO xd_bounds VALUES
  ('date ''2026-01-01'''), ('date ''2025-10-17'''), ('date ''infinity'''), ('date ''-infinity'''),
  ('date ''5874897-12-31'''), ('date ''300000-01-01'''), ('date ''4713-01-01 BC'''), ('date ''2026-03-08'''),
  ('timestamp ''2026-01-01 00:00'''), ('timestamp ''2026-01-01 00:00:00.000001'''),
  ('timestamp ''2025-12-31 23:59:59.999999'''), ('timestamp ''2026-02-10 12:34'''),
  ('timestamp ''infinity'''), ('timestamp ''-infinity'''), ('timestamp ''294276-12-31 23:59:59.999999'''),
  ('timestamp ''2026-11-01 01:30'''), ('timestamp ''4713-01-01 00:00 BC'''),
  ('timestamptz ''2026-01-01 00:00 America/New_York'''), ('timestamptz ''2026-01-01 05:00:00.000001+00'''),
  ('timestamptz ''2026-02-10 12:34+00'''), ('timestamptz ''infinity'''), ('timestamptz ''-infinity'''),
  ('timestamptz ''2026-11-01 01:30 EST'''), ('timestamptz ''2026-11-01 06:00+00'''),
  ('timestamptz ''294276-12-30 23:59:59.999999+00''');

-- every column, operator and bound through the index (index-only scan and
-- bitmap scan) against a sequential scan: the failures, if any
SELECT c, op, b, r
FROM (SELECT c, op, b,
             fpb_same(format('SELECT %s FROM xd WHERE %s %s %s', c, c, op, b), 'xd_' || c) AS r
      FROM unnest(ARRAY['d', 'ts', 'tz']) c,
           unnest(ARRAY['<', '<=', '=', '>=', '>']) op,
           (SELECT b FROM xd_bounds) bs) s
WHERE r <> 'ok';
SELECT count(*) AS checked FROM unnest(ARRAY['d', 'ts', 'tz']) c, unnest(ARRAY['<', '<=', '=', '>=', '>']) op, xd_bounds;

-- ranges with bounds of two types, and the usual query of the kind
SELECT fpb_same('SELECT tz FROM xd WHERE tz >= date ''2026-01-01'' AND tz < timestamp ''2026-02-01 12:00''', 'xd_tz');
SELECT fpb_same('SELECT d FROM xd WHERE d > timestamptz ''2025-12-01 00:00+00'' AND d <= timestamp ''2026-01-15 00:00:01''', 'xd_d');
SELECT fpb_same('SELECT ts FROM xd WHERE ts BETWEEN date ''2025-11-01'' AND timestamptz ''2025-12-01 00:00 America/New_York''', 'xd_ts');
SELECT fpb_same('SELECT tz FROM xd WHERE tz >= date ''2026-01-01'' ORDER BY tz DESC LIMIT 5', 'xd_tz', true);
EXPLAIN (COSTS OFF) SELECT count(*) FROM xd WHERE tz >= current_date - 30;
-- another time zone changes what a date means for a timestamptz column
SET TimeZone = 'Asia/Tokyo';
SELECT fpb_same('SELECT tz FROM xd WHERE tz >= date ''2026-01-01'' AND tz < date ''2026-01-03''', 'xd_tz');
SELECT fpb_same('SELECT d FROM xd WHERE d = timestamptz ''2026-01-01 00:00 Asia/Tokyo''', 'xd_d');
RESET TimeZone;

-- a parameterized bound in a nested loop, rescanned with each outer value
CREATE TABLE xd_outer AS SELECT date '2025-12-25' + g AS day FROM generate_series(0, 9) g;
ANALYZE xd_outer;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT array_agg(n ORDER BY day) FROM (SELECT o.day, (SELECT count(*) FROM xd WHERE tz >= o.day AND tz < o.day + 1) n FROM xd_outer o) s)
     = (SELECT array_agg(n ORDER BY day) FROM (SELECT o.day, (SELECT count(*) FROM xd WHERE tz::date = o.day) n FROM xd_outer o) s) AS same;
RESET ALL;
