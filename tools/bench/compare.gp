# tools/bench/compare.gp — plan quality of two sweeps (tools/bench/sweep.sh):
# weighted-delay gap to the whole-instance LP bound against W, per G,
# for the philly and the heavy GPU-count mix.
# gnuplot -e "a='results/sweep-head.tsv'; b='results/sweep-proposed.tsv'; la='current'; lb='proposed'; out='x.svg'" compare.gp
set terminal svg size 1100,480 dynamic font "sans,12" background rgb "white"
set output out
set datafile separator "\t"
set multiplot layout 1,2 title "weighted delay above the LP lower bound: sum w (end - now) / LB - 1 (lower is better; the bound itself is loose)"
set logscale x
set xrange [20:2500]
set yrange [0:50]
set xlabel "waiting jobs W"
set ylabel "delay gap [%]"
set grid xtics ytics mxtics lc rgb "#dddddd"
set key top left box opaque font ",10"
sel(f, d, g) = sprintf("< awk -F'\\t' 'NR > 1 && $1 == \"%s\" && $3 == %d' %s | sort -t'\t' -k2,2n", d, g, f)
do for [d in "philly heavy"] {
	set title d . " GPU-count mix"
	plot \
		sel(a, d, 64)   using 2:16 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title la . ", G=64", \
		sel(b, d, 64)   using 2:16 with linespoints lw 2 dt 2 pt 5 lc rgb "#1f77b4" title lb . ", G=64", \
		sel(a, d, 512)  using 2:16 with linespoints lw 2 pt 7 lc rgb "#ff7f0e" title la . ", G=512", \
		sel(b, d, 512)  using 2:16 with linespoints lw 2 dt 2 pt 5 lc rgb "#ff7f0e" title lb . ", G=512", \
		sel(a, d, 4096) using 2:16 with linespoints lw 2 pt 7 lc rgb "#2ca02c" title la . ", G=4096", \
		sel(b, d, 4096) using 2:16 with linespoints lw 2 dt 2 pt 5 lc rgb "#2ca02c" title lb . ", G=4096"
}
unset multiplot
