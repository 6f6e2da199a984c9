--
-- Runs of equal timetz, inet/cidr and bit/varbit values (README "Duplicates
-- stored once"): equal values of these types are equal bytes, so an index
-- built since the format flag (fpbtree_format: more_runs) keeps a repeated
-- value once per run, about as small as btree's deduplicated index; one
-- built before keeps every row's value, and both answer alike.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS fpbtree;
RESET client_min_messages;
\set ECHO none
\i sql/include/fpb_helpers.sql
\set ECHO all
SET enable_seqscan = off;
SET enable_bitmapscan = off;

-- 600 values a column, 100 rows each, some NULLs; timetz values of one
-- instant in two zones (not equal: different zones), inet and cidr values
-- that differ only in their mask, bit strings of different lengths
CREATE TABLE mr (id int4, tz timetz, ip inet, net cidr, b bit(12), vb varbit);
INSERT INTO mr
SELECT g,
	CASE WHEN g % 97 = 0 THEN NULL
		 ELSE (time '00:00' + (g % 300) * interval '1 min')::timetz
			  + ((g % 600) / 300 || ' hours')::interval END,
	CASE WHEN g % 89 = 0 THEN NULL
		 ELSE ('10.' || (g % 3) || '.' || (g % 200) || '.1/' ||
			   (CASE WHEN g % 600 < 300 THEN 24 ELSE 32 END))::inet END,
	('172.' || (g % 2) || '.' || (g % 250) || '.0/24')::cidr,
	(g % 600)::bit(12),
	CASE WHEN g % 83 = 0 THEN NULL
		 ELSE substring((g % 600)::bit(12)::varbit FROM 1 FOR 4 + g % 9) END
FROM generate_series(1, 60000) g;
CREATE TABLE mr_bt AS SELECT * FROM mr;
CREATE INDEX mr_tz ON mr USING fpbtree (tz);
CREATE INDEX mr_ip ON mr USING fpbtree (ip);
CREATE INDEX mr_net ON mr USING fpbtree (net);
CREATE INDEX mr_b ON mr USING fpbtree (b);
CREATE INDEX mr_vb ON mr USING fpbtree (vb);
CREATE INDEX mr_multi ON mr USING fpbtree (net, tz);
CREATE INDEX mr_bt_tz ON mr_bt (tz);
CREATE INDEX mr_bt_ip ON mr_bt (ip);
CREATE INDEX mr_bt_net ON mr_bt (net);
CREATE INDEX mr_bt_b ON mr_bt (b);
CREATE INDEX mr_bt_vb ON mr_bt (vb);
CREATE INDEX mr_bt_multi ON mr_bt (net, tz);

-- the format, and sizes against btree's (before the flag: 3.5 to 4.2 times)
SELECT c, f.version, f.format, f.reindex_adds
FROM unnest(ARRAY['mr_tz', 'mr_ip', 'mr_net', 'mr_b', 'mr_vb', 'mr_multi']) c,
	 fpbtree_format(c::regclass) f;
SELECT c, pg_relation_size(('mr_' || c)::regclass) <=
		  1.15 * pg_relation_size(('mr_bt_' || c)::regclass) AS about_btree_size
FROM unnest(ARRAY['tz', 'ip', 'net', 'b', 'vb', 'multi']) c;

-- the same answers as btree's, from index-only scans (each row's value)
CREATE FUNCTION mr_all() RETURNS TABLE (q text, r text) LANGUAGE sql AS $$
	SELECT q, fpb_same_as(q, 'mr', 'mr_bt') FROM unnest(ARRAY[
		'SELECT tz FROM mr ORDER BY tz',
		'SELECT tz FROM mr ORDER BY tz DESC NULLS LAST',
		'SELECT count(*) FROM mr WHERE tz = ''01:10+00''',
		'SELECT count(*) FROM mr WHERE tz = ''02:10:00+01''',
		'SELECT tz FROM mr WHERE tz BETWEEN ''00:30+00'' AND ''01:00+00'' ORDER BY tz',
		'SELECT ip FROM mr ORDER BY ip',
		'SELECT count(*) FROM mr WHERE ip = ''10.1.7.1/24''',
		'SELECT count(*) FROM mr WHERE ip = ''10.1.7.1/32''',
		'SELECT ip FROM mr WHERE ip > ''10.1.0.0'' AND ip < ''10.2.0.0'' ORDER BY ip DESC',
		'SELECT count(*) FROM mr WHERE ip IS NULL',
		'SELECT net FROM mr ORDER BY net',
		'SELECT net FROM mr WHERE net <<= ''172.1.0.0/16'' ORDER BY net',
		'SELECT b FROM mr ORDER BY b',
		'SELECT count(*) FROM mr WHERE b = B''000000001111''',
		'SELECT b FROM mr WHERE b >= B''001000000000'' ORDER BY b DESC',
		'SELECT vb FROM mr ORDER BY vb',
		'SELECT count(*) FROM mr WHERE vb = B''0000''',
		'SELECT vb FROM mr WHERE vb < B''0001'' ORDER BY vb',
		'SELECT net::text || tz::text FROM mr ORDER BY net, tz',
		'SELECT tz FROM mr WHERE net = ''172.0.8.0/24'' ORDER BY net, tz'
	]) q;
$$;
SELECT * FROM mr_all() WHERE r <> 'same';
SELECT count(*) AS queries FROM mr_all();
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['mr_tz', 'mr_ip', 'mr_net', 'mr_b', 'mr_vb', 'mr_multi']) c;

-- inserts into runs and new values, deletes and VACUUM
INSERT INTO mr SELECT * FROM mr WHERE id % 7 = 0;
INSERT INTO mr VALUES (0, '23:59:59.999999+14', '::1/128', '0.0.0.0/0', B'111111111111', B'');
INSERT INTO mr_bt SELECT * FROM mr_bt WHERE id % 7 = 0;
INSERT INTO mr_bt VALUES (0, '23:59:59.999999+14', '::1/128', '0.0.0.0/0', B'111111111111', B'');
DELETE FROM mr WHERE id % 5 = 1 OR id BETWEEN 20000 AND 26000;
DELETE FROM mr_bt WHERE id % 5 = 1 OR id BETWEEN 20000 AND 26000;
VACUUM mr;
VACUUM mr_bt;
SELECT * FROM mr_all() WHERE r <> 'same';
SELECT c, fpbtree_check(c::regclass, true)
FROM unnest(ARRAY['mr_tz', 'mr_ip', 'mr_net', 'mr_b', 'mr_vb', 'mr_multi']) c;

-- an index built without the flag (as before it, by the developer setting
-- that builds without format flags) keeps a value an entry and answers
-- alike; a REINDEX would add the flag
SET fpbtree.debug_codepoint_prefix_const = on;
CREATE INDEX mr_ip_old ON mr USING fpbtree (ip);
RESET fpbtree.debug_codepoint_prefix_const;
CREATE INDEX mr_ip_new ON mr USING fpbtree (ip);
SELECT f.version, f.format, f.reindex_adds FROM fpbtree_format('mr_ip_old') f;
SELECT pg_relation_size('mr_ip_old') > 2 * pg_relation_size('mr_ip_new') AS larger;
DROP INDEX mr_ip, mr_ip_new;
INSERT INTO mr SELECT * FROM mr WHERE id % 11 = 0;
INSERT INTO mr_bt SELECT * FROM mr_bt WHERE id % 11 = 0;
SELECT q, r FROM mr_all() WHERE q ~ ' ip ' AND r <> 'same';
SELECT fpbtree_check('mr_ip_old', true);
REINDEX INDEX mr_ip_old;
SELECT f.format, f.reindex_adds FROM fpbtree_format('mr_ip_old') f;
SELECT q, r FROM mr_all() WHERE q ~ ' ip ' AND r <> 'same';

DROP FUNCTION mr_all();
DROP TABLE mr, mr_bt;
RESET enable_seqscan;
RESET enable_bitmapscan;
