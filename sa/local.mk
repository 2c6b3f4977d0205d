# sa/: libsa.a, Subnet Administration (sa/sa.h): one module per record,
# answering from the view sm/ hands over. Above mad/, partitions/, mcast/
# and core/.
noinst_LIBRARIES += libsa.a
libsa_a_SOURCES = sa/sa.h sa/attr.h sa/scope.h sa/scope.c
libsa_a_SOURCES += sa/sa.c sa/out.c sa/attrs.c sa/classport.c \
	sa/records.h sa/records.c
# SA event forwarding and services (sa/service, sa/inform): their unit
# suites drive the handlers directly, with sa/sa.c's accessors stubbed.
libsa_a_SOURCES += sa/service.h sa/service.c sa/inform.h sa/inform.c
# Multicast in the SA (issue 10): MCMemberRecord, groups from partitions.conf
libsa_a_SOURCES += sa/mcrules.h sa/mcrules.c sa/mcpolicy.h sa/mcpolicy.c \
	sa/mcmember.h sa/mcmember.c
# SA: PathRecord and MultiPathRecord (sa/path.c), their codec (sa/pathrec.c)
libsa_a_SOURCES += sa/pathrec.h sa/pathrec.c sa/path.h sa/path.c
# Virtualization (issue 12): GUIDInfoRecord, VF alias GUIDs
libsa_a_SOURCES += sa/guidinfo.h sa/guidinfo.c
# SL2VLTableRecord, VLArbitrationTableRecord (core/devtab)
libsa_a_SOURCES += sa/vlrec.c

# Unit tests
check_PROGRAMS += tests/unit/check_scope
tests_unit_check_scope_SOURCES = tests/unit/check_scope.c $(TESTFAB)
tests_unit_check_scope_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_scope_LDADD = libsa.a libmcast.a libpartitions.a librouting.a libcore.a $(CHECK_LIBS)
SA_STUB = tests/unit/sa_stub.h tests/unit/sa_stub.c sa/out.c
check_PROGRAMS += tests/unit/check_service tests/unit/check_inform
tests_unit_check_service_SOURCES = tests/unit/check_service.c $(TESTFAB) \
	$(SA_STUB) sa/service.c sa/scope.c
tests_unit_check_service_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_service_LDADD = libpartitions.a librouting.a libcore.a \
	$(CHECK_LIBS)
tests_unit_check_inform_SOURCES = tests/unit/check_inform.c $(TESTFAB) \
	$(SA_STUB) $(FAKE_TRANSPORT) mad/mad.h mad/mad.c sa/inform.c sa/scope.c
tests_unit_check_inform_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_inform_LDADD = libpartitions.a librouting.a libcore.a \
	$(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_sa_out
tests_unit_check_sa_out_SOURCES = tests/unit/check_sa_out.c sa/out.c
tests_unit_check_sa_out_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_sa_out_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_mcmember
tests_unit_check_mcmember_SOURCES = tests/unit/check_mcmember.c \
	sa/mcrules.c sa/mcpolicy.c sa/out.c sa/scope.c
tests_unit_check_mcmember_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mcmember_LDADD = libpartitions.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_path
tests_unit_check_path_SOURCES = tests/unit/check_path.c $(TESTFAB)
tests_unit_check_path_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_path_LDADD = libsa.a libmcast.a libpartitions.a librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_path_codec
tests_unit_check_path_codec_SOURCES = tests/unit/check_path_codec.c
tests_unit_check_path_codec_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_path_codec_LDADD = libsa.a libmcast.a libpartitions.a librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_path_cost
tests_unit_check_path_cost_SOURCES = tests/unit/check_path_cost.c $(TESTFAB)
tests_unit_check_path_cost_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_path_cost_LDADD = libsa.a libmcast.a libpartitions.a librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_sa
tests_unit_check_sa_SOURCES = tests/unit/check_sa.c sa/sa.c sa/out.c \
	sa/records.c sa/classport.c sa/scope.c sa/guidinfo.c sa/vlrec.c $(FAKE_TRANSPORT) $(TESTFAB) \
	mad/mad.h mad/mad.c mad/smp.h mad/smp.c
tests_unit_check_sa_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_sa_LDADD = libpartitions.a librouting.a libcore.a $(CHECK_LIBS)
# MulticastForwardingTableRecord (sa/records.c) reads the trees' tables.
tests_unit_check_sa_LDADD += libmcast.a libcore.a
check_PROGRAMS += tests/unit/check_sa_mcmember
tests_unit_check_sa_mcmember_SOURCES = tests/unit/check_sa_mcmember.c $(TESTFAB)
tests_unit_check_sa_mcmember_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_sa_mcmember_LDADD = libsa.a libmcast.a libpartitions.a \
	libmad.a librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_guidinfo
tests_unit_check_guidinfo_SOURCES = tests/unit/check_guidinfo.c $(TESTFAB) \
	$(FAKE_TRANSPORT) mad/mad.h mad/mad.c mad/smp.h mad/smp.c
tests_unit_check_guidinfo_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_guidinfo_LDADD = libsa.a libmcast.a libpartitions.a librouting.a libcore.a $(CHECK_LIBS)

# issue 27 points 2 and 3 (SA side): the SL of paths and groups from the
# QoS policy (partitions/qos.h), in one function the SA calls
libsa_a_SOURCES += sa/slsel.h sa/slsel.c
