# partitions/: libpartitions.a, partitions.conf (scanner, grammar, merging)
# and the P_Key tables it yields. Pure. Above core/.
noinst_LIBRARIES += libpartitions.a
libpartitions_a_SOURCES = partitions/partitions.h partitions/policy.h \
	partitions/parse.c partitions/policy.c partitions/errors.c \
	partitions/stmt.h partitions/merge.c

# Unit tests (the golden corpus tests/partitions: tests/local.mk)
check_PROGRAMS += tests/unit/check_partitions
tests_unit_check_partitions_SOURCES = tests/unit/check_partitions.c
tests_unit_check_partitions_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_partitions_LDADD = libpartitions.a libcore.a $(CHECK_LIBS)
