# config/: libconfig.a, ibsmd.conf (the schema table, checks, the libyaml
# loader) and OpenSM's options. Above core/.
noinst_LIBRARIES += libconfig.a
libconfig_a_SOURCES = config/config.h config/config.c \
	config/config_int.h config/check.c config/load.c
libconfig_a_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
# Moving from OpenSM (issue 25): OpenSM's options in config/opensm.c (the
# table, the refusals, ibsmd --convert-opensm-conf), unit-tested with the
# file `opensm -c` writes (tests/config/opensm/).
libconfig_a_SOURCES += config/opensm.h config/opensm.c

# Unit tests (the golden corpus tests/config: tests/local.mk)
check_PROGRAMS += tests/unit/check_config
tests_unit_check_config_SOURCES = tests/unit/check_config.c
tests_unit_check_config_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAML_CFLAGS)
tests_unit_check_config_LDADD = libconfig.a libcore.a $(CHECK_LIBS) $(YAML_LIBS)
check_PROGRAMS += tests/unit/check_opensm
tests_unit_check_opensm_SOURCES = tests/unit/check_opensm.c
tests_unit_check_opensm_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(YAML_CFLAGS)
tests_unit_check_opensm_LDADD = libconfig.a libcore.a $(CHECK_LIBS) $(YAML_LIBS)
