set terminal pngcairo size 1049,526 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T121030Z_affc0ac/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=5000000, medians of 3 rounds, 2026-11-29 12:10 UTC, fpbtree affc0ac" at screen 0.5, screen 0.942966 center font ",11"
set key at screen 0.5, screen 0.885932 center top horizontal samplen 2 width 2
set tmargin at screen 0.81749
set bmargin at screen 0.174905
set logscale x 2
set xrange [0.609231:2.62548]
set yrange [-0.6:12.6]
set y2range [-0.6:12.6]
set xtics ("0.67" 0.67, "0.8" 0.8, "1" 1, "1.25" 1.25, "1.5" 1.5, "2" 2) nomirror
set ytics ("index nested-loop join, 500000 probes, text COLLATE 'C'" 12, "index nested-loop join, 500000 probes, text COLLATE 'en-x-icu'" 11, "index nested-loop join, 500000 probes, text COLLATE 'C.utf8'" 10, "index nested-loop join, 500000 probes, uuid" 9, "index-only count over half of 5000000 text keys" 8, "CREATE INDEX, 5000000 rows, text COLLATE 'C'" 7, "CREATE INDEX, 5000000 rows, text COLLATE 'en-x-icu'" 6, "CREATE INDEX, 5000000 rows, text COLLATE 'C.utf8'" 5, "CREATE INDEX, 5000000 rows, uuid" 4, "index size, text COLLATE 'C'" 3, "index size, text COLLATE 'en-x-icu'" 2, "index size, text COLLATE 'C.utf8'" 1, "index size, uuid" 0) nomirror scale 0
set y2tics ("1.40" 12, "1.70" 11, "1.89" 10, "1.30" 9, "1.49" 8, "0.90" 7, "0.95" 6, "2.02" 5, "0.84" 4, "1.02" 3, "1.02" 2, "1.02" 1, "0.86" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.0703422 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0418251 font ",8"
$D0 << EOD
1.4047 12 1 1.4047 11.664 12.336 1.3614 1.4579
1.6981 11 1 1.6981 10.664 11.336 1.5689 1.7809
1.8914 10 1 1.8914 9.664 10.336 1.8676 2.0101
1.3005 9 1 1.3005 8.664 9.336 1.2409 1.3809
1.492 8 1 1.492 7.664 8.336 1.2483 1.492
0.9012 7 0.9012 1 6.664 7.336 0.8675 0.9853
0.9471 6 0.9471 1 5.664 6.336 0.9436 1.2138
2.0191 5 1 2.0191 4.664 5.336 1.8886 2.0196
0.8406 4 0.8406 1 3.664 4.336 0.792 0.8731
1.0235 3 1 1.0235 2.664 3.336 1.0235 1.0235
1.0235 2 1 1.0235 1.664 2.336 1.0235 1.0235
1.0235 1 1 1.0235 0.664 1.336 1.0235 1.0235
0.8582 0 0.8582 1 -0.336 0.336 0.8582 0.8582
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
