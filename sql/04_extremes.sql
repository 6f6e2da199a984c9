--
-- 04_extremes: type minima and maxima, NaN, +-Infinity, -0, and the values
-- an index-only scan gives back must be exactly the stored ones.
--

-- on its own: the extension, settings, fpb_same() and its helpers
\set ECHO none
\i sql/include/setup.sql
\i sql/include/fpb_helpers.sql
\set ECHO all

CREATE TABLE ext_i (i2 int2, i4 int4, i8 int8);
INSERT INTO ext_i VALUES
	(-32768, -2147483648, -9223372036854775808),
	(-32767, -2147483647, -9223372036854775807),
	(-1, -1, -1),
	(0, 0, 0),
	(1, 1, 1),
	(32766, 2147483646, 9223372036854775806),
	(32767, 2147483647, 9223372036854775807),
	(NULL, NULL, NULL);
CREATE INDEX ext_i2 ON ext_i USING fpbtree (i2);
CREATE INDEX ext_i4 ON ext_i USING fpbtree (i4);
CREATE INDEX ext_i8 ON ext_i USING fpbtree (i8);

CREATE TABLE ext_f (f4 float4, f8 float8);
INSERT INTO ext_f VALUES
	('-Infinity', '-Infinity'),
	('-3.4028235e38', '-1.7976931348623157e308'),
	('-1', '-1'),
	('-1e-45', '-5e-324'),
	('-0', '-0'),
	('0', '0'),
	('1e-45', '5e-324'),
	('1.17549435e-38', '2.2250738585072014e-308'),
	('1', '1'),
	('3.4028235e38', '1.7976931348623157e308'),
	('Infinity', 'Infinity'),
	('NaN', 'NaN'),
	(NULL, NULL);
CREATE INDEX ext_f4 ON ext_f USING fpbtree (f4);
CREATE INDEX ext_f8 ON ext_f USING fpbtree (f8);

CREATE TABLE ext_d (d date, ts timestamp, tz timestamptz, o oid);
INSERT INTO ext_d VALUES
	('-infinity', '-infinity', '-infinity', 0),
	('4714-11-24 BC', '4714-11-24 00:00:00 BC', '4714-11-24 00:00:00+00 BC', 1),
	('1999-12-31', '1999-12-31 23:59:59.999999', '1999-12-31 23:59:59.999999+00', 2147483647),
	('2000-01-01', '2000-01-01 00:00:00', '2000-01-01 00:00:00+00', 2147483648),
	('5874897-12-31', '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00', 4294967294),
	('infinity', 'infinity', 'infinity', 4294967295),
	(NULL, NULL, NULL, NULL);
CREATE INDEX ext_dd ON ext_d USING fpbtree (d);
CREATE INDEX ext_dts ON ext_d USING fpbtree (ts);
CREATE INDEX ext_dtz ON ext_d USING fpbtree (tz);
CREATE INDEX ext_do ON ext_d USING fpbtree (o);

VACUUM ANALYZE ext_i, ext_f, ext_d;
SELECT fpbtree_check('ext_i2', true), fpbtree_check('ext_i4', true),
	   fpbtree_check('ext_i8', true), fpbtree_check('ext_f4', true),
	   fpbtree_check('ext_f8', true), fpbtree_check('ext_dd', true),
	   fpbtree_check('ext_dts', true), fpbtree_check('ext_dtz', true),
	   fpbtree_check('ext_do', true);

SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- index-only scans in both directions return every value exactly
EXPLAIN (COSTS OFF) SELECT i8 FROM ext_i ORDER BY i8;
SELECT i2 FROM ext_i ORDER BY i2;
SELECT i4 FROM ext_i ORDER BY i4 DESC;
SELECT i8 FROM ext_i ORDER BY i8;
SELECT i8 FROM ext_i WHERE i8 > 9223372036854775806;
SELECT i8 FROM ext_i WHERE i8 >= 9223372036854775807;
SELECT i8 FROM ext_i WHERE i8 < -9223372036854775807;
SELECT i8 FROM ext_i WHERE i8 <= -9223372036854775808;
SELECT i8 FROM ext_i WHERE i8 > 9223372036854775807;
SELECT i8 FROM ext_i WHERE i8 < -9223372036854775808;
SELECT i2 FROM ext_i WHERE i2 > 32767::int8;
SELECT i2 FROM ext_i WHERE i2 >= 32767::int8;
SELECT i2 FROM ext_i WHERE i2 < (-32768)::int4;
SELECT i2 FROM ext_i WHERE i2 <= (-32768)::int4;
SELECT i4 FROM ext_i WHERE i4 > 2147483647::int8;
SELECT i4 FROM ext_i WHERE i4 >= 2147483647::int8;
SELECT i4 FROM ext_i WHERE i4 < 2147483648::int8 ORDER BY i4 DESC LIMIT 1;
SELECT i4 FROM ext_i WHERE i4 > (-2147483649)::int8 ORDER BY i4 LIMIT 1;
SELECT count(*) FROM ext_i WHERE i2 < 9223372036854775807::int8;
SELECT count(*) FROM ext_i WHERE i2 > (-9223372036854775808)::int8;

EXPLAIN (COSTS OFF) SELECT f8 FROM ext_f ORDER BY f8;
SELECT f4 FROM ext_f ORDER BY f4;
SELECT f8 FROM ext_f ORDER BY f8;
SELECT f8 FROM ext_f ORDER BY f8 DESC;
SELECT f4 FROM ext_f ORDER BY f4 DESC;
-- -0 and 0 are equal, and both come back with their own sign
SELECT f8, f8::text FROM ext_f WHERE f8 = 0 ORDER BY f8::text;
SELECT f8, f8::text FROM ext_f WHERE f8 = '-0' ORDER BY f8::text;
SELECT f4, f4::text FROM ext_f WHERE f4 = 0 ORDER BY f4::text;
SELECT f8::text FROM ext_f WHERE f8 >= 0 AND f8 <= 0 ORDER BY 1;
SELECT f8::text AS t FROM ext_f WHERE f8 > 0 ORDER BY ext_f.f8 LIMIT 1;
SELECT f8::text AS t FROM ext_f WHERE f8 < 0 ORDER BY ext_f.f8 DESC LIMIT 1;
SELECT count(*) FROM ext_f WHERE f8 < '-0';
SELECT count(*) FROM ext_f WHERE f8 <= '-0';
SELECT count(*) FROM ext_f WHERE f4 > '-0'::float8;
EXPLAIN (COSTS OFF) SELECT f8 FROM ext_f WHERE f8 = '-0';
-- an index-only scan of a float8 -0 returns -0
SELECT f8::text AS minus_zero FROM ext_f WHERE f8 = 0 AND f8::text = '-0';
SELECT sum(CASE WHEN f8::text = '-0' THEN 1 ELSE 0 END) AS minus_zeros,
	   sum(CASE WHEN f8::text = '0' THEN 1 ELSE 0 END) AS zeros
FROM (SELECT f8 FROM ext_f WHERE f8 BETWEEN -1 AND 1) s;
-- NaN is greater than everything, and equal to itself
SELECT f8 FROM ext_f WHERE f8 = 'NaN';
SELECT f4 FROM ext_f WHERE f4 = 'NaN'::float8;
SELECT f8 FROM ext_f WHERE f8 > 'Infinity';
SELECT f8 FROM ext_f WHERE f8 >= 'Infinity' ORDER BY f8;
SELECT count(*) FROM ext_f WHERE f8 < 'NaN';
SELECT count(*) FROM ext_f WHERE f8 <= 'NaN';
SELECT count(*) FROM ext_f WHERE f8 > 'NaN';
SELECT f8 FROM ext_f WHERE f8 < '-1.7976931348623157e308';
SELECT f8 FROM ext_f WHERE f8 > '1.7976931348623157e308' ORDER BY f8;
SELECT f4 FROM ext_f WHERE f4 > '3.4028235e38'::float4 ORDER BY f4;
SELECT f4 FROM ext_f WHERE f4 > '1e300'::float8 ORDER BY f4;
SELECT f4 FROM ext_f WHERE f4 < '-1e300'::float8 ORDER BY f4;
SELECT f4 FROM ext_f WHERE f4 > 0 AND f4 < '1e-300'::float8;
SELECT f8 FROM ext_f WHERE f8 > 0 ORDER BY f8 LIMIT 2;
SELECT f8 FROM ext_f WHERE f8 < 0 ORDER BY f8 DESC LIMIT 2;
SELECT min(f8), max(f8), min(f4), max(f4) FROM ext_f;

SELECT d FROM ext_d ORDER BY d;
SELECT ts FROM ext_d ORDER BY ts DESC;
SELECT tz AT TIME ZONE 'UTC' AS tz_utc FROM ext_d ORDER BY tz;
SELECT o FROM ext_d ORDER BY o;
SELECT o FROM ext_d ORDER BY o DESC;
SELECT d FROM ext_d WHERE d > '5874897-12-30';
SELECT d FROM ext_d WHERE d < '4714-11-25 BC';
SELECT ts FROM ext_d WHERE ts > '294276-12-31 23:59:59.999998' ORDER BY ts;
SELECT ts FROM ext_d WHERE ts >= '2000-01-01' AND ts < 'infinity';
SELECT o FROM ext_d WHERE o > 2147483647;
SELECT o FROM ext_d WHERE o < 2147483648 ORDER BY o;

-- the same through a sequential scan, for reference
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SET enable_indexonlyscan = off;
SET enable_bitmapscan = off;
SELECT f8::text FROM ext_f WHERE f8 >= 0 AND f8 <= 0 ORDER BY 1;
SELECT count(*) FROM ext_f WHERE f8 < 'NaN';
SELECT count(*) FROM ext_f WHERE f4 > '-0'::float8;
SELECT count(*) FROM ext_i WHERE i2 < 9223372036854775807::int8;
RESET ALL;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- sanity: all of the above through fpb_same too
SELECT q, left(fpb_same(q, idx, ord), 300) AS res
FROM (VALUES
	('SELECT i2 FROM ext_i WHERE i2 >= (-32768)::int8', 'ext_i2', false),
	('SELECT i8 FROM ext_i ORDER BY i8 DESC', 'ext_i8', true),
	('SELECT f4 FROM ext_f WHERE f4 <= ''-0''::float4', 'ext_f4', false),
	('SELECT f8 FROM ext_f WHERE f8 >= ''-0''', 'ext_f8', false),
	('SELECT f8 FROM ext_f WHERE f8 <= ''Infinity''', 'ext_f8', false),
	('SELECT f8 FROM ext_f WHERE f8 >= ''-Infinity''', 'ext_f8', false),
	('SELECT o FROM ext_d WHERE o >= 1 ORDER BY o DESC', 'ext_do', true),
	('SELECT tz FROM ext_d WHERE tz > ''-infinity'' ORDER BY tz', 'ext_dtz', true)
) v(q, idx, ord)
ORDER BY q;

DROP TABLE ext_i, ext_f, ext_d;
