set terminal pngcairo size 1094,630 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-29T142755Z_f026b52/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=5000000, medians of 3 rounds, 2026-11-29 14:27 UTC, fpbtree f026b52" at screen 0.5, screen 0.952381 center font ",11"
set key at screen 0.5, screen 0.904762 center top horizontal samplen 2 width 2
set tmargin at screen 0.847619
set bmargin at screen 0.146032
set logscale x 2
set xrange [0.606615:2.94957]
set yrange [-0.6:16.6]
set y2range [-0.6:16.6]
set xtics ("0.67" 0.67, "1" 1, "1.5" 1.5, "2" 2) nomirror
set ytics ("index nested-loop join, 500000 probes, text COLLATE 'C'" 16, "index nested-loop join, 500000 probes, text COLLATE 'en-x-icu'" 15, "index nested-loop join, 500000 probes, text COLLATE 'C.utf8'" 14, "index nested-loop join, 500000 probes, uuid" 13, "index nested-loop join, 500000 probes, URL-like text COLLATE 'C'" 12, "index-only count over half of 5000000 keys, text COLLATE 'C'" 11, "index-only count over half of 5000000 keys, URL-like text COLLATE 'C'" 10, "CREATE INDEX, 5000000 rows, text COLLATE 'C'" 9, "CREATE INDEX, 5000000 rows, text COLLATE 'en-x-icu'" 8, "CREATE INDEX, 5000000 rows, text COLLATE 'C.utf8'" 7, "CREATE INDEX, 5000000 rows, uuid" 6, "CREATE INDEX, 5000000 rows, URL-like text COLLATE 'C'" 5, "index size, text COLLATE 'C'" 4, "index size, text COLLATE 'en-x-icu'" 3, "index size, text COLLATE 'C.utf8'" 2, "index size, uuid" 1, "index size, URL-like text COLLATE 'C'" 0) nomirror scale 0
set y2tics ("1.79" 16, "1.81" 15, "1.97" 14, "1.28" 13, "1.00" 12, "1.41" 11, "1.30" 10, "1.07" 9, "0.92" 8, "2.10" 7, "0.80" 6, "0.96" 5, "1.02" 4, "1.02" 3, "1.02" 2, "0.86" 1, "0.92" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.0587302 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0349206 font ",8"
$D0 << EOD
1.7911 16 1 1.7911 15.664 16.336 1.4575 2.0638
1.8098 15 1 1.8098 14.664 15.336 1.7583 2.0009
1.9702 14 1 1.9702 13.664 14.336 1.7762 2.2689
1.2824 13 1 1.2824 12.664 13.336 1.2109 1.5399
1.0006 12 1 1.0006 11.664 12.336 0.8701 1.092
1.4068 11 1 1.4068 10.664 11.336 1.1894 1.7579
1.302 10 1 1.302 9.664 10.336 1.2596 1.5081
1.0745 9 1 1.0745 8.664 9.336 0.8306 1.1003
0.9181 8 0.9181 1 7.664 8.336 0.8992 1.0647
2.0978 7 1 2.0978 6.664 7.336 1.897 2.0978
0.7955 6 0.7955 1 5.664 6.336 0.7886 0.8374
0.9563 5 0.9563 1 4.664 5.336 0.8953 1.1675
1.0235 4 1 1.0235 3.664 4.336 1.0235 1.0235
1.0235 3 1 1.0235 2.664 3.336 1.0235 1.0235
1.0235 2 1 1.0235 1.664 2.336 1.0235 1.0235
0.8582 1 0.8582 1 0.664 1.336 0.8582 0.8582
0.9218 0 0.9218 1 -0.336 0.336 0.9218 0.9218
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
