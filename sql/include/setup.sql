--
-- The preamble of every pg_regress file (\i sql/include/setup.sql, from the
-- repository root, where pg_regress runs): the extension, and plans that do
-- not depend on the machine.  A file that tests the executor nodes also
-- runs LOAD 'fpbtree' (they exist only once the library is loaded).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS fpbtree;
RESET client_min_messages;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
