set terminal pngcairo size 1049,448 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T065718Z_730596e/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=5000000, medians of 3 rounds, 2026-11-29 06:57 UTC, fpbtree 730596e" at screen 0.5, screen 0.933036 center font ",11"
set key at screen 0.5, screen 0.866071 center top horizontal samplen 2 width 2
set tmargin at screen 0.785714
set bmargin at screen 0.205357
set logscale x 2
set xrange [0.595923:2.54566]
set yrange [-0.6:9.6]
set y2range [-0.6:9.6]
set xtics ("0.67" 0.67, "0.8" 0.8, "1" 1, "1.25" 1.25, "1.5" 1.5, "2" 2) nomirror
set ytics ("index nested-loop join, 500000 probes, text COLLATE 'C'" 9, "index nested-loop join, 500000 probes, text COLLATE 'en-x-icu'" 8, "index nested-loop join, 500000 probes, uuid" 7, "index-only count over half of 5000000 text keys" 6, "CREATE INDEX, 5000000 rows, text COLLATE 'C'" 5, "CREATE INDEX, 5000000 rows, text COLLATE 'en-x-icu'" 4, "CREATE INDEX, 5000000 rows, uuid" 3, "index size, text COLLATE 'C'" 2, "index size, text COLLATE 'en-x-icu'" 1, "index size, uuid" 0) nomirror scale 0
set y2tics ("1.54" 9, "1.70" 8, "1.20" 7, "1.96" 6, "0.89" 5, "0.91" 4, "0.77" 3, "1.02" 2, "1.02" 1, "0.86" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.0825893 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0491071 font ",8"
$D0 << EOD
1.5377 9 1 1.5377 8.664 9.336 1.2622 1.5668
1.7026 8 1 1.7026 7.664 8.336 1.4787 1.8859
1.1955 7 1 1.1955 6.664 7.336 1.0915 1.2452
1.9582 6 1 1.9582 5.664 6.336 1.4352 1.9582
0.8936 5 0.8936 1 4.664 5.336 0.7802 0.9946
0.9122 4 0.9122 1 3.664 4.336 0.8928 0.9625
0.7747 3 0.7747 1 2.664 3.336 0.7747 0.9155
1.0228 2 1 1.0228 1.664 2.336 1.0228 1.0228
1.0228 1 1 1.0228 0.664 1.336 1.0228 1.0228
0.858 0 0.858 1 -0.336 0.336 0.858 0.858
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
