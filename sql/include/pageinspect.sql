--
-- pageinspect, for the pg_regress files that read raw pages (\i
-- sql/include/pageinspect.sql from the repository root, inside their quiet
-- setup block): created once per database, without a notice.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;
