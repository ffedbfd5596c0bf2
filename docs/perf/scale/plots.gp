# gnuplot script written by bench/model.py sweep; run: cd /work/main/docs/perf/scale && gnuplot plots.gp
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 900,560 } else { set terminal png size 900,560 }
set logscale xy
set key outside right
set grid
set xlabel 'nodes'
set ylabel 'predicted latency (us)'
set xtics (2,8,16,64,256,1024,4096)
set output 'ib-edr_barrier_ppn1.png'
set title 'barrier, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_barrier_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_barrier_ppn64.png'
set title 'barrier, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_barrier_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-8_ppn1.png'
set title 'allreduce-8, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-8_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-8_ppn64.png'
set title 'allreduce-8, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-8_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-64K_ppn1.png'
set title 'allreduce-64K, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-64K_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-64K_ppn64.png'
set title 'allreduce-64K, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-64K_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-1M_ppn1.png'
set title 'allreduce-1M, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-1M_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_allreduce-1M_ppn64.png'
set title 'allreduce-1M, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_allreduce-1M_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-8_ppn1.png'
set title 'bcast-8, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-8_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-8_ppn64.png'
set title 'bcast-8, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-8_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-64K_ppn1.png'
set title 'bcast-64K, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-64K_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-64K_ppn64.png'
set title 'bcast-64K, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-64K_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-1M_ppn1.png'
set title 'bcast-1M, 1 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-1M_ppn1.dat' using 1:i with linespoints title columnheader(i)
set output 'ib-edr_bcast-1M_ppn64.png'
set title 'bcast-1M, 64 rank(s) per node, LogGP ib-edr'
plot for [i=2:*] 'ib-edr_bcast-1M_ppn64.dat' using 1:i with linespoints title columnheader(i)
set output 'shape.png'
unset logscale y
set yrange [0:1.6]
set ylabel 'best n-way coll/rdma / coll/tuned'
set title 'n-way / tuned, 1 rank per node; points: the papers (against their MPI)'
set label 'End: barrier 0.42 at 64' at 64,0.42 point pt 7 offset 1,0
set label 'End: allreduce 0.54 at 48' at 48,0.54 point pt 5 offset 1,0
set label 'Gupta: barrier 0.70 at 16' at 16,0.70 point pt 9 offset 1,0
plot for [i=2:*] 'shape.dat' using 1:i with linespoints title columnheader(i)
