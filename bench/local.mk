# bench/: the benchmarks (bench/README.md says how to run and read each),
# distributed, never built by make nor run by make check.
EXTRA_DIST += bench/README.md bench/bringup bench/smlaunch.c bench/smpcount.c \
	bench/umadfloor.c \
	bench/routing bench/routing.c bench/takeover
# bench/routing, a script, sits beside bench/routing.c: without a rule of
# its own, make's built-in one would "build" it from the C file whenever
# that is the newer of the two (make dist, in a build tree).
bench/routing:
	@:
EXTRA_DIST += bench/loss
EXTRA_DIST += bench/sa bench/saload.c
EXTRA_DIST += bench/flaps
EXTRA_DIST += bench/mcast bench/mcload.c
EXTRA_DIST += bench/virt_sim
EXTRA_DIST += bench/umadfix
# issue 26 point 6: bench/README.md says how to run and read each bench;
# the dated results are files of bench/results/ (bench/virt and
# bench/virt.c, which bench/virt sim is run through, were not distributed)
EXTRA_DIST += bench/virt bench/virt.c \
	bench/results/2026-11-22-bringup.md \
	bench/results/2026-11-23-bringup-issue14.md \
	bench/results/2026-11-28-bringup-issue24.md \
	bench/results/2026-11-29-issue26-bringup.md \
	bench/results/2026-11-29-bringup-issue24-cpu.md \
	bench/results/2026-11-22-routing.md \
	bench/results/2026-11-28-routing-issue31.md \
	bench/results/2026-11-23-takeover.md \
	bench/results/2026-11-23-loss.md \
	bench/results/2026-11-28-loss.md \
	bench/results/2026-11-23-flaps.md \
	bench/results/2026-11-24-flaps.md \
	bench/results/2026-11-23-sa.md \
	bench/results/2026-11-23-mcast.md \
	bench/results/2026-11-23-virt.md
# issue 30 point 4: the performance manager's cost, ibsmd vs OpenSM
EXTRA_DIST += bench/perfmgr bench/results/2026-11-29-perfmgr.md
# issue 28: link load with LMC 0/1/2 against OpenSM
EXTRA_DIST += bench/lmc
# issue 27 points 6, 7: dfsssp against OpenSM's dfsssp and lash
EXTRA_DIST += bench/vlroute bench/vlroute.c bench/results/2026-11-29-vlroute.md \
	bench/results/2026-11-29-vlroute-daemon.md
# issue 24 point 4: the floor timed as the SMs are; bench/lmc's results
EXTRA_DIST += bench/results/2026-11-29-bringup-issue24-floor.md \
	bench/results/2026-11-29-bringup-issue24-replay.md \
	bench/results/2026-11-29-bringup-qos.md \
	bench/results/2026-11-29-lmc.md
bench/vlroute:
	@:
