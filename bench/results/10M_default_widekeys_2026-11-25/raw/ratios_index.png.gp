set terminal pngcairo size 1049,578 font "sans,9" noenhanced
set output "/work/main/bench/results/runs/2026-11-25T033300Z_5482b04/ratios_index.png"
set label 100 "fpbtree (B) vs btree (A): index workloads\nSCALE=10000000, medians of 3 rounds, 2026-11-25 03:33 UTC, fpbtree 5482b04" at screen 0.5, screen 0.948097 center font ",11"
set key at screen 0.5, screen 0.896194 center top horizontal samplen 2 width 2
set tmargin at screen 0.83391
set bmargin at screen 0.15917
set logscale x 2
set xrange [0.322538:2.13993]
set yrange [-0.6:14.6]
set y2range [-0.6:14.6]
set xtics ("0.33" 0.33, "0.5" 0.5, "0.67" 0.67, "1" 1, "1.5" 1.5, "2" 2) nomirror
set ytics ("pgbench select-only, scale 20, unique indexes, 2 clients" 14, "pgbench TPC-B-like, scale 20, unique indexes, 2 clients" 13, "TPC-B-like 300 s, no VACUUM: growth of the unique aid index" 12, "the same: growth of the abalance index" 11, "the same: TPS, 2 clients" 10, "index nested-loop join, 500000 probes, text COLLATE 'C'" 9, "index nested-loop join, 500000 probes, text COLLATE 'en-x-icu'" 8, "index nested-loop join, 500000 probes, uuid" 7, "index-only count over half of 5000000 text keys" 6, "CREATE INDEX, 5000000 rows, text COLLATE 'C'" 5, "CREATE INDEX, 5000000 rows, text COLLATE 'en-x-icu'" 4, "CREATE INDEX, 5000000 rows, uuid" 3, "index size, text COLLATE 'C'" 2, "index size, text COLLATE 'en-x-icu'" 1, "index size, uuid" 0) nomirror scale 0
set y2tics ("1.01" 14, "0.95" 13, "—" 12, "0.42" 11, "0.95" 10, "1.30" 9, "1.60" 8, "1.19" 7, "1.20" 6, "0.60" 5, "0.65" 4, "0.56" 3, "1.13" 2, "1.13" 1, "0.89" 0) scale 0 font ",8"
set grid xtics lc rgb "#dddddd"
set xlabel "ratio of the medians, log scale: > 1 = B better, < 1 = A better"
set arrow from first 1, graph 0 to first 1, graph 1 nohead lc rgb "#c03030" lw 1.5 dt 2
set style fill solid 0.85 border lc rgb "#404040"
set label 1 "A = PostgreSQL's btree, B = fpbtree." at screen 0.01, screen 0.0640138 font ",8"
set label 2 "Bars start at 1; whiskers: min–max of the per-round ratios. Right: the ratio of the medians." at screen 0.01, screen 0.0380623 font ",8"
$D0 << EOD
1.0107 14 1 1.0107 13.664 14.336 0.9558 1.1061
0.95 13 0.95 1 12.664 13.336 0.9408 1.0034
0.4193 11 0.4193 1 10.664 11.336 0.4193 0.4193
0.949 10 0.949 1 9.664 10.336 0.949 0.949
1.2962 9 1 1.2962 8.664 9.336 1.2513 1.438
1.6016 8 1 1.6016 7.664 8.336 1.5495 1.6461
1.1907 7 1 1.1907 6.664 7.336 1.0658 1.2488
1.1972 6 1 1.1972 5.664 6.336 1.1473 1.3402
0.6037 5 0.6037 1 4.664 5.336 0.6037 0.6822
0.6527 4 0.6527 1 3.664 4.336 0.5327 0.7056
0.5629 3 0.5629 1 2.664 3.336 0.5177 0.6317
1.1309 2 1 1.1309 1.664 2.336 1.1309 1.1309
1.1309 1 1 1.1309 0.664 1.336 1.1309 1.1309
0.885 0 0.885 1 -0.336 0.336 0.885 0.885
EOD
plot $D0 using 3:2:3:4:5:6 with boxxyerror lc rgb "#2f6fad" title "default parallel settings (the headline)", \
     $D0 using 1:2:7:8 with xerrorbars lc rgb "black" pt 7 ps 0.4 notitle
