# mad/: libmad.a, the MAD path: the umad transport, the class-neutral MAD
# engine, the SMP client. Above core/.
noinst_LIBRARIES += libmad.a
libmad_a_SOURCES = mad/transport.h mad/transport.c mad/mad.h mad/mad.c \
	mad/smp.h mad/smp.c

# Unit tests: the engine and its listeners over the fake transport; the
# transport over a fake libibumad.
check_PROGRAMS += tests/unit/check_mad tests/unit/check_listen
tests_unit_check_mad_SOURCES = tests/unit/check_mad.c $(FAKE_TRANSPORT) \
	mad/mad.h mad/mad.c mad/smp.h mad/smp.c
tests_unit_check_mad_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mad_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_mad_bytes
tests_unit_check_mad_bytes_SOURCES = tests/unit/check_mad_bytes.c $(FAKE_TRANSPORT) \
	mad/mad.h mad/mad.c mad/smp.h mad/smp.c
tests_unit_check_mad_bytes_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_mad_bytes_LDADD = libcore.a $(CHECK_LIBS)
tests_unit_check_listen_SOURCES = tests/unit/check_listen.c $(FAKE_TRANSPORT) \
	mad/mad.h mad/mad.c mad/smp.h mad/smp.c
tests_unit_check_listen_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_listen_LDADD = libcore.a $(CHECK_LIBS)
# Issue 24: tests/unit/check_transport: the umad fd path of
# mad/transport.c over a fake libibumad whose fd is a real eventfd.
check_PROGRAMS += tests/unit/check_transport
tests_unit_check_transport_SOURCES = tests/unit/check_transport.c \
	tests/unit/fake_umad.h tests/unit/fake_umad.c \
	mad/transport.h mad/transport.c
tests_unit_check_transport_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_transport_LDADD = libcore.a $(CHECK_LIBS)
