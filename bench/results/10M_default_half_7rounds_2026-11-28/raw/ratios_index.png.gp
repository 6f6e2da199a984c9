set terminal pngcairo size 1114,307 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-28T223748Z_737f45a/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=10000000, medians of 7 rounds, 2026-11-28 22:37 UTC, fpbtree 737f45a" at screen 0.5, screen 0.90228 center font ",11"
set key at screen 0.5, screen 0.80456 center top horizontal samplen 2 width 2
set tmargin at screen 0.687296
set bmargin at screen 0.348534
set logscale x 2
set xrange [0.378308:6.13782]
set yrange [-0.6:3.6]
set y2range [-0.6:3.6]
set xtics ("0.5" 0.5, "0.67" 0.67, "1" 1, "1.5" 1.5, "2" 2, "3" 3, "4" 4, "6" 6) nomirror
set ytics ("index-only count over 2500000 of 5000000 scattered entries, warm" 3, "index-only count over 2500000 of 5000000 scattered entries, cold" 2, "index-only count over 2500000 of 5000000 scattered entries, int8-only t…" 1, "index-only count over 2500000 of 5000000 scattered entries, int8-only t…" 0) nomirror scale 0
set y2tics ("1.24" 3, "3.43" 2, "1.29" 1, "4.05" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.169381 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.120521 font ",8"
set label 3 "int8 = 64-bit integer keys" at screen 0.01, screen 0.0716612 font ",8"
$D0 << EOD
1.2389 3 1 1.2389 2.664 3.336 0.4918 1.4509
3.4263 2 1 3.4263 1.664 2.336 2.833 3.8091
1.2935 1 1 1.2935 0.664 1.336 1.0516 1.6782
4.0505 0 1 4.0505 -0.336 0.336 3.1139 4.7214
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
