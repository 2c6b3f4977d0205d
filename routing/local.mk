# routing/: librouting.a, the engines (minhop, updn, ftree) over one kernel,
# the deadlock check, and route selection (repairs, routes kept at a
# takeover, the update the sweep calls). Pure: a model in, tables out.
# Above core/.
noinst_LIBRARIES += librouting.a
librouting_a_SOURCES = routing/routing.h routing/routing.c routing/minhop.c \
	routing/ftree.h routing/ftree.c routing/ftree_rank.c routing/updn.c \
	routing/cdg.h routing/cdg.c \
	routing/kernel.h routing/kernel.c
librouting_a_SOURCES += routing/repair.h routing/repair.c \
	routing/repair_priv.h routing/repair_updn.c routing/repair_cycle.c \
	routing/repair_local.c
# issue 31 point 5: a takeover keeps the routes in place that deliver,
# changing only the entries a credit loop forces (routing/acyclic)
librouting_a_SOURCES += routing/acyclic.h routing/acyclic.c
# issue 26 point 1: route selection is routing's (routing/update: routes
# kept at a takeover (routing/keep), rebalance, repairs), unit-tested
librouting_a_SOURCES += routing/keep.h routing/keep.c \
	routing/update.h routing/update.c

# Unit tests, on the test fabrics of tests/unit/testfab.c
check_PROGRAMS += tests/unit/check_minhop tests/unit/check_updn \
	tests/unit/check_cdg tests/unit/check_ftree
check_PROGRAMS += tests/unit/check_keep
tests_unit_check_keep_SOURCES = tests/unit/check_keep.c $(TESTFAB)
tests_unit_check_keep_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_keep_LDADD = librouting.a libcore.a $(CHECK_LIBS)
tests_unit_check_updn_SOURCES = tests/unit/check_updn.c $(TESTFAB)
tests_unit_check_updn_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_updn_LDADD = librouting.a libcore.a $(CHECK_LIBS)
tests_unit_check_cdg_SOURCES = tests/unit/check_cdg.c $(TESTFAB)
tests_unit_check_cdg_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_cdg_LDADD = librouting.a libcore.a $(CHECK_LIBS)
tests_unit_check_ftree_SOURCES = tests/unit/check_ftree.c $(TESTFAB)
tests_unit_check_ftree_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_ftree_LDADD = librouting.a libcore.a $(CHECK_LIBS)
tests_unit_check_minhop_SOURCES = tests/unit/check_minhop.c $(TESTFAB)
tests_unit_check_minhop_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_minhop_LDADD = librouting.a libcore.a $(CHECK_LIBS)

# Forwarding tables of every engine, pinned byte for byte: lftdigest
# recomputes the digests of tests/unit/lftdigest.golden (see its header).
check_PROGRAMS += tests/unit/lftdigest tests/unit/check_kernel
tests_unit_lftdigest_SOURCES = tests/unit/lftdigest.c $(TESTFAB)
tests_unit_lftdigest_LDADD = librouting.a libcore.a
tests_unit_check_kernel_SOURCES = tests/unit/check_kernel.c $(TESTFAB)
tests_unit_check_kernel_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_kernel_LDADD = librouting.a libcore.a $(CHECK_LIBS)
EXTRA_DIST += tests/unit/lftdigest.golden

# Repairing the tables in use after losses (issue 13 point 4)
check_PROGRAMS += tests/unit/check_repair
tests_unit_check_repair_SOURCES = tests/unit/check_repair.c $(TESTFAB)
tests_unit_check_repair_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_repair_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_acyclic
tests_unit_check_acyclic_SOURCES = tests/unit/check_acyclic.c $(TESTFAB)
tests_unit_check_acyclic_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_acyclic_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_update
tests_unit_check_update_SOURCES = tests/unit/check_update.c $(TESTFAB)
tests_unit_check_update_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_update_LDADD = librouting.a libcore.a $(CHECK_LIBS)

# issue 27 points 5-7: the VL hooks of the engine interface, the per-VL
# deadlock check, the VL-layered engine dfsssp and its repair
librouting_a_SOURCES += routing/dfsssp.h routing/dfsssp.c \
	routing/repair_layers.c
check_PROGRAMS += tests/unit/check_dfsssp
tests_unit_check_dfsssp_SOURCES = tests/unit/check_dfsssp.c $(TESTFAB)
tests_unit_check_dfsssp_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_dfsssp_LDADD = librouting.a libcore.a $(CHECK_LIBS)
