-- pg_temp.best_ms(query, n): the fastest of n runs of a query that returns
-- one value, in ms (\ir'd by the scripts of this directory).
CREATE FUNCTION pg_temp.best_ms(q text, n int) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	best float8 := 'Infinity';
	c bigint;
BEGIN
	FOR i IN 1..n LOOP
		t0 := clock_timestamp();
		EXECUTE q INTO c;
		best := least(best, extract(epoch FROM clock_timestamp() - t0) * 1000);
	END LOOP;
	RETURN best;
END $$;
