# partitions/: libpartitions.a, partitions.conf (scanner, grammar, merging)
# and the P_Key tables it yields. Pure. Above core/.
noinst_LIBRARIES += libpartitions.a
libpartitions_a_SOURCES = partitions/partitions.h partitions/policy.h \
	partitions/parse.c partitions/policy.c partitions/errors.c \
	partitions/stmt.h partitions/merge.c

# Unit tests (the golden corpus tests/partitions: tests/local.mk)
check_PROGRAMS += tests/unit/check_partitions
tests_unit_check_partitions_SOURCES = tests/unit/check_partitions.c $(TESTFILE)
tests_unit_check_partitions_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_partitions_LDADD = libpartitions.a libcore.a $(CHECK_LIBS)

# issue 27 point 2: the QoS policy file (qos-policy.conf), its grammar and
# resolution; golden corpus tests/qos
libpartitions_a_SOURCES += partitions/qos.h partitions/qos_int.h \
	partitions/qos.c partitions/qos_match.c
check_PROGRAMS += tests/unit/check_qos_policy
tests_unit_check_qos_policy_SOURCES = tests/unit/check_qos_policy.c $(TESTFILE)
tests_unit_check_qos_policy_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_qos_policy_LDADD = libpartitions.a libcore.a $(CHECK_LIBS)
