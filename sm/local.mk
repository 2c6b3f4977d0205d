# sm/: libsm.a and ibsmd, the daemon: discovery, LIDs, the sweep and its
# plan, programming, the SM state machine, multicast and virtualization on
# the wire, the control socket and its views. Above every other floor.
noinst_LIBRARIES += libsm.a
libsm_a_SOURCES = sm/lid.h sm/lid.c \
	sm/discover.h sm/discover.c \
	sm/program.h sm/program.c \
	sm/sweep.h sm/sweep_priv.h sm/sweep.c sm/sweep_light.c \
	sm/sweep_vports.c sm/sweep_status.c sm/vlids.h sm/vlids.c \
	sm/upkeep.h sm/upkeep.c \
	sm/sminfo.h sm/sminfo.c \
	sm/smstate.h sm/smstate.c sm/inherit.h sm/inherit.c \
	sm/json.h sm/json.c sm/show.h sm/show.c sm/show_sa.h sm/show_sa.c \
	sm/stats.h sm/stats.c sm/ctl.h sm/ctl.c
libsm_a_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS)
# The control protocol's command table, shared with ibsmctl.
libsm_a_SOURCES += ctl/commands.h ctl/commands.c
# Multicast (issue 10): trees and MFT programming
libsm_a_SOURCES += sm/mcast.h sm/mcast.c
# Virtualization (issue 12): vports and VF alias GUIDs on the wire
libsm_a_SOURCES += sm/vports.h sm/vports.c
libsm_a_SOURCES += sm/vfguid.h sm/vfguid.c
libsm_a_SOURCES += sm/holddown.h sm/holddown.c
# OpenSM's dump files (dump_files_dir)
libsm_a_SOURCES += sm/dump.h sm/dump.c
# said once per appearance: partition members not in the fabric
libsm_a_SOURCES += sm/notes.h sm/notes.c
# Port tables read from the devices for the SA (core/devtab, sa/vlrec)
libsm_a_SOURCES += sm/devread.h sm/devread.c
# issue 26 point 2 (part): the desired state of a new model (LID requests,
# P_Key tables) is built in sm/plan
libsm_a_SOURCES += sm/plan.h sm/plan.c
# M_Keys on the wire: the key each SMP presents, ports holding other keys
# (issue 29)
libsm_a_SOURCES += sm/mkeys.h sm/mkeys.c

sbin_PROGRAMS = ibsmd
ibsmd_SOURCES = sm/main.c sm/daemon.h sm/daemon.c sm/reload.h sm/reload.c
# libsystemd loaded when systemd listens (NOTIFY_SOCKET), not linked
ibsmd_SOURCES += sm/sdnotify.h sm/sdnotify.c
ibsmd_CFLAGS = $(AM_CFLAGS) $(SYSTEMD_CFLAGS) $(YAML_CFLAGS)
ibsmd_LDADD = libsm.a libsa.a librouting.a libpartitions.a libconfig.a libmad.a \
	libcore.a $(YAML_LIBS)
# libmcast.a after every floor that calls it, before libcore.a (named again).
ibsmd_LDADD += libmcast.a libcore.a

# Unit tests: each links the sm/ files it needs and the floors below.
check_PROGRAMS += tests/unit/check_lid tests/unit/check_json tests/unit/check_show
tests_unit_check_lid_SOURCES = tests/unit/check_lid.c sm/lid.h sm/lid.c
tests_unit_check_lid_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_lid_LDADD = libcore.a $(CHECK_LIBS)
tests_unit_check_json_SOURCES = tests/unit/check_json.c sm/json.h sm/json.c
tests_unit_check_json_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_json_LDADD = libcore.a $(CHECK_LIBS)
tests_unit_check_show_SOURCES = tests/unit/check_show.c $(TESTFAB) \
	sm/show.h sm/show.c sm/show_sa.h sm/show_sa.c sm/stats.h sm/stats.c \
	sm/json.h sm/json.c
tests_unit_check_show_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_show_LDADD = librouting.a libpartitions.a libmcast.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_smstate
tests_unit_check_smstate_SOURCES = tests/unit/check_smstate.c \
	$(FAKE_TRANSPORT) mad/mad.h mad/mad.c mad/smp.h mad/smp.c \
	sm/smstate.h sm/smstate.c sm/sminfo.h sm/sminfo.c
tests_unit_check_smstate_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_smstate_LDADD = libcore.a $(CHECK_LIBS)

# Discovery, programming and the sweep over the fake fabric ($(FAKEFAB))
check_PROGRAMS += tests/unit/check_discover
tests_unit_check_discover_SOURCES = tests/unit/check_discover.c $(FAKEFAB) \
	$(TESTFAB) sm/discover.h sm/discover.c
tests_unit_check_discover_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_discover_LDADD = libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_program
tests_unit_check_program_SOURCES = tests/unit/check_program.c $(FAKEFAB) \
	$(TESTFAB) sm/discover.h sm/discover.c sm/program.h sm/program.c
tests_unit_check_program_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_program_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_sweep
tests_unit_check_sweep_SOURCES = tests/unit/check_sweep.c $(FAKEFAB) \
	$(TESTFAB) sm/sweep.h sm/sweep_priv.h sm/sweep.c sm/sweep_light.c \
	sm/sweep_vports.c sm/sweep_status.c sm/vlids.h sm/vlids.c \
	sm/discover.h sm/discover.c \
	sm/program.h sm/program.c sm/lid.h sm/lid.c sm/sminfo.h sm/sminfo.c \
	sm/smstate.h sm/smstate.c sm/inherit.h sm/inherit.c \
	sm/holddown.h sm/holddown.c
tests_unit_check_sweep_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_sweep_LDADD = librouting.a libpartitions.a libcore.a \
	$(CHECK_LIBS)
tests_unit_check_sweep_SOURCES += sm/vports.h sm/vports.c
tests_unit_check_sweep_SOURCES += sm/notes.h sm/notes.c
tests_unit_check_sweep_SOURCES += sm/plan.h sm/plan.c
tests_unit_check_sweep_SOURCES += sm/mkeys.h sm/mkeys.c
check_PROGRAMS += tests/unit/check_holes
tests_unit_check_holes_SOURCES = tests/unit/check_holes.c $(TESTFAB) \
	$(FAKE_TRANSPORT) sm/discover.h sm/discover.c mad/mad.h mad/mad.c \
	mad/smp.h mad/smp.c
tests_unit_check_holes_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_holes_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_holddown
tests_unit_check_holddown_SOURCES = tests/unit/check_holddown.c $(TESTFAB) \
	sm/holddown.h sm/holddown.c
tests_unit_check_holddown_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_holddown_LDADD = librouting.a libcore.a $(CHECK_LIBS)
# sm/vports.c on the wire: the fake transport, each capable HCA port the
# fixture's vport state machine (tests/fixture/vdev_state.c)
check_PROGRAMS += tests/unit/check_vports
tests_unit_check_vports_SOURCES = tests/unit/check_vports.c \
	$(FAKE_TRANSPORT) $(TESTFAB) mad/mad.h mad/mad.c mad/smp.h mad/smp.c \
	sm/vports.h sm/vports.c tests/fixture/vdev_state.c \
	tests/fixture/vdev_state.h tests/fixture/vdev_layout.c \
	tests/fixture/vdev_layout.h
tests_unit_check_vports_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_vports_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_dump
tests_unit_check_dump_SOURCES = tests/unit/check_dump.c $(TESTFAB) \
	sm/dump.h sm/dump.c
tests_unit_check_dump_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_dump_LDADD = libmcast.a librouting.a libcore.a $(CHECK_LIBS)
# issue 23 point 4: the vport LIDs virtualization off forwards
check_PROGRAMS += tests/unit/check_vlids
tests_unit_check_vlids_SOURCES = tests/unit/check_vlids.c $(TESTFAB) \
	sm/vlids.h sm/vlids.c
tests_unit_check_vlids_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_vlids_LDADD = librouting.a libcore.a $(CHECK_LIBS)
check_PROGRAMS += tests/unit/check_plan
tests_unit_check_plan_SOURCES = tests/unit/check_plan.c $(TESTFAB) \
	sm/plan.h sm/plan.c
tests_unit_check_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_plan_LDADD = libpartitions.a librouting.a libcore.a \
	$(CHECK_LIBS)

# The steps after an up as master (issue 26: multicast and alias GUID
# programming as steps of a table state machine).
check_PROGRAMS += tests/unit/check_upkeep
tests_unit_check_upkeep_SOURCES = tests/unit/check_upkeep.c \
	sm/upkeep.h sm/upkeep.c
tests_unit_check_upkeep_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_upkeep_LDADD = libcore.a $(CHECK_LIBS)
# issue 30: the performance manager (sm/perfmgr reads every port's
# PortCounters as master), ibsmctl errors (sm/show_perf), Prometheus'
# GET /metrics through libmicrohttpd (sm/metrics, metrics_listen)
libsm_a_SOURCES += sm/perfmgr.h sm/perfmgr.c
libsm_a_SOURCES += sm/show_perf.h sm/show_perf.c
libsm_a_SOURCES += sm/metrics.h sm/metrics.c
libsm_a_CFLAGS += $(MHD_CFLAGS)
# libmicrohttpd: its headers only; sm/metrics loads the library (dlopen)
check_PROGRAMS += tests/unit/check_perfmgr
tests_unit_check_perfmgr_SOURCES = tests/unit/check_perfmgr.c \
	$(FAKE_TRANSPORT) $(TESTFAB) mad/mad.h mad/mad.c \
	sm/perfmgr.h sm/perfmgr.c
tests_unit_check_perfmgr_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_perfmgr_LDADD = libcore.a $(CHECK_LIBS)
