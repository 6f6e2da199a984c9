-- a batch job's next 100 rows after a random (tenant, id)
\set t random(0, 49)
\set g random(0, 39999)
SELECT tenant, id FROM keyset_tenant_fp WHERE (tenant, id) > (:t, :t + 50 * :g)
ORDER BY tenant, id LIMIT 100;
