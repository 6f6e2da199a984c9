--
-- pageinspect, for the pg_regress files that read raw pages (\i
-- sql/include/pageinspect.sql from the repository root, inside their quiet
-- setup block): created once per database, without a notice.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pageinspect;
RESET client_min_messages;

-- The version an fpbtree index's metapage records (FpbMetaPageData.version,
-- a uint32 at byte 4 of the contents, which begin at 24; little-endian):
-- 2 for coded multi-column prefixes, 3 for prefixes taken under "C" for a
-- collation without rules, else 1.
CREATE OR REPLACE FUNCTION fpb_meta_version(idx regclass) RETURNS int
LANGUAGE sql AS $$ SELECT get_byte(get_raw_page(idx::text, 0), 28) $$;
