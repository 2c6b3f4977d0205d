# core/: libcore.a, the model and the kit every floor uses (the fabric, the
# forwarding tables, queries, logs, allocation, files, virtualization's
# stores). The floor below all others.
noinst_LIBRARIES += libcore.a
libcore_a_SOURCES = core/log.h core/log.c core/alloc.h core/alloc.c \
	core/guidhash.h core/guidhash.c core/inflight.h core/fabric.h core/fabric.c \
	core/lft.h core/lft.c \
	core/query.h core/query.c
# Virtualization, shared-port model (issue 12): VF alias GUIDs
libcore_a_SOURCES += core/alias.h core/alias.c
# Virtualization, vSwitch model (issue 12): vports
libcore_a_SOURCES += core/vattr.h core/vattr.c core/vport.h core/vport.c
# Logs that say what changed (issue 13 point 7, rest)
libcore_a_SOURCES += core/file.h core/file.c
# free lists for per-MAD requests (issue 14, CPU per SMP)
libcore_a_SOURCES += core/pool.h core/pool.c
libcore_a_SOURCES += core/graft.h core/graft.c
# node names (node_name_map) and OpenSM's dump files (dump_files_dir)
libcore_a_SOURCES += core/nodemap.h core/nodemap.c
# Port tables read from the devices for the SA (SL2VL, VLArb, the P_Keys of
# switch ports ibsmd leaves alone): core/devtab, sm/devread, sa/vlrec
libcore_a_SOURCES += core/devtab.h core/devtab.c
# M_Keys: per-port derivation, keys shown masked (issue 29)
libcore_a_SOURCES += core/mkey.h core/mkey.c

# Unit tests
check_PROGRAMS += tests/unit/check_query
tests_unit_check_query_SOURCES = tests/unit/check_query.c
tests_unit_check_query_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_query_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_alias
tests_unit_check_alias_SOURCES = tests/unit/check_alias.c
tests_unit_check_alias_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_alias_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_vattr tests/unit/check_vport
tests_unit_check_vattr_SOURCES = tests/unit/check_vattr.c
tests_unit_check_vattr_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_vattr_LDADD = libcore.a $(CHECK_LIBS)
tests_unit_check_vport_SOURCES = tests/unit/check_vport.c $(TESTFAB)
tests_unit_check_vport_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_vport_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_log
tests_unit_check_log_SOURCES = tests/unit/check_log.c
tests_unit_check_log_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_log_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_graft
tests_unit_check_graft_SOURCES = tests/unit/check_graft.c $(TESTFAB)
tests_unit_check_graft_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_graft_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_pool
tests_unit_check_pool_SOURCES = tests/unit/check_pool.c
tests_unit_check_pool_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pool_LDADD = libcore.a $(CHECK_LIBS)
# issue 30: port counters kept as cumulative totals (pure)
libcore_a_SOURCES += core/pcounter.h core/pcounter.c
check_PROGRAMS += tests/unit/check_pcounter
tests_unit_check_pcounter_SOURCES = tests/unit/check_pcounter.c
tests_unit_check_pcounter_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_pcounter_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_mkey
tests_unit_check_mkey_SOURCES = tests/unit/check_mkey.c
tests_unit_check_mkey_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mkey_LDADD = libcore.a $(CHECK_LIBS)

# Issue 27 (QoS): the tables each port is to hold with OpenSM's qos options
libcore_a_SOURCES += core/qos.h core/qos.c
check_PROGRAMS += tests/unit/check_qos_tables
tests_unit_check_qos_tables_SOURCES = tests/unit/check_qos_tables.c $(TESTFAB)
tests_unit_check_qos_tables_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_qos_tables_LDADD = librouting.a libcore.a $(CHECK_LIBS)
