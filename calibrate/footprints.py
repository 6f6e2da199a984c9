#!/usr/bin/env python3
"""Measure the instruction footprint of PostgreSQL 15 operators and common
built-in functions, and write the table the plan refinement uses
(src/exec/buffer_fptable.h).

Method (Zhou & Ross §6.1, with cache lines instead of whole functions):
each calibration query runs in a single-user backend under callgrind with
--dump-instr=yes; collection is toggled on while the operator's own entry
function runs and off again inside its children's entry functions (callgrind
toggles on every entry and exit of a --toggle-collect function, so listing
the operator and its children's entry points collects the operator alone).
The footprint of a module is the set of 64-byte code lines it executes at
least once per FREQ tuples.  A function's footprint is the lines of the
function and of everything it calls, from the call graph of the same runs.
Lines are then grouped into atoms by the set of modules/functions that use
them; each module and function is written as its list of atoms, so the C
code counts shared code once.

Needs an unstripped postgres binary of the server's major version (Debian
strips theirs; calibrate/build_postgres_symbols.sh builds one from the
source) and valgrind.  Run as root or as the postgres user:

    calibrate/footprints.py --postgres /tmp/pgsym/bin/postgres \
        [--rows 20000] [--out src/exec/buffer_fptable.h]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = 64
FREQ = 20          # a line counts if executed >= once per FREQ tuples

# The calibration set: module -> (setup settings, query, toggled functions,
# tuples the operator handles).  The first toggle is the operator's entry;
# the others are its children's (collection stops inside them).  ExecScan is
# the common loop of all scan nodes (their Exec* functions tail-call it).
SCAN = ["ExecScan"]
CASES = [
    ("SEQSCAN", "", "SELECT count(*) FROM cal", SCAN, "rows"),
    ("SEQSCAN_QUAL", "", "SELECT count(*) FROM cal WHERE c_date <= date '2030-01-01' AND c_int >= 0", SCAN, "rows"),
    ("SEQSCAN_PROJECT", "", "SELECT count(*) FROM (SELECT c_int + 1 AS a, c_num * 2 AS b FROM cal OFFSET 0) s", SCAN, "rows"),
    ("INDEXSCAN", "SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;",
     "SELECT count(c_num) FROM cal WHERE c_int > 0", SCAN, "rows"),
    ("INDEXONLYSCAN", "SET enable_seqscan = off; SET enable_bitmapscan = off;",
     "SELECT count(*) FROM cal WHERE c_int > 0", SCAN, "rows"),
    ("BITMAPHEAPSCAN", "SET enable_seqscan = off; SET enable_indexscan = off;",
     "SELECT count(c_num) FROM cal WHERE c_int > 0", SCAN, "rows"),
    ("OTHERSCAN", "", "SELECT count(*) FROM generate_series(1, {rows}) g", SCAN, "rows"),
    ("AGG", "", "SELECT count(*) FROM cal", ["ExecAgg"] + SCAN, "rows"),
    ("AGG_Q1", "", "SELECT sum(c_price * (1 - c_disc) * (1 + c_tax)), avg(c_num), count(*) FROM cal WHERE c_date <= date '2030-01-01'",
     ["ExecAgg"] + SCAN, "rows"),
    ("SCAN_Q1", "", "SELECT sum(c_price * (1 - c_disc) * (1 + c_tax)), avg(c_num), count(*) FROM cal WHERE c_date <= date '2030-01-01'",
     SCAN, "rows"),
    ("HASHAGG", "SET enable_sort = off;", "SELECT c_int % 100, count(*) FROM cal GROUP BY 1", ["ExecAgg"] + SCAN, "rows"),
    ("SORT", "", "SELECT count(*) FROM (SELECT c_int FROM cal ORDER BY c_num OFFSET 0) s", ["ExecSort"] + SCAN, "rows"),
    ("HASH", "SET enable_nestloop = off; SET enable_mergejoin = off;",
     "SELECT count(*) FROM cal a JOIN cal2 b ON a.c_int = b.k", ["MultiExecHash"] + SCAN, "rows2"),
    ("HASHJOIN", "SET enable_nestloop = off; SET enable_mergejoin = off;",
     "SELECT count(*) FROM cal a JOIN cal2 b ON a.c_int = b.k", ["ExecHashJoin", "MultiExecHash"] + SCAN, "rows"),
    ("NESTLOOP", "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_material = off;",
     "SELECT count(*) FROM cal a JOIN cal2 b ON a.c_int = b.k", ["ExecNestLoop"] + SCAN, "rows"),
    ("MERGEJOIN", "SET enable_hashjoin = off; SET enable_nestloop = off;",
     "SELECT count(*) FROM cal a JOIN cal2 b ON a.c_int = b.k", ["ExecMergeJoin"] + SCAN, "rows"),
    ("MATERIAL", "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_indexscan = off; SET enable_bitmapscan = off;",
     "SELECT count(*) FROM cal2 a JOIN cal2 b ON a.k < b.k + 1 AND a.k > b.k - 1 WHERE a.k < 20", ["ExecMaterial"] + SCAN, "rows2x20"),
    ("APPEND", "", "SELECT count(*) FROM (SELECT c_int FROM cal UNION ALL SELECT k FROM cal2) s",
     ["ExecAppend"] + SCAN, "rows"),
    ("UNIQUE", "SET enable_hashagg = off;", "SELECT count(*) FROM (SELECT DISTINCT c_int FROM cal) s",
     ["ExecUnique", "ExecSort"], "rows"),
    ("LIMIT", "", "SELECT count(*) FROM (SELECT c_int FROM cal LIMIT {rows}) s", ["ExecLimit"] + SCAN, "rows"),
    ("WINDOWAGG", "", "SELECT count(*) FROM (SELECT row_number() OVER () FROM cal) s", ["ExecWindowAgg"] + SCAN, "rows"),
    ("RESULT", "", "SELECT count(*) FROM (SELECT c_int, generate_series(1, 1) FROM cal) s", ["ExecProjectSet"] + SCAN, "rows"),
    ("SUBQUERYSCAN", "", "SELECT count(*) FROM (SELECT DISTINCT ON (c_int) c_int, c_num FROM cal) s WHERE c_num > 0",
     ["ExecSubqueryScan", "ExecUnique"], "rows"),
    ("BUFFER", "SET fpbtree.l1i_cache_size = '1kB'; SET fpbtree.buffer_min_rows = 0;",
     "SELECT count(*) FROM cal", ["buffer_exec"] + SCAN, "rows"),
]

# functions whose footprint is written to the table (called per tuple by
# some query above); an expression calling an unlisted function gets
# UNKNOWN_FUNCTION_BYTES
FUNCTIONS = [
    "numeric_mul", "numeric_sub", "numeric_add", "numeric_avg_accum",
    "numeric_avg", "numeric_sum", "int8inc", "int8inc_any", "date_le",
    "int4lt", "int4gt", "int4ge", "int4eq", "int4pl", "int4mod",
    "numeric_gt", "numeric_lt", "numeric_ge", "numeric_le",
    "hashint4", "btint4cmp", "row_number", "int4_sum", "int8_avg_accum",
]

# which C module each measured case (minus the cases below it) becomes
MODULES = {
    "FPB_MOD_SEQSCAN": ("SEQSCAN", []),
    "FPB_MOD_QUAL": ("SEQSCAN_QUAL", ["SEQSCAN"]),
    "FPB_MOD_PROJECT": ("SEQSCAN_PROJECT", ["SEQSCAN"]),
    "FPB_MOD_INDEXSCAN": ("INDEXSCAN", []),
    "FPB_MOD_INDEXONLYSCAN": ("INDEXONLYSCAN", []),
    "FPB_MOD_BITMAPHEAPSCAN": ("BITMAPHEAPSCAN", []),
    "FPB_MOD_OTHERSCAN": ("OTHERSCAN", []),
    "FPB_MOD_SUBQUERYSCAN": ("SUBQUERYSCAN", []),
    "FPB_MOD_RESULT": ("RESULT", []),
    "FPB_MOD_APPEND": ("APPEND", []),
    "FPB_MOD_NESTLOOP": ("NESTLOOP", []),
    "FPB_MOD_MERGEJOIN": ("MERGEJOIN", []),
    "FPB_MOD_HASHJOIN": ("HASHJOIN", []),
    "FPB_MOD_HASH": ("HASH", []),
    "FPB_MOD_AGG": ("AGG", []),
    "FPB_MOD_HASHAGG": ("HASHAGG", []),
    "FPB_MOD_SORT": ("SORT", []),
    "FPB_MOD_MATERIAL": ("MATERIAL", []),
    "FPB_MOD_UNIQUE": ("UNIQUE", []),
    "FPB_MOD_LIMIT": ("LIMIT", []),
    "FPB_MOD_WINDOWAGG": ("WINDOWAGG", []),
    "FPB_MOD_BUFFER": ("BUFFER", []),
}

SETUP = """CREATE TABLE cal AS SELECT i AS c_int, ((i * 37) % 50 + 1)::numeric(15,2) AS c_num, ((i * 7919) % 100000 / 100.0 + 900)::numeric(15,2) AS c_price, ((i % 11) / 100.0)::numeric(15,2) AS c_disc, ((i % 9) / 100.0)::numeric(15,2) AS c_tax, date '1992-01-01' + (i * 13) % 2500 AS c_date, repeat('x', i % 20) AS c_text FROM generate_series(1, {rows}) i
CREATE TABLE cal2 AS SELECT k, k % 7 AS v FROM generate_series(1, {rows2}) k
CREATE INDEX cal_int ON cal (c_int)
CREATE INDEX cal2_k ON cal2 (k)
VACUUM ANALYZE cal
VACUUM ANALYZE cal2
"""


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def as_postgres(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def single(args, data, stmts, valgrind=None):
    cmd = [args.postgres, "--single", "-D", data, "-j",
           "-c", "shared_preload_libraries=" + args.library,
           "-c", "max_parallel_workers_per_gather=0", "-c", "jit=off",
           "-c", "shared_buffers=128MB", "-c", "work_mem=64MB",
           "postgres"]
    if valgrind:
        cmd = valgrind + cmd
    text = "".join(s.rstrip().rstrip(";") + ";\n\n" for s in stmts if s.strip())
    p = subprocess.run(as_postgres(cmd), input=text, capture_output=True,
                       text=True)
    if p.returncode != 0 or "ERROR" in p.stdout + p.stderr:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit("single-user backend failed")
    return p


def parse_instructions(path):
    """A callgrind profile made with --dump-instr=yes, per instruction:
    -> (address -> Ir, address -> function name, caller -> set(callee)).
    The cost line after a calls= line is the call's inclusive cost and is
    not counted."""
    ir = collections.Counter()
    owner = {}
    calls = collections.defaultdict(set)
    fn = None
    last = 0
    skip_next = False
    fnmap = {}
    npos = 1            # position columns: "instr", or "instr line"
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line:
                continue
            if line.startswith("positions:"):
                npos = len(line.split()) - 1
                continue
            m = re.match(r"^(fn|cfn|cfi|cob|ob|fl|fi|fe)=(.*)$", line)
            if m:
                key, val = m.groups()
                mm = re.match(r"^\((\d+)\)(?: (.*))?$", val)
                if key in ("fn", "cfn"):
                    if mm:
                        if mm.group(2) is not None:
                            fnmap[mm.group(1)] = mm.group(2)
                        name = fnmap.get(mm.group(1), val)
                    else:
                        name = val
                    if key == "fn":
                        fn = name
                    else:
                        calls[fn].add(name)
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if not (line[0].isdigit() or line[0] in "+-*0x"):
                continue
            parts = line.split()
            pos = parts[0]
            if pos.startswith("0x"):
                addr = int(pos, 16)
            elif pos[0] == "+":
                addr = last + int(pos[1:], 16 if pos[1:].startswith("0x") else 10)
            elif pos[0] == "-":
                addr = last - int(pos[1:], 16 if pos[1:].startswith("0x") else 10)
            elif pos == "*":
                addr = last
            else:
                addr = int(pos, 16) if pos.startswith("0x") else int(pos)
            last = addr
            if skip_next:
                skip_next = False
                continue
            ir[addr] += int(parts[npos]) if len(parts) > npos else 0
            owner.setdefault(addr, fn)
    return ir, owner, calls


def parse_callgrind(path):
    """-> (line -> Ir, line -> function name, caller -> set(callee))"""
    by_addr, owner_addr, calls = parse_instructions(path)
    ir = collections.Counter()
    owner = {}
    for addr, cost in by_addr.items():
        ir[addr // LINE] += cost
        owner.setdefault(addr // LINE, owner_addr[addr])
    return ir, owner, calls


def reachable(calls, root):
    seen = {root}
    todo = [root]
    while todo:
        f = todo.pop()
        for c in calls.get(f, ()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--postgres", required=True, help="unstripped postgres binary")
    ap.add_argument("--initdb", default="/usr/lib/postgresql/15/bin/initdb")
    ap.add_argument("--library", default="/usr/lib/postgresql/15/lib/fpbtree.so")
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "src", "exec", "buffer_fptable.h"))
    args = ap.parse_args()

    work = args.workdir or tempfile.mkdtemp(prefix="fpbcal.")
    os.makedirs(work, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
    data = os.path.join(work, "data")
    if not os.path.exists(os.path.join(data, "PG_VERSION")):
        run(as_postgres([args.initdb, "-D", data, "-A", "trust", "--no-sync"]),
            stdout=subprocess.DEVNULL)
        rows2 = args.rows
        single(args, data, SETUP.format(rows=args.rows, rows2=rows2).splitlines())

    tuples = {"rows": args.rows, "rows2": args.rows, "rows2x20": 20 * args.rows}
    measured = {}       # case -> set of lines
    funcsets = {}       # function -> set of lines
    owners = {}
    for name, setup, query, toggles, per in CASES:
        out = os.path.join(work, "cg.%s" % name)
        vg = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
              "--dump-instr=yes", "--dump-line=no", "--callgrind-out-file=" + out]
        vg += ["--toggle-collect=" + t for t in toggles]
        stmts = [s for s in setup.split(";")] + [query.format(rows=args.rows)]
        single(args, data, stmts, valgrind=vg)
        ir, owner, calls = parse_callgrind(out)
        owners.update(owner)
        n = tuples[per]
        lines = {ln for ln, c in ir.items() if c * FREQ >= n}
        measured[name] = lines
        # functions: their own lines plus their callees', as run here
        byfn = collections.defaultdict(set)
        for ln in lines:
            byfn[owner.get(ln)].add(ln)
        for f in FUNCTIONS:
            if f in calls or f in byfn:
                s = set()
                for g in reachable(calls, f):
                    s |= byfn.get(g, set())
                if s and (f not in funcsets or len(s) > len(funcsets[f])):
                    funcsets[f] = s
        print("%-16s %6d bytes  (%d lines, toggles %s)" %
              (name, len(lines) * LINE, len(lines), ",".join(toggles)), file=sys.stderr)

    entities = {}
    for mod, (case, minus) in MODULES.items():
        s = set(measured[case])
        for m in minus:
            s -= measured[m]
        entities[mod] = s
    for f, s in funcsets.items():
        entities["F:" + f] = s
    for f in FUNCTIONS:
        if f not in funcsets:
            print("function %s not seen by any calibration query" % f, file=sys.stderr)

    # atoms: lines grouped by the entities that use them
    sig = collections.defaultdict(set)
    for ent, lines in entities.items():
        for ln in lines:
            sig[ln].add(ent)
    atoms = collections.defaultdict(set)
    for ln, ents in sig.items():
        atoms[frozenset(ents)].add(ln)
    atom_list = sorted(atoms.items(), key=lambda kv: (-len(kv[1]), sorted(kv[0])))
    index = {}
    names = []
    for i, (ents, lines) in enumerate(atom_list):
        index[ents] = i
        c = collections.Counter(owners.get(ln) for ln in lines)
        names.append((c.most_common(1)[0][0] or "?", len(lines) * LINE))
    ent_atoms = collections.defaultdict(list)
    for ents, i in index.items():
        for e in ents:
            ent_atoms[e].append(i)

    fsizes = [len(s) * LINE for s in funcsets.values()]
    unknown = sorted(fsizes)[len(fsizes) // 2] if fsizes else 1024
    unknown = max(unknown, 256)

    with open(args.out, "w") as f:
        f.write("/*\n * buffer_fptable.h\n *\t  Instruction footprints measured by calibrate/footprints.py\n")
        f.write(" *\t  (callgrind, %d rows, a line counts if run once per %d tuples).\n" % (args.rows, FREQ))
        f.write(" *\t  Generated: do not edit.  Per module, bytes of executed code:\n")
        for mod in sorted(entities):
            f.write(" *\t    %-26s %6d\n" % (mod, len(entities[mod]) * LINE))
        for case in ("AGG_Q1", "SCAN_Q1"):
            f.write(" *\t    measured %-17s %6d\n" % (case, len(measured[case]) * LINE))
        f.write(" */\n")
        f.write("#define FPB_NATOMS %d\n" % len(atom_list))
        f.write("#define FPB_UNKNOWN_FUNCTION_BYTES %d\n" % unknown)
        f.write("#define FPB_UNKNOWN_MODULE_BYTES %d\n\n" %
                max(len(entities[m]) * LINE for m in MODULES))
        f.write("static const FpbAtomDef fpb_atoms[FPB_NATOMS] = {\n")
        for nm, b in names:
            f.write('\t{"%s", %d},\n' % (nm.replace('"', "'")[:60], b))
        f.write("};\n\nstatic const FpbModuleDef fpb_module_defs[] = {\n")
        for mod in sorted(MODULES):
            f.write("\t{%s, (const int16[]) {%s}},\n" %
                    (mod, ", ".join(str(a) for a in sorted(ent_atoms[mod]) + [-1])))
        f.write("};\n\nstatic const FpbFunctionDef fpb_function_defs[] = {\n")
        for fn in FUNCTIONS:
            if fn in funcsets:
                f.write('\t{"%s", (const int16[]) {%s}},\n' %
                        (fn, ", ".join(str(a) for a in sorted(ent_atoms["F:" + fn]) + [-1])))
        f.write("};\n")
    print("wrote %s: %d atoms" % (args.out, len(atom_list)), file=sys.stderr)


if __name__ == "__main__":
    main()
