"""fpbtree benchmark modules; bench/bench.py is the entry point (see its docstring)."""
