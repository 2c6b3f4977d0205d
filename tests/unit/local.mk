# tests/unit: the kit the unit suites share. The suites themselves are in
# their floor's local.mk, beside the module each one tests.
#
# Unit tests: one Check suite per module, linking only the floors below the
# module it tests (and, for sm/ modules, only the sm/ files they need).
TESTFAB = tests/unit/testfab.h tests/unit/testfab.c
TESTFILE = tests/unit/testfile.h tests/unit/testfile.c
FAKE_TRANSPORT = tests/unit/fake_transport.h tests/unit/fake_transport.c

# Discovery, programming and the sweep, over the fake transport and a fake
# fabric that answers SMPs from in-memory devices.
FAKEFAB = tests/unit/fakefab.h tests/unit/fakefab.c $(FAKE_TRANSPORT) \
	mad/mad.h mad/mad.c mad/smp.h mad/smp.c
