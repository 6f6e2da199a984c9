set terminal pngcairo size 1010,240 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T052019Z_e644616/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=10000000, medians of 7 rounds, 2026-11-29 05:20 UTC, fpbtree e644616" at screen 0.5, screen 0.875 center font ",11"
set key at screen 0.5, screen 0.75 center top horizontal samplen 2 width 2
set tmargin at screen 0.6
set bmargin at screen 0.383333
set logscale x 2
set xrange [0.51462:2.05848]
set yrange [-0.6:1.6]
set y2range [-0.6:1.6]
set xtics ("0.67" 0.67, "0.8" 0.8, "1" 1, "1.25" 1.25, "1.5" 1.5, "2" 2) nomirror
set ytics ("pgbench select-only, scale 20, unique indexes, 2 clients" 1, "pgbench TPC-B-like, scale 20, unique indexes, 2 clients" 0) nomirror scale 0
set y2tics ("0.98" 1, "0.96" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.154167 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0916667 font ",8"
$D0 << EOD
0.9832 1 0.9832 1 0.664 1.336 0.9296 1.1275
0.9574 0 0.9574 1 -0.336 0.336 0.8844 1.1978
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
