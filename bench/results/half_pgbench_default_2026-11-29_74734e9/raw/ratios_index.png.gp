set terminal pngcairo size 1114,359 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T123611Z_74734e9/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=10000000, medians of 5 rounds, 2026-11-29 12:36 UTC, fpbtree 74734e9" at screen 0.5, screen 0.916435 center font ",11"
set key at screen 0.5, screen 0.832869 center top horizontal samplen 2 width 2
set tmargin at screen 0.732591
set bmargin at screen 0.29805
set logscale x 2
set xrange [0.737692:5.46494]
set yrange [-0.6:5.6]
set y2range [-0.6:5.6]
set xtics ("1" 1, "1.5" 1.5, "2" 2, "3" 3, "4" 4) nomirror
set ytics ("index-only count over 2500000 of 5000000 scattered entries, warm" 5, "index-only count over 2500000 of 5000000 scattered entries, cold" 4, "index-only count over 2500000 of 5000000 scattered entries, int8-only t…" 3, "index-only count over 2500000 of 5000000 scattered entries, int8-only t…" 2, "pgbench select-only, scale 20, unique indexes, 2 clients" 1, "pgbench TPC-B-like, scale 20, unique indexes, 2 clients" 0) nomirror scale 0
set y2tics ("1.40" 5, "3.23" 4, "1.37" 3, "3.72" 2, "1.03" 1, "1.02" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.144847 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.103064 font ",8"
set label 3 "int8 = 64-bit integer keys" at screen 0.01, screen 0.0612813 font ",8"
$D0 << EOD
1.3994 5 1 1.3994 4.664 5.336 0.959 1.4904
3.2326 4 1 3.2326 3.664 4.336 2.6237 3.5217
1.3661 3 1 1.3661 2.664 3.336 1.1799 1.7248
3.722 2 1 3.722 1.664 2.336 3.5685 4.2038
1.0321 1 1 1.0321 0.664 1.336 1.0195 1.0846
1.0157 0 1 1.0157 -0.336 0.336 0.9798 1.1723
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
