# Multicast (issue 10): groups, MLIDs and trees, a pure floor (mcast/):
# libmcast.a. Above core/.
noinst_LIBRARIES += libmcast.a
libmcast_a_SOURCES = mcast/group.h mcast/group.c
libmcast_a_SOURCES += mcast/tree.h mcast/tree.c

# Unit tests
check_PROGRAMS += tests/unit/check_mcast_group
tests_unit_check_mcast_group_SOURCES = tests/unit/check_mcast_group.c
tests_unit_check_mcast_group_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mcast_group_LDADD = libmcast.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_mcast_tree
tests_unit_check_mcast_tree_SOURCES = tests/unit/check_mcast_tree.c $(TESTFAB)
tests_unit_check_mcast_tree_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mcast_tree_LDADD = libmcast.a librouting.a libcore.a $(CHECK_LIBS)
