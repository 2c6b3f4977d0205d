# ctl/: ibsmctl, the control client, and the one table of control commands
# (ctl/commands.c, built into ibsmctl and into libsm.a). Links no floor.
bin_PROGRAMS = ibsmctl
ibsmctl_SOURCES = ctl/ibsmctl.c ctl/commands.h ctl/commands.c

# Unit tests
check_PROGRAMS += tests/unit/check_commands
tests_unit_check_commands_SOURCES = tests/unit/check_commands.c \
	ctl/commands.h ctl/commands.c
tests_unit_check_commands_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_commands_LDADD = $(CHECK_LIBS)
