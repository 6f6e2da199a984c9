set terminal pngcairo size 1000,255 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-25T033300Z_5482b04/ratios_executor.png"
set label 100 "executor nodes on (B) vs off (A): hash joins, TPC-H-shaped queries\nSCALE=10000000, medians of 3 rounds, 2026-11-25 03:33 UTC, fpbtree 5482b04" at screen 0.5, screen 0.882353 center font ",11"
set key at screen 0.5, screen 0.764706 center top horizontal samplen 2 width 2
set tmargin at screen 0.623529
set bmargin at screen 0.419608
set logscale x 2
set xrange [0.769231:3.13274]
set yrange [-0.6:1.6]
set y2range [-0.6:1.6]
set xtics ("0.8" 0.8, "1" 1, "1.25" 1.25, "1.5" 1.5, "2" 2, "3" 3) nomirror
set ytics ("hash join 10M x 10M int8" 1, "hash join 10M x 10M int8, work_mem = 4MB" 0) nomirror scale 0
set y2tics ("2.18" 1, "1.63" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = the feature off, B = on: enable_prefetch_hashjoin (hash joins), enable_buffer_operator (TPC-H)." at screen 0.01, screen 0.203922 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.145098 font ",8"
set label 3 "k, M = thousand, million; int8 = 64-bit integer keys; work_mem = memory of one hash table before it spills to batches" at screen 0.01, screen 0.0862745 font ",8"
$D0 << EOD
2.1824 1 1 2.1824 0.664 1.336 2.1824 2.4098
1.629 0 1 1.629 -0.336 0.336 1.4864 1.7533
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
