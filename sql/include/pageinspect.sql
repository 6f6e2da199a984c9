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
-- 3 with format flags (below), else 2 for coded multi-column prefixes, else 1.
CREATE OR REPLACE FUNCTION fpb_meta_version(idx regclass) RETURNS int
LANGUAGE sql AS $$ SELECT get_byte(get_raw_page(idx::text, 0), 28) $$;
-- Its multi-column prefix format (FpbMetaPageData.mprefix, a uint16 at
-- byte 42 of the contents): 0 the first column's key, 1 coded.
CREATE OR REPLACE FUNCTION fpb_meta_mprefix(idx regclass) RETURNS int
LANGUAGE sql AS $$
SELECT get_byte(p, 66) | (get_byte(p, 67) << 8)
FROM get_raw_page(idx::text, 0) p $$;
-- Its format flags (FpbMetaPageData.pfxflags, a uint16 at byte 44 of the
-- contents): 1 prefixes taken under "C" for a collation without rules,
-- 2 long values stored compressed.
CREATE OR REPLACE FUNCTION fpb_meta_pfxflags(idx regclass) RETURNS int
LANGUAGE sql AS $$
SELECT get_byte(p, 68) | (get_byte(p, 69) << 8)
FROM get_raw_page(idx::text, 0) p $$;
