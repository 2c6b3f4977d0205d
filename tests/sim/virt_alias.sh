#!/bin/bash
# VF alias GUIDs, the part testable without a simulated alias-capable
# device: the SA advertises IsAdditionalGUIDsSupported (ClassPortInfo
# CapabilityMask2 bit 5), as saquery reads it, with virtualization.mode
# enabled and with the default (off) alike: alias GUIDs are served in
# every mode (issue 23 point 2; end to end on simulated adapters in
# virt_alias_modes.sh).
. "$(dirname "$0")/lib.sh"
skip_unless_sim

sq() { diag saquery "$@" 2>&1 | grep -v '^ibwarn'; }
val() { printf '%s\n' "$1" | sed -n "s/^[[:space:]]*$2[.:]*[[:space:]]*//p" | head -1; }

sim_start "$FABRICS/ft2_8.net"
sm_start --virtualization enabled
wait_subnet_up 60
sleep 1
cpi=$(sq -c)
cm2=$(val "$cpi" 'Capability mask 2')
[ -n "$cm2" ] && (( (cm2 & 0x20) != 0 )) ||
	fail "enabled: ClassPortInfo CapabilityMask2 lacks bit 5: $cpi"
log "enabled: CapabilityMask2 $cm2"
sm_stop

sm_start
wait_subnet_up 60
sleep 1
cpi=$(sq -c)
cm2=$(val "$cpi" 'Capability mask 2')
[ -n "$cm2" ] && (( (cm2 & 0x20) != 0 )) ||
	fail "off: ClassPortInfo CapabilityMask2 lacks bit 5: $cpi"
log "off: CapabilityMask2 $cm2"
log "PASS"
