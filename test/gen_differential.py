#!/usr/bin/env python3
"""Generate sql/40_differential.sql, the differential test of fpbtree.

The same rows go into two tables: diff_fpb, indexed with fpbtree, and
diff_bt, indexed with btree.  The columns: k int8, f float8 (narrow keys),
n numeric and t text under "C" (wide keys: a prefix in the nodes, the value
beside them).  Several hundred generated queries (one or
more scan keys on one column with <, <=, =, >=, >, BETWEEN, IS [NOT] NULL,
IN lists and = / < / > ANY (array) with duplicates and NULL elements,
constants of other types of the operator family, ORDER BY ASC/DESC with and
without LIMIT) are run on both tables, the fpbtree side with index scans
(bitmap scans off) and with bitmap scans, and must give the same rows as the
btree side.  That is done in four phases:

  1. bulk     - the indexes are built on the loaded table;
  2. grown    - many rows inserted in random key order through the indexes;
  3. vacuumed - deletes of single rows, of whole key ranges and of parts of
                long runs of duplicates, then VACUUM;
  4. regrown  - more inserts, into the space VACUUM freed.

After every phase fpbtree_check(index, true) runs on both fpbtree indexes.
The expected output is a few lines per phase: the number of queries and of
mismatches (0), and the details of any mismatch (none).

Deterministic: a fixed seed and the Python standard library only, so the
same generator always writes the same bytes.  The file is not kept in the
repository: `make installcheck` (and so `make test`) generates it before
pg_regress runs, through the Makefile rule

    python3 test/gen_differential.py sql/40_differential.sql

Regenerate expected/40_differential.out when the generator changes: it
echoes the queries (not the rows), the counts per phase and the details of
any mismatch (none).
"""

import os
import random
import sys
from decimal import Decimal

SEED = 20020603         # SIGMOD 2002, where fpB+-trees were published
N_BULK = 10000
N_GROW = 10000
N_REGROW = 5000
N_QUERIES_K = 240       # queries on the int8 column
N_QUERIES_F = 160       # queries on the float8 column
N_QUERIES_N = 80        # queries on the numeric column
N_QUERIES_T = 80        # queries on the text column

INT8_MIN = -(2 ** 63)
INT8_MAX = 2 ** 63 - 1
INT4_MIN, INT4_MAX = -(2 ** 31), 2 ** 31 - 1
INT2_MIN, INT2_MAX = -(2 ** 15), 2 ** 15 - 1

K_EXTREMES = [INT8_MIN, INT8_MIN + 1, INT8_MAX, INT8_MAX - 1,
              INT4_MIN, INT4_MIN - 1, INT4_MAX, INT4_MAX + 1,
              INT2_MIN, INT2_MIN - 1, INT2_MAX, INT2_MAX + 1, 0, -1, 1]
F_SPECIALS = ['NaN', 'Infinity', '-Infinity', '-0', '0', '5e-324',
              '-5e-324', '1.7976931348623157e+308',
              '-1.7976931348623157e+308', '2.2250738585072014e-308']
# numeric: equal values of different scales, values whose first eight
# digits agree (their prefixes tie), huge and tiny magnitudes
N_SPECIALS = ['NaN', 'Infinity', '-Infinity', '0', '0.000', '-0.0', '1',
              '1.0', '1.00', '12345678.1', '12345678.12', '-12345678.1',
              '1e300', '-1e300', '1e-300', '-1e-300',
              '99999999999999999999.9999', '0.00000001']
# text (under "C"): empty, a common start longer than the prefix, UTF-8,
# long values (text() below)
T_STARTS = ['', 'a', 'ab', 'common-prefix-', 'zz', 'é', '日本', 'Z']
T_ALPHABET = 'abcdeXYZ019-é'


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        # a few hot keys; the first ones are very hot (long duplicate runs
        # spanning several leaf pages)
        self.hot_k = [42, 0, -7, 1000, self.r.randint(-10 ** 6, 10 ** 6),
                      INT4_MAX, INT8_MIN + 1, 123456789012]
        self.hot_w = [40, 20, 10, 8, 6, 5, 4, 3]
        self.hot_f = ['0.5', '-3.75', '1e+100', '-0']
        self.keys = []      # key values that exist, for constants
        self.floats = []
        # the numeric and text columns draw from a random stream of their
        # own, so that adding them left the int8/float8 data and queries
        # as they were
        self.r2 = random.Random(seed + 1)
        self.nums = []
        self.texts = []

    # ---- data
    def key(self):
        r = self.r
        p = r.random()
        if p < 0.12:
            return None
        if p < 0.37:
            return r.choices(self.hot_k, self.hot_w)[0]
        if p < 0.62:
            return r.randint(-10000, 10000)
        if p < 0.85:
            return r.randint(-2 ** 40, 2 ** 40)
        if p < 0.95:
            return r.randint(INT8_MIN, INT8_MAX)
        return r.choice(K_EXTREMES)

    def float(self):
        r = self.r
        p = r.random()
        if p < 0.10:
            return None
        if p < 0.16:
            return r.choice(F_SPECIALS)
        if p < 0.36:
            return r.choice(self.hot_f)
        if p < 0.76:
            return repr(round(r.gauss(0, 100), 2))
        if p < 0.90:
            return repr(r.uniform(-1e6, 1e6))
        # wide exponents, also tiny and huge magnitudes
        return repr(r.choice([-1, 1]) * r.random() * 10.0 ** r.randint(-300, 300))

    def num(self):
        r = self.r2
        p = r.random()
        if p < 0.10:
            return None
        if p < 0.25:
            return r.choice(N_SPECIALS)
        if p < 0.60:
            return '%.*f' % (r.randint(0, 4), r.gauss(0, 500))
        if p < 0.80:
            return '%s%d.%d' % (r.choice(['', '-']), r.randint(0, 10 ** 12),
                                r.randint(0, 10 ** 6))
        return '%se%d' % (r.choice(['1', '-1', '3.5', '-7.25']),
                          r.randint(-40, 40))

    def text(self):
        r = self.r2
        p = r.random()
        if p < 0.08:
            return None
        if p < 0.25:
            return r.choice(T_STARTS[:4]) + str(r.randint(0, 30))
        if p < 0.33:
            # long values, stored with a 4-byte header from 127 bytes on,
            # beside short ones on the same pages; many share 100 bytes
            return r.choice(T_STARTS[:4]) + 'L' * r.randint(100, 140) + \
                ''.join(r.choice(T_ALPHABET) for _ in range(r.randint(0, 200)))
        return r.choice(T_STARTS) + ''.join(
            r.choice(T_ALPHABET) for _ in range(r.randint(0, 12)))

    def rows(self, first_id, n):
        ids = list(range(first_id, first_id + n))
        self.r.shuffle(ids)         # random insertion order
        out = []
        for i in ids:
            k = self.key()
            f = self.float()
            if k is not None:
                self.keys.append(k)
            if f is not None:
                self.floats.append(f)
            nv = self.num()
            tv = self.text()
            if nv is not None:
                self.nums.append(nv)
            if tv is not None:
                self.texts.append(tv)
            out.append('%d\t%s\t%s\t%s\t%s' % (
                i, '\\N' if k is None else k, '\\N' if f is None else f,
                '\\N' if nv is None else nv, '\\N' if tv is None else tv))
        return out

    # ---- constants
    def kval(self):
        r = self.r
        p = r.random()
        if p < 0.45 and self.keys:
            v = r.choice(self.keys)
            # just beside an existing key, sometimes
            if r.random() < 0.25:
                v += r.choice([-1, 1])
                v = max(INT8_MIN, min(INT8_MAX, v))
            return v
        if p < 0.60:
            return r.choice(self.hot_k)
        if p < 0.75:
            return r.choice(K_EXTREMES)
        if p < 0.90:
            return r.randint(-12000, 12000)
        return r.randint(INT8_MIN, INT8_MAX)

    def kconst(self, v=None):
        """an int8-family constant, as int2, int4 or int8 when it fits"""
        if v is None:
            v = self.kval()
        types = ['int8']
        if INT4_MIN <= v <= INT4_MAX:
            types.append('int4')
        if INT2_MIN <= v <= INT2_MAX:
            types += ['int2', 'int2']
        t = self.r.choice(types)
        lit = '(%d)' % v if v < 0 else '%d' % v
        return '%s::%s' % (lit, t)

    def fval(self):
        r = self.r
        p = r.random()
        if p < 0.45 and self.floats:
            return r.choice(self.floats)
        if p < 0.70:
            return r.choice(F_SPECIALS + self.hot_f)
        if p < 0.85:
            return repr(round(r.gauss(0, 100), 1))
        return repr(r.uniform(-2e6, 2e6))

    def fconst(self, v=None):
        """a float constant, as float8 or (when it fits) float4"""
        if v is None:
            v = self.fval()
        t = 'float8'
        try:
            x = float(v)
            fits4 = (x != x or abs(x) == float('inf') or x == 0 or
                     1e-37 < abs(x) < 3e38)
        except ValueError:
            fits4 = False
        if fits4 and self.r.random() < 0.35:
            t = 'float4'
        return "'%s'::%s" % (v, t)

    def nval(self):
        r = self.r
        if r.random() < 0.5 and self.nums:
            return r.choice(self.nums)
        return r.choice([r.choice(N_SPECIALS), '%.2f' % r.gauss(0, 500)])

    def tval(self):
        r = self.r
        p = r.random()
        if p < 0.5 and self.texts:
            v = r.choice(self.texts)
            # a value's start, sometimes
            return v[:r.randint(0, len(v))] if r.random() < 0.3 else v
        return r.choice(T_STARTS) + ''.join(
            r.choice(T_ALPHABET) for _ in range(r.randint(0, 4)))

    def const(self, col):
        if col == 'n':
            return "'%s'::numeric" % self.nval()
        if col == 't':
            return "'%s'::text" % self.tval()
        return self.kconst() if col == 'k' else self.fconst()

    @staticmethod
    def nkey(v):
        d = Decimal(v)
        return (1, Decimal(0)) if d.is_nan() else (0, d)

    @staticmethod
    def tkey(v):
        return v.encode('utf-8')

    @staticmethod
    def fkey(v):
        x = float(v)
        return (1, 0.0) if x != x else (0, x)

    def pair(self, col):
        """two constants; mostly lo <= hi and close together, so that the
        range holds some rows, sometimes any two (often an empty range)"""
        r = self.r
        p = r.random()
        if col in ('n', 't'):
            vals = self.nums if col == 'n' else self.texts
            key = self.nkey if col == 'n' else self.tkey
            if p < 0.6 and vals:
                srt = sorted(sorted(set(vals)), key=key)
                i = r.randrange(len(srt))
                j = min(len(srt) - 1, i + r.choice([0, 1, 3, 10, 60, 400]))
                a, b = srt[i], srt[j]
            else:
                a, b = ((self.nval(), self.nval()) if col == 'n'
                        else (self.tval(), self.tval()))
                if p < 0.85:
                    a, b = sorted([a, b], key=key)
            t = 'numeric' if col == 'n' else 'text'
            return "'%s'::%s" % (a, t), "'%s'::%s" % (b, t)
        if p < 0.6 and (self.keys if col == 'k' else self.floats):
            vals = self.keys if col == 'k' else self.floats
            if col == 'k':
                srt = sorted(set(vals))
            else:
                srt = sorted(set(vals), key=self.fkey)
            i = r.randrange(len(srt))
            j = min(len(srt) - 1, i + r.choice([0, 1, 3, 10, 60, 400]))
            a, b = srt[i], srt[j]
        elif col == 'k':
            a, b = self.kval(), self.kval()
            if p < 0.85:
                a, b = min(a, b), max(a, b)
        else:
            a, b = self.fval(), self.fval()
            if p < 0.85:
                a, b = sorted([a, b], key=self.fkey)
        if col == 'k':
            return self.kconst(a), self.kconst(b)
        return self.fconst(a), self.fconst(b)

    # ---- queries
    def where(self, col):
        """a WHERE clause with one or more scan keys on col"""
        r = self.r
        ops = ['<', '<=', '=', '>=', '>']
        form = r.choices(['one', 'between', 'two', 'three', 'null', 'eqeq',
                          'nullmix', 'commuted', 'inlist', 'anyarray',
                          'anyrange'],
                         [30, 12, 25, 8, 6, 4, 6, 4, 8, 8, 3])[0]
        c = col
        if form in ('inlist', 'anyarray', 'anyrange'):
            return self.where_array(col, form)
        if form == 'one':
            return '%s %s %s' % (c, r.choice(ops), self.const(col))
        if form == 'commuted':
            return '%s %s %s' % (self.const(col), r.choice(ops), c)
        if form == 'between':
            a, b = self.pair(col)
            return '%s BETWEEN %s AND %s' % (c, a, b)
        if form == 'two':
            a, b = self.pair(col)
            lo = r.choice(['>', '>=', '>', '>=', '='])
            hi = r.choice(['<', '<=', '<', '<=', '=', '>', '>='])
            if r.random() < 0.2:
                return '%s %s %s AND %s %s %s' % (c, hi, b, c, lo, a)
            return '%s %s %s AND %s %s %s' % (c, lo, a, c, hi, b)
        if form == 'three':
            a, b = self.pair(col)
            a2, _ = self.pair(col)
            return '%s %s %s AND %s %s %s AND %s %s %s' % (
                c, r.choice(['>', '>=']), a,
                c, r.choice(['>', '>=']), a2,
                c, r.choice(['<', '<=']), b)
        if form == 'null':
            return '%s IS %sNULL' % (c, r.choice(['', 'NOT ']))
        if form == 'eqeq':
            v = self.const(col)
            w = v if r.random() < 0.5 else self.const(col)
            return '%s = %s AND %s = %s' % (c, v, c, w)
        # nullmix
        return '%s IS %sNULL AND %s %s %s' % (c, r.choice(['', 'NOT ']), c,
                                              r.choice(ops), self.const(col))

    def array_elems(self, col):
        """array elements of one type: existing keys, neighbours, hot
        values, duplicates and sometimes NULL; the type is int8 or (when
        every element fits) int4/int2, float8 or float4"""
        r = self.r
        n = r.choice([1, 2, 3, 5, 8, 20])
        vals = []
        for _ in range(n):
            if vals and r.random() < 0.15:
                vals.append(r.choice(vals))         # a duplicate
            elif r.random() < 0.07:
                vals.append(None)
            else:
                vals.append({'k': self.kval, 'f': self.fval, 'n': self.nval,
                             't': self.tval}[col]())
        if col in ('n', 't'):
            t = 'numeric' if col == 'n' else 'text'
            lits = ['NULL' if v is None else "'%s'" % v for v in vals]
        elif col == 'k':
            known = [v for v in vals if v is not None]
            types = ['int8']
            if all(INT4_MIN <= v <= INT4_MAX for v in known):
                types.append('int4')
            if all(INT2_MIN <= v <= INT2_MAX for v in known):
                types.append('int2')
            t = r.choice(types)
            lits = ['NULL' if v is None else ('(%d)' % v if v < 0 else '%d' % v)
                    for v in vals]
        else:
            t = 'float8' if r.random() < 0.7 else 'float4'
            lits = []
            for v in vals:
                if v is not None and t == 'float4':
                    x = float(v)
                    if not (x != x or abs(x) == float('inf') or x == 0 or
                            1e-37 < abs(x) < 3e38):
                        v = '0.25'
                lits.append('NULL' if v is None else "'%s'" % v)
        return t, lits

    def where_array(self, col, form):
        """col IN (...), col = ANY (ARRAY[...]), col < ANY (...) etc.,
        sometimes with a range key on the same column"""
        r = self.r
        t, lits = self.array_elems(col)
        arr = 'ARRAY[%s]::%s[]' % (', '.join(lits), t)
        if form == 'inlist':
            cond = '%s IN (%s)' % (col, ', '.join('%s::%s' % (x, t) for x in lits))
        elif form == 'anyarray':
            cond = '%s = ANY (%s)' % (col, arr)
            if r.random() < 0.1:
                cond = "%s = ANY ('{}'::%s[])" % (col, t)
        else:
            cond = '%s %s ANY (%s)' % (col, r.choice(['<', '<=', '>', '>=']), arr)
        if r.random() < 0.3:
            cond += ' AND %s %s %s' % (col, r.choice(['<', '<=', '>=', '>']), self.const(col))
        return cond

    def query(self, col):
        """(kind, sql) with {T} for the table"""
        r = self.r
        shape = r.choices(['rows', 'ios', 'count', 'ordered', 'limit',
                           'limit_nowhere'], [25, 20, 10, 15, 22, 8])[0]
        if shape == 'rows':
            return 'set', 'SELECT id, %s FROM {T} WHERE %s' % (col, self.where(col))
        if shape == 'ios':
            return 'set', 'SELECT %s FROM {T} WHERE %s' % (col, self.where(col))
        if shape == 'count':
            return 'set', 'SELECT count(*) FROM {T} WHERE %s' % self.where(col)
        direction = r.choice(['', ' DESC', ' ASC', ' DESC NULLS FIRST',
                              ' NULLS LAST', ' DESC NULLS LAST', ' NULLS FIRST'])
        if shape == 'ordered':
            return 'ordered', 'SELECT %s FROM {T} WHERE %s ORDER BY %s%s' % (
                col, self.where(col), col, direction)
        n = r.choice([1, 2, 5, 10, 50, 300, 2000])
        if shape == 'limit':
            return 'limit', 'SELECT %s FROM {T} WHERE %s ORDER BY %s%s LIMIT %d' % (
                col, self.where(col), col, direction, n)
        return 'limit', 'SELECT %s FROM {T} ORDER BY %s%s LIMIT %d' % (
            col, col, direction, n)


RUNNER = r"""
-- Run every query of diff_queries on both tables and return the mismatches.
-- The btree side runs with index scans; the fpbtree side with index scans
-- (bitmap scans off), then with bitmap scans (index scans off); sequential
-- scans are off throughout, and the plan must use the fpbtree index of the
-- query's column (for bitmap scans: when there is a WHERE clause).
--   set     - same rows, in any order
--   ordered - same rows, and the values in the same order
--   limit   - the same values in the same order (which of several rows with
--             equal values comes is free)
CREATE FUNCTION diff_run() RETURNS TABLE (qid int, mode text, problem text)
LANGUAGE plpgsql AS $$
DECLARE
	r record;
	m text;
	ref_txt text[];
	got_txt text[];
	ref_k int8[];
	got_k int8[];
	ref_f float8[];
	got_f float8[];
	ref_n numeric[];
	got_n numeric[];
	ref_t text[];
	got_t text[];
	plan text;
	line text;
	q text;
	idx text;
BEGIN
	FOR r IN SELECT * FROM diff_queries ORDER BY id LOOP
		idx := 'diff_fpb_' || r.col;
		FOREACH m IN ARRAY ARRAY['ref', 'index', 'bitmap'] LOOP
			PERFORM set_config('enable_seqscan', 'off', true);
			PERFORM set_config('enable_indexscan', CASE WHEN m = 'bitmap' THEN 'off' ELSE 'on' END, true);
			PERFORM set_config('enable_indexonlyscan', CASE WHEN m = 'bitmap' THEN 'off' ELSE 'on' END, true);
			PERFORM set_config('enable_bitmapscan', CASE WHEN m = 'bitmap' THEN 'on' ELSE 'off' END, true);
			q := replace(r.q, '{T}', CASE WHEN m = 'ref' THEN 'diff_bt' ELSE 'diff_fpb' END);
			IF m = 'index' OR (m = 'bitmap' AND q ~ ' WHERE ') THEN
				plan := '';
				FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
					plan := plan || line || E'\n';
				END LOOP;
				IF plan !~ (' ' || idx || '([ \n]|$)') THEN
					qid := r.id; mode := m;
					problem := 'plan does not use ' || idx || E':\n' || plan;
					RETURN NEXT;
					CONTINUE;
				END IF;
			END IF;
			IF r.kind <> 'limit' THEN
				EXECUTE format('SELECT array_agg(s::text ORDER BY s::text COLLATE "C") FROM (%s) s', q)
					INTO got_txt;
			END IF;
			IF r.kind <> 'set' THEN
				IF r.col = 'k' THEN
					EXECUTE format('SELECT array_agg(k) FROM (%s) s', q) INTO got_k;
				ELSIF r.col = 'f' THEN
					EXECUTE format('SELECT array_agg(f) FROM (%s) s', q) INTO got_f;
				ELSIF r.col = 'n' THEN
					-- numeric equality: 1.0 and 1.00 are one value
					EXECUTE format('SELECT array_agg(n) FROM (%s) s', q) INTO got_n;
				ELSE
					EXECUTE format('SELECT array_agg(t) FROM (%s) s', q) INTO got_t;
				END IF;
			END IF;
			IF m = 'ref' THEN
				ref_txt := got_txt; ref_k := got_k; ref_f := got_f;
				ref_n := got_n; ref_t := got_t;
				CONTINUE;
			END IF;
			IF r.kind <> 'limit' AND got_txt IS DISTINCT FROM ref_txt THEN
				qid := r.id; mode := m;
				problem := format('rows differ: %s rows instead of %s; first extra: %s; first missing: %s',
					coalesce(cardinality(got_txt), 0), coalesce(cardinality(ref_txt), 0),
					(SELECT array_agg(x) FROM (SELECT x FROM unnest(got_txt) x EXCEPT ALL SELECT y FROM unnest(ref_txt) y ORDER BY 1 LIMIT 5) e),
					(SELECT array_agg(y) FROM (SELECT y FROM unnest(ref_txt) y EXCEPT ALL SELECT x FROM unnest(got_txt) x ORDER BY 1 LIMIT 5) e));
				RETURN NEXT;
			ELSIF r.kind <> 'set' AND r.col = 'k' AND got_k IS DISTINCT FROM ref_k THEN
				qid := r.id; mode := m;
				problem := format('order differs: %s instead of %s', left(got_k::text, 300), left(ref_k::text, 300));
				RETURN NEXT;
			ELSIF r.kind <> 'set' AND r.col = 'f' AND got_f IS DISTINCT FROM ref_f THEN
				qid := r.id; mode := m;
				problem := format('order differs: %s instead of %s', left(got_f::text, 300), left(ref_f::text, 300));
				RETURN NEXT;
			ELSIF r.kind <> 'set' AND r.col = 'n' AND got_n IS DISTINCT FROM ref_n THEN
				qid := r.id; mode := m;
				problem := format('order differs: %s instead of %s', left(got_n::text, 300), left(ref_n::text, 300));
				RETURN NEXT;
			ELSIF r.kind <> 'set' AND r.col = 't' AND got_t IS DISTINCT FROM ref_t THEN
				qid := r.id; mode := m;
				problem := format('order differs: %s instead of %s', left(got_t::text, 300), left(ref_t::text, 300));
				RETURN NEXT;
			END IF;
		END LOOP;
	END LOOP;
END $$;

-- one phase: check the indexes, compare the tables, run every query
CREATE FUNCTION diff_phase(p_phase text) RETURNS TABLE (phase text, queries bigint, mismatches bigint)
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO diff_problems SELECT p_phase, d.qid, d.mode, d.problem FROM diff_run() d;
	phase := p_phase;
	queries := (SELECT count(*) FROM diff_queries);
	mismatches := (SELECT count(*) FROM diff_problems p WHERE p.phase = p_phase);
	RETURN NEXT;
END $$;
"""


def main():
    g = Gen(SEED)
    bulk = g.rows(1, N_BULK)
    grow = g.rows(N_BULK + 1, N_GROW)
    queries = []
    for _ in range(N_QUERIES_K):
        queries.append(('k',) + g.query('k'))
    for _ in range(N_QUERIES_F):
        queries.append(('f',) + g.query('f'))
    # a few fixed ones that must always be there
    for col in ('k', 'f'):
        queries += [
            (col, 'set', 'SELECT id FROM {T} WHERE %s IS NULL' % col),
            (col, 'set', 'SELECT %s FROM {T} WHERE %s IS NOT NULL' % (col, col)),
            (col, 'ordered', 'SELECT %s FROM {T} ORDER BY %s' % (col, col)),
            (col, 'ordered', 'SELECT %s FROM {T} ORDER BY %s DESC' % (col, col)),
        ]
    queries += [
        ('k', 'set', 'SELECT id FROM {T} WHERE k = 42'),
        ('k', 'set', 'SELECT id FROM {T} WHERE k = 42::int2 AND k >= 42::int4'),
        ('k', 'limit', 'SELECT k FROM {T} WHERE k >= 42 ORDER BY k LIMIT 300'),
        ('k', 'limit', 'SELECT k FROM {T} WHERE k <= 42 ORDER BY k DESC LIMIT 300'),
        ('k', 'set', 'SELECT k FROM {T} WHERE k > 9223372036854775806'),
        ('k', 'set', 'SELECT k FROM {T} WHERE k < (-9223372036854775807)'),
        ('f', 'set', "SELECT id, f FROM {T} WHERE f = '-0'"),
        ('f', 'set', "SELECT f FROM {T} WHERE f = '0'::float4"),
        ('f', 'set', "SELECT f FROM {T} WHERE f >= 'NaN'"),
        ('f', 'set', "SELECT f FROM {T} WHERE f > 'Infinity'::float4"),
        ('f', 'set', "SELECT f FROM {T} WHERE f < '-Infinity'"),
        ('f', 'set', "SELECT f FROM {T} WHERE f <= '-Infinity'"),
    ]
    # deletes: single rows, whole key ranges, parts of the duplicate runs
    deletes = [
        'id %% 5 = 2',
        'k BETWEEN -3000 AND 2500',
        'k = 42 AND id %% 3 <> 0',
        'k = 0 AND id > %d' % (N_BULK // 2),
        'k IS NULL AND id %% 2 = 0',
        "f > 1000 AND f < 'Infinity'",
        "f = '-0' AND id %% 2 = 1",
        'k > %d' % (2 ** 62),
    ]
    regrow = g.rows(N_BULK + N_GROW + 1, N_REGROW)
    # the numeric and text queries last, from their own stream (Gen.r2)
    g.r, saved = g.r2, g.r
    for _ in range(N_QUERIES_N):
        queries.append(('n',) + g.query('n'))
    for _ in range(N_QUERIES_T):
        queries.append(('t',) + g.query('t'))
    g.r = saved
    for col in ('n', 't'):
        queries += [
            (col, 'set', 'SELECT id FROM {T} WHERE %s IS NULL' % col),
            (col, 'ordered', 'SELECT %s FROM {T} ORDER BY %s' % (col, col)),
            (col, 'ordered', 'SELECT %s FROM {T} ORDER BY %s DESC' % (col, col)),
        ]
    queries += [
        ('n', 'set', "SELECT id, n FROM {T} WHERE n = 1"),
        ('n', 'set', "SELECT n FROM {T} WHERE n >= 'NaN'"),
        ('n', 'set', "SELECT n FROM {T} WHERE n > 'Infinity'"),
        ('n', 'set', "SELECT n FROM {T} WHERE n BETWEEN 12345678 AND 12345678.12"),
        ('t', 'set', "SELECT id, t FROM {T} WHERE t = ''"),
        ('t', 'set', "SELECT t FROM {T} WHERE t >= 'common-prefix-' AND t < 'common-prefix.'"),
    ]
    deletes += [
        "n > 100 AND n < 'Infinity'",
        "t >= 'common' AND t < 'commoo' AND id %% 2 = 0",
    ]

    out = []
    w = out.append
    w('--')
    w('-- differential: fpbtree against btree on generated data and queries.')
    w('-- GENERATED by test/gen_differential.py (seed %d); do not edit.' % SEED)
    w('--')
    w('-- %d queries; in each of four phases (bulk build, random-order inserts,' % len(queries))
    w('-- deletes + VACUUM, inserts into the freed space) every query runs on')
    w('-- the fpbtree table (index scan, bitmap scan) and on the btree table,')
    w('-- and the results must be the same: expect 0 mismatches.')
    w('--')
    w('SET client_min_messages = warning;')
    w('CREATE EXTENSION IF NOT EXISTS fpbtree;')
    w('RESET client_min_messages;')
    w('')
    w('-- (no autovacuum: the entry counts below are exact after VACUUM)')
    w('CREATE TABLE diff_fpb (id int4, k int8, f float8, n numeric, t text COLLATE "C")')
    w('    WITH (autovacuum_enabled = off);')
    w('CREATE TABLE diff_bt (id int4, k int8, f float8, n numeric, t text COLLATE "C")')
    w('    WITH (autovacuum_enabled = off);')
    w('CREATE TABLE diff_queries (id int PRIMARY KEY, col text, kind text, q text);')
    w('CREATE TABLE diff_problems (phase text, qid int, mode text, problem text);')
    w(RUNNER)
    w('INSERT INTO diff_queries VALUES')
    vals = []
    for i, (col, kind, q) in enumerate(queries, 1):
        vals.append("\t(%d, '%s', '%s', '%s')" % (i, col, kind, q.replace("'", "''")))
    w(',\n'.join(vals) + ';')
    w('SELECT col, kind, count(*) FROM diff_queries GROUP BY col, kind ORDER BY col, kind;')
    w('')

    def load(rows, note):
        w('-- %s: %d rows in random order' % (note, len(rows)))
        w('COPY diff_fpb FROM stdin;')
        out.extend(rows)
        w('\\.')
        w('INSERT INTO diff_bt SELECT * FROM diff_fpb WHERE id NOT IN (SELECT id FROM diff_bt);')

    def phase(name):
        w('VACUUM ANALYZE diff_fpb, diff_bt;')
        w("SELECT fpbtree_check('diff_fpb_k', true), fpbtree_check('diff_fpb_f', true),")
        w("       fpbtree_check('diff_fpb_n', true), fpbtree_check('diff_fpb_t', true);")
        w('-- the two tables hold the same rows')
        w('SELECT (SELECT count(*) FROM diff_fpb) = (SELECT count(*) FROM diff_bt) AS same_count,')
        w('       NOT EXISTS (SELECT id, k, f::text, n::text, t FROM diff_fpb')
        w('                   EXCEPT SELECT id, k, f::text, n::text, t FROM diff_bt) AS same_rows;')
        w("SELECT * FROM diff_phase('%s');" % name)
        w('SELECT k.entries = (SELECT count(*) FROM diff_fpb) AS k_entries_ok,')
        w('       f.entries = (SELECT count(*) FROM diff_fpb) AS f_entries_ok,')
        w('       k.height >= 2 AS k_tall, f.height >= 3 AS f_taller')
        w("FROM fpbtree_stats('diff_fpb_k') k, fpbtree_stats('diff_fpb_f') f;")
        w('SELECT n.entries = (SELECT count(*) FROM diff_fpb) AS n_entries_ok,')
        w('       t.entries = (SELECT count(*) FROM diff_fpb) AS t_entries_ok')
        w("FROM fpbtree_stats('diff_fpb_n') n, fpbtree_stats('diff_fpb_t') t;")
        w('')

    w('-- phase 1: bulk build')
    load(bulk, 'bulk')
    w('CREATE INDEX diff_fpb_k ON diff_fpb USING fpbtree (k);')
    # the float index with narrow nodes and sparse pages: a taller tree
    w('CREATE INDEX diff_fpb_f ON diff_fpb USING fpbtree (f)')
    w('    WITH (fillfactor = 10, nonleaf_lines = 1, leaf_lines = 2);')
    w('CREATE INDEX diff_fpb_n ON diff_fpb USING fpbtree (n);')
    w('CREATE INDEX diff_fpb_t ON diff_fpb USING fpbtree (t);')
    w('CREATE INDEX diff_bt_n ON diff_bt USING btree (n);')
    w('CREATE INDEX diff_bt_t ON diff_bt USING btree (t);')
    w('CREATE INDEX diff_bt_k ON diff_bt USING btree (k);')
    w('CREATE INDEX diff_bt_f ON diff_bt USING btree (f);')
    phase('1 bulk')

    w('-- phase 2: grown by inserts')
    load(grow, 'inserts')
    phase('2 grown')

    w('-- phase 3: deletes and VACUUM')
    for d in deletes:
        d = d.replace('%%', '%')
        w('DELETE FROM diff_fpb WHERE %s;' % d)
        w('DELETE FROM diff_bt WHERE %s;' % d)
    phase('3 vacuumed')

    w('-- phase 4: inserts into the space VACUUM freed')
    load(regrow, 'more inserts')
    phase('4 regrown')

    w('-- the details of any mismatch (expect none)')
    w('SELECT p.phase, p.qid, p.mode, q.q, left(p.problem, 600) AS problem')
    w('FROM diff_problems p JOIN diff_queries q ON q.id = p.qid')
    w('ORDER BY p.phase, p.qid, p.mode LIMIT 20;')
    w('')
    w('DROP TABLE diff_fpb, diff_bt, diff_queries, diff_problems;')
    w('DROP FUNCTION diff_phase(text), diff_run();')

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, 'sql', '40_differential.sql')
    if len(sys.argv) > 1:
        path = sys.argv[1]
    with open(path, 'w') as fh:
        fh.write('\n'.join(out) + '\n')
    print('wrote %s: %d queries, %d+%d+%d rows' % (path, len(queries), len(bulk),
                                                   len(grow), len(regrow)))


if __name__ == '__main__':
    main()
