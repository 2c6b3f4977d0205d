# tests/sim: tests on simulated fabrics (ibsim, the tests/fixture device),
# read back with infiniband-diags; the tools they run; their data. Skipped
# under --disable-sim-tests.

# The kit every sim test sources, and its data.
EXTRA_DIST += tests/sim/lib.sh tests/sim/fabcheck.py tests/sim/pkeytables.py \
	tests/sim/ha_lib.sh tests/sim/vdev_lib.sh tests/sim/mcastcheck.py \
	tests/sim/sacompare.py
EXTRA_DIST += tests/sim/data/partitions_disjoint.conf \
	tests/sim/data/partitions_members.conf \
	tests/sim/data/partitions_both.conf \
	tests/sim/data/partitions_default_some.conf \
	tests/sim/data/partitions_badguid.conf \
	tests/sim/data/partitions_broken.conf
EXTRA_DIST += tests/sim/data/partitions_rhel.conf
EXTRA_DIST += tests/sim/data/partitions_limited.conf

# The clients the tests run on simulated hosts (built by make check; the
# tests find them in the environment: MCJOIN, SARAW in Makefile.am).
# tests/sim/sa_inform.sh: services, subscriptions, Reports of traps 64/65
# (to a small subscriber client, tests/sim/sasub) and ClientReregister.
noinst_PROGRAMS += tests/sim/sasub
tests_sim_sasub_SOURCES = tests/sim/sasub.c
# The test client of tests/sim/mcast_*.sh: MCMemberRecord Set/Delete from
# a simulated host. Built by make check, not run as a test itself.
EXTRA_PROGRAMS += tests/sim/mcjoin
check_DATA += tests/sim/mcjoin$(EXEEXT)
CLEANFILES += tests/sim/mcjoin$(EXEEXT)
tests_sim_mcjoin_SOURCES = tests/sim/mcjoin.c
# saraw: one raw SA request (any method, attribute, mask, data), for the
# cases no standard client sends. Built by make check.
EXTRA_PROGRAMS += tests/sim/saraw
check_DATA += tests/sim/saraw$(EXEEXT)
CLEANFILES += tests/sim/saraw$(EXEEXT)
tests_sim_saraw_SOURCES = tests/sim/saraw.c
tests_sim_saraw_LDADD = -libumad

# Tests that need no simulator.
SCRIPT_TESTS += tests/sim/systemd_verify.sh tests/sim/ibsmd_instances.sh \
	tests/sim/check_mode.sh
SCRIPT_TESTS += tests/sim/file_safety.sh
SCRIPT_TESTS += tests/sim/convert_opensm.sh

# Bring-up, restarts, the daemon's files, logs and exits.
# The longest first (2 to 3.5 minutes in make check): make check runs
# four at a time, and one of these started last would run on alone at the
# end.
SIM_TESTS += tests/sim/loss_flap.sh tests/sim/loss.sh
SIM_TESTS += tests/sim/bringup_ft2.sh tests/sim/bringup_ring.sh \
	tests/sim/bringup_2sw2path.sh tests/sim/bringup_dual.sh \
	tests/sim/restart.sh tests/sim/once_fail.sh \
	tests/sim/instances.sh tests/sim/sm_on_switch.sh \
	tests/sim/port_by_guid.sh
SIM_TESTS += tests/sim/default_routing.sh
SIM_TESTS += tests/sim/reload_fifo.sh
SIM_TESTS += tests/sim/restart_ft3.sh
SIM_TESTS += tests/sim/log_changes.sh
SIM_TESTS += tests/sim/log_persist.sh
SIM_TESTS += tests/sim/state_files.sh
SIM_TESTS += tests/sim/exit_codes.sh
SIM_TESTS += tests/sim/dump_files.sh
SIM_TESTS += tests/sim/once_dumps.sh
SIM_TESTS += tests/sim/log_once.sh
# Issue 24: the production path is the tested path. tests/sim/
# transport_path.sh: ibsmd under the umadfix device runs one thread and
# reads the umad fd from its loop; tests/sim/umad_device.sh: the device's
# umad semantics seen by a client (tests/fixture/umadcheck).
SIM_TESTS += tests/sim/transport_path.sh tests/sim/umad_device.sh
SIM_TESTS += tests/sim/fixture_opensm.sh

# The control socket (ibsmctl).
SIM_TESTS += tests/sim/ctl.sh tests/sim/ctl_reload.sh
SIM_TESTS += tests/sim/ctl_idle.sh
SIM_TESTS += tests/sim/ctl_pkeys.sh
SIM_TESTS += tests/sim/ctl_ops.sh
SIM_TESTS += tests/sim/standby_status.sh

# Routing, losses and their repair.
SIM_TESTS += tests/sim/routing_engines.sh tests/sim/routing_chain.sh \
	tests/sim/routing_incremental.sh tests/sim/linkdown.sh
# Gentle on a running fabric (issue 13 point 4)
SIM_TESTS += tests/sim/flap_heal.sh
# Repairing the tables in use after losses (issue 13 point 4)
SIM_TESTS += tests/sim/flap_repair.sh
# a failure under minhop changes exactly the entries it forces (fabcheck --minimal)
SIM_TESTS += tests/sim/flap_minimal.sh
SIM_TESTS += tests/sim/flap_vs_opensm.sh

# Partitions.
SIM_TESTS += tests/sim/partitions.sh tests/sim/partitions_opensm.sh \
	tests/sim/partitions_reload.sh
SIM_TESTS += tests/sim/partitions_empty.sh
# a LID-0 port's P_Key table is read, not assumed (issue 14)
SIM_TESTS += tests/sim/partitions_reset.sh
SIM_TESTS += tests/sim/pkey_indices.sh

# The SM election, standby, handover and takeover.
SIM_TESTS += tests/sim/ha_election.sh tests/sim/ha_takeover.sh \
	tests/sim/ha_opensm.sh tests/sim/ha_handover.sh
SIM_TESTS += tests/sim/ha_opensm_keep.sh
SIM_TESTS += tests/sim/ha_opensm_defaults.sh

# Issue 31: safety under faults (lost Sets, a bouncing master, loss and
# takeovers, balance after a heal, silent nodes, planned stops, flapping,
# multicast of removed partitions)
SIM_TESTS += tests/sim/ha_bounce.sh tests/sim/ha_loss.sh tests/sim/ha_stop.sh \
	tests/sim/flap_balance.sh tests/sim/flap_storm.sh \
	tests/sim/silent_switch.sh

# Subnet Administration.
SIM_TESTS += tests/sim/sa_inform.sh
SIM_TESTS += tests/sim/sa_records.sh
SIM_TESTS += tests/sim/sa_path.sh
SIM_TESTS += tests/sim/sa_records_slow.sh
SIM_TESTS += tests/sim/sa_standby.sh
# SA answers what OpenSM answers; virtualization right for real adapters
# (issues 22 and 23)
SIM_TESTS += tests/sim/sa_scope.sh
SIM_TESTS += tests/sim/sa_answers.sh
# SwitchInfoRecord against the switches after bring-up (issue 22 point 5:
# sm/program.c keeps the SwitchInfo the switches took in the model)
SIM_TESTS += tests/sim/sa_switchinfo.sh
# the same SA queries to OpenSM and ibsmd, same fabric and LIDs (issue 22)
SIM_TESTS += tests/sim/sa_vs_opensm.sh

# Multicast (issue 10).
SIM_TESTS += tests/sim/mcast_sa.sh
SIM_TESTS += tests/sim/mcast_mft.sh
# mc2: traps 66/67 of multicast groups reported to subscribers (sasub).
SIM_TESTS += tests/sim/mcast_traps.sh
SIM_TESTS += tests/sim/mcast_snm.sh

# Virtualization (issue 12, 23): VF alias GUIDs, vports, the simulated HCAs.
SIM_TESTS += tests/sim/virt_alias.sh
SIM_TESTS += tests/sim/vdev.sh tests/sim/virt_alias_dev.sh
SIM_TESTS += tests/sim/virt_alias_ha.sh
SIM_TESTS += tests/sim/virt_vport.sh
SIM_TESTS += tests/sim/virt_sa.sh
# virt4: trap 1144, VPortGUIDInfo, VClientReregister (issue 12)
SIM_TESTS += tests/sim/virt_trap.sh
# bulk mode of the simulated HCAs (UMADFIX_VBULK, vintercept.c; bench/virt sim)
SIM_TESTS += tests/sim/virt_bulk.sh
SIM_TESTS += tests/sim/virt_alias_modes.sh
SIM_TESTS += tests/sim/virt_dup_guids.sh
SIM_TESTS += tests/sim/virt_alias_forget.sh
SIM_TESTS += tests/sim/virt_guard.sh
SIM_TESTS += tests/sim/virt_pf.sh
SIM_TESTS += tests/sim/virt_grh.sh
SIM_TESTS += tests/sim/virt_modes_running.sh
SIM_TESTS += tests/sim/virt_tenants.sh
SIM_TESTS += tests/sim/vport_pkey_indices.sh
# issue 30: the performance manager and /metrics (promcheck: a strict
# check of Prometheus' text exposition format)
SIM_TESTS += tests/sim/perfmgr.sh
EXTRA_DIST += tests/sim/promcheck.py
# issue 29: the simulated devices enforce M_Key, proven against OpenSM
SIM_TESTS += tests/sim/mkey_fixture.sh
# Issue 29: M_Keys on the wire, per-port keys, rogue hosts, recovery,
# interop with OpenSM (the fixture enforcing M_Key)
SIM_TESTS += tests/sim/mkey_keys.sh tests/sim/mkey_rogue.sh
SIM_TESTS += tests/sim/mkey_recover.sh tests/sim/mkey_opensm.sh
# issue 28: LMC: the LIDs read back; PathRecord and MultiPathRecord with
# LMC 1 and 2 against OpenSM; a port's LIDs through different uplinks
# (fabcheck --lmc-spread) compared with OpenSM on the same fabric
SIM_TESTS += tests/sim/lmc_lids.sh tests/sim/lmc_sa.sh tests/sim/lmc_routing.sh
# issue 27 point 6: dfsssp through the daemon
SIM_TESTS += tests/sim/routing_dfsssp.sh
# issue 27 point 2: the QoS policy file, PathRecord SLs against OpenSM's,
# the IPoIB broadcast group's SL, reload all-or-nothing
SIM_TESTS += tests/sim/qos_policy.sh
# issue 27: QoS tables (SL2VL, VLArb, OperVLs) against OpenSM's with the
# same qos options; SLs map along a path; the SA's records; 0 blocks on a
# restart, only the changed ones on a reload
SIM_TESTS += tests/sim/qos_tables.sh
