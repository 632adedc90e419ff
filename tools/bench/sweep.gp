# tools/bench/sweep.gp — solve time p95 against W, one line per (distribution, G).
# gnuplot -e "tsv='build/bench/sweep/sweep.tsv'; out='docs/img/solver-scaling.svg'" tools/bench/sweep.gp
set terminal svg size 900,520 dynamic font "sans,12" background rgb "white"
set output out
set datafile separator "\t"
if (!exists("ttl")) ttl = "mixdnn-bench: one scheduling round"
set title ttl . " — p95 over rounds, CPU time"
set xlabel "waiting jobs W"
set ylabel "solve time p95 [ms]"
set logscale xy
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top left box opaque
set xrange [20:2500]
# the targets of issue #5 (p95 at W=50/G=64, W=200/G=512, W=2000/G=4096)
set yrange [0.01:3000]
set object 1 circle at 50,10 size char 0.6 fc rgb "#000000" fs empty
set object 2 circle at 200,50 size char 0.6 fc rgb "#000000" fs empty
set object 3 circle at 2000,1000 size char 0.6 fc rgb "#000000" fs empty
set label 1 "target G=64" at 55,13 font ",9"
set label 2 "target G=512" at 215,65 font ",9"
set label 3 "target G=4096" at 1000,1400 font ",9"
sel(d, g) = sprintf("< awk -F'\\t' 'NR > 1 && $1 == \"%s\" && $3 == %d' %s | sort -t'\t' -k2,2n", d, g, tsv)
plot \
	sel("philly", 64)   using 2:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "philly, G=64", \
	sel("philly", 512)  using 2:6 with linespoints lw 2 pt 7 lc rgb "#ff7f0e" title "philly, G=512", \
	sel("philly", 4096) using 2:6 with linespoints lw 2 pt 7 lc rgb "#2ca02c" title "philly, G=4096", \
	sel("heavy", 64)    using 2:6 with linespoints lw 2 dt 2 pt 5 lc rgb "#1f77b4" title "heavy, G=64", \
	sel("heavy", 512)   using 2:6 with linespoints lw 2 dt 2 pt 5 lc rgb "#ff7f0e" title "heavy, G=512", \
	sel("heavy", 4096)  using 2:6 with linespoints lw 2 dt 2 pt 5 lc rgb "#2ca02c" title "heavy, G=4096"
