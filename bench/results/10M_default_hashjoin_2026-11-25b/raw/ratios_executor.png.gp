set terminal pngcairo size 1000,333 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-25T040932Z_867000f/ratios_executor.png"
set label 100 "executor nodes on (B) vs off (A): hash joins, TPC-H-shaped queries\nSCALE=10000000, medians of 3 rounds, 2026-11-25 04:09 UTC, fpbtree 867000f" at screen 0.5, screen 0.90991 center font ",11"
set key at screen 0.5, screen 0.81982 center top horizontal samplen 2 width 2
set tmargin at screen 0.711712
set bmargin at screen 0.321321
set logscale x 2
set xrange [0.769231:3.54055]
set yrange [-0.6:4.6]
set y2range [-0.6:4.6]
set xtics ("1" 1, "1.5" 1.5, "2" 2, "3" 3) nomirror
set ytics ("hash join, 100k-row build side x 10M probes" 4, "hash join, 100k-row build side, B forced" 3, "hash join 10M x 10M, 0 workers" 2, "hash join 10M x 10M, 1 worker" 1, "hash join 10M x 10M, 2 workers" 0) nomirror scale 0
set y2tics ("1.90" 4, "2.00" 3, "1.83" 2, "2.25" 1, "2.62" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = the feature off, B = on: enable_prefetch_hashjoin (hash joins), enable_buffer_operator (TPC-H)." at screen 0.01, screen 0.156156 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.111111 font ",8"
set label 3 "k, M = thousand, million" at screen 0.01, screen 0.0660661 font ",8"
$D0 << EOD
1.9009 4 1 1.9009 3.664 4.336 1.8077 1.9326
1.9965 3 1 1.9965 2.664 3.336 1.8588 2.2359
1.8315 2 1 1.8315 1.664 2.336 1.6097 2.0284
2.2495 1 1 2.2495 0.664 1.336 1.9071 2.4755
2.6204 0 1 2.6204 -0.336 0.336 2.3431 2.7235
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
