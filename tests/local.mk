# tests/: the tests that are no one floor's: the layering and tree checks,
# the default routing on every fabric, the fuzzers, and the data they and
# the unit suites share (tests/fabrics, the golden corpora).
SCRIPT_TESTS += tests/layers.sh tests/fuzz/run.sh tests/fuzz/run_mad.sh \
	tests/fuzz/run_config.sh
# Hardening (issue 13, points 6 and 8)
SCRIPT_TESTS += tests/routing_default.sh
# configure quiet about the object directory core/ (issue 25 point 9)
SCRIPT_TESTS += tests/configure_quiet.sh
SCRIPT_TESTS += tests/man_pages.sh
SCRIPT_TESTS += tests/gitignore.sh

# The test fabrics (ibsim .net files), for the sim tests and routing_default.
EXTRA_DIST += tests/fabrics/dual.net tests/fabrics/ft2_16.net tests/fabrics/ft2_8.net \
	tests/fabrics/ft3_8.net tests/fabrics/ring6.net \
	tests/fabrics/ft3_8_degraded.net
EXTRA_DIST += tests/fabrics/slowlink.net
EXTRA_DIST += tests/fabrics/slowlink_ft2.net

# The golden corpora (configuration, partitions, fuzz seeds) are whole
# directories of data that no build step writes into.
dist-hook:
	for d in tests/config tests/partitions tests/qos tests/fuzz; do \
		mkdir -p $(distdir)/$$d && cp -pR $(srcdir)/$$d/. $(distdir)/$$d/; \
	done
# issue 30: the exposition-format checker refuses what it must
SCRIPT_TESTS += tests/promcheck.sh
# issue 27 point 6: dfsssp through the chain on tori, dragonflies, random
SCRIPT_TESTS += tests/routing_vl.sh
