set terminal pngcairo size 1000,292 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T001155Z_a960a39/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=2000000, 1 round, 2026-11-29 00:11 UTC, fpbtree a960a39" at screen 0.5, screen 0.89726 center font ",11"
set key at screen 0.5, screen 0.794521 center top horizontal samplen 2 width 2
set tmargin at screen 0.671233
set bmargin at screen 0.315068
set logscale x 2
set xrange [0.431366:1.72546]
set yrange [-0.6:3.6]
set y2range [-0.6:3.6]
set xtics ("0.5" 0.5, "0.67" 0.67, "0.8" 0.8, "1" 1, "1.25" 1.25, "1.5" 1.5) nomirror
set ytics ("queue: index size after cycle 1" 3, "queue: index size after cycle 25" 2, "queue: size after cycle 25 / after cycle 1" 1, "queue: buffers read by SELECT min at the end" 0) nomirror scale 0
set y2tics ("1.30" 3, "1.30" 2, "1.00" 1, "0.57" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.126712 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0753425 font ",8"
$D0 << EOD
1.3026 3 1 1.3026 2.664 3.336 1.3026 1.3026
1.3024 2 1 1.3024 1.664 2.336 1.3024 1.3024
0.9998 1 0.9998 1 0.664 1.336 0.9998 0.9998
0.5714 0 0.5714 1 -0.336 0.336 0.5714 0.5714
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
