-- a keyset page: the 50 rows after a random row's (created_at, id)
\set g random(1, 1999000)
SELECT created_at, id FROM keyset_ts_bt
WHERE (created_at, id) > (timestamptz '2026-01-01 00:00+00' + :g * interval '37 ms', :g)
ORDER BY created_at, id LIMIT 50;
