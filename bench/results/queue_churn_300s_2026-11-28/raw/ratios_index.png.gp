set terminal pngcairo size 1029,370 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-28T232601Z_cde0e39-dirty/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=2000000, 1 round, 2026-11-28 23:26 UTC, fpbtree cde0e39 + uncommitted changes in src/" at screen 0.5, screen 0.918919 center font ",11"
set key at screen 0.5, screen 0.837838 center top horizontal samplen 2 width 2
set tmargin at screen 0.740541
set bmargin at screen 0.248649
set logscale x 2
set xrange [0.439538:2.75691]
set yrange [-0.6:6.6]
set y2range [-0.6:6.6]
set xtics ("0.5" 0.5, "0.67" 0.67, "1" 1, "1.5" 1.5, "2" 2) nomirror
set ytics ("queue: index size after cycle 1" 6, "queue: index size after cycle 25" 5, "queue: size after cycle 25 / after cycle 1" 4, "queue: buffers read by SELECT min at the end" 3, "TPC-B-like 300 s, no VACUUM: growth of the unique aid index" 2, "the same: growth of the abalance index" 1, "the same: TPS, 2 clients" 0) nomirror scale 0
set y2tics ("1.28" 6, "1.28" 5, "1.00" 4, "0.57" 3, "—" 2, "2.12" 1, "1.03" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.1 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0594595 font ",8"
$D0 << EOD
1.2844 6 1 1.2844 5.664 6.336 1.2844 1.2844
1.2842 5 1 1.2842 4.664 5.336 1.2842 1.2842
0.9998 4 0.9998 1 3.664 4.336 0.9998 0.9998
0.5714 3 0.5714 1 2.664 3.336 0.5714 0.5714
2.1207 1 1 2.1207 0.664 1.336 2.1207 2.1207
1.0282 0 1 1.0282 -0.336 0.336 1.0282 1.0282
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
