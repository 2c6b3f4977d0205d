# contrib/ and debian/: what ships beside the programs. The quick start,
# the example configuration, the systemd units and their installation; the
# Debian package and the checks of both (tests/pkg).
EXTRA_DIST += contrib/quickstart contrib/demo.sh contrib/gen_fabric.py \
	contrib/ibsmd.conf contrib/ibsmd-instances \
	contrib/systemd/ibsmd@.service contrib/systemd/ibsmd.service

# Installation: the helper ibsmd.service runs, the units, an example
# configuration and the state directory, beside the programs and man pages
# (sm/, ctl/ and man/local.mk). contrib/ keeps the files as a --prefix=/usr install has them; the
# program paths in them are rewritten here, in this one place, for the
# configured prefix. ibsmd itself always reads /etc/ibsmd and keeps state in
# /var/lib/ibsmd (AM_CPPFLAGS), hence README's configure line
# --prefix=/usr --sysconfdir=/etc --localstatedir=/var.
ibsmdconfdir = $(sysconfdir)/ibsmd
ibsmdstatedir = $(localstatedir)/lib/ibsmd
INSTALL_UNIT_FILES = contrib/systemd/ibsmd.service contrib/systemd/ibsmd@.service
edit_paths = sed -e 's|/usr/sbin/ibsmd|$(sbindir)/ibsmd|g' \
	-e 's|/usr/libexec/ibsmd/|$(pkglibexecdir)/|g'

install-exec-local:
	$(MKDIR_P) '$(DESTDIR)$(pkglibexecdir)'
	$(edit_paths) $(srcdir)/contrib/ibsmd-instances > '$(DESTDIR)$(pkglibexecdir)/ibsmd-instances.tmp'
	chmod 755 '$(DESTDIR)$(pkglibexecdir)/ibsmd-instances.tmp'
	mv -f '$(DESTDIR)$(pkglibexecdir)/ibsmd-instances.tmp' '$(DESTDIR)$(pkglibexecdir)/ibsmd-instances'

# An existing ibsmd.conf is the administrator's: never overwritten, and
# removed by make uninstall only while it is still the example.
install-data-local:
if INSTALL_UNITS
	$(MKDIR_P) '$(DESTDIR)$(systemdsystemunitdir)'
	for u in $(INSTALL_UNIT_FILES); do \
		$(edit_paths) $(srcdir)/$$u > '$(DESTDIR)$(systemdsystemunitdir)'/`basename $$u` || exit 1; \
		chmod 644 '$(DESTDIR)$(systemdsystemunitdir)'/`basename $$u`; \
	done
endif
	$(MKDIR_P) '$(DESTDIR)$(ibsmdconfdir)' '$(DESTDIR)$(ibsmdstatedir)'
	if test -e '$(DESTDIR)$(ibsmdconfdir)/ibsmd.conf'; then \
		echo "kept $(DESTDIR)$(ibsmdconfdir)/ibsmd.conf (the example is $(srcdir)/contrib/ibsmd.conf)"; \
	else \
		$(INSTALL_DATA) $(srcdir)/contrib/ibsmd.conf '$(DESTDIR)$(ibsmdconfdir)/ibsmd.conf'; \
	fi

uninstall-local:
	rm -f '$(DESTDIR)$(pkglibexecdir)/ibsmd-instances'
if INSTALL_UNITS
	for u in $(INSTALL_UNIT_FILES); do \
		rm -f '$(DESTDIR)$(systemdsystemunitdir)'/`basename $$u`; \
	done
endif
	if cmp -s $(srcdir)/contrib/ibsmd.conf '$(DESTDIR)$(ibsmdconfdir)/ibsmd.conf'; then \
		rm -f '$(DESTDIR)$(ibsmdconfdir)/ibsmd.conf'; \
	fi
	-rmdir '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(ibsmdconfdir)' \
		'$(DESTDIR)$(ibsmdstatedir)' 2>/dev/null

# The installed tree (make install into a DESTDIR; tests/pkg/install.sh).
SCRIPT_TESTS += tests/pkg/install.sh
# The Debian package (debian/), and its check: dpkg-buildpackage from a copy
# of the tree, then the .deb's contents (.ci/run runs it; so does
# make check-deb).
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format tests/pkg/debian.sh
check-deb:
	TOP_SRCDIR='$(abs_top_srcdir)' $(SHELL) $(srcdir)/tests/pkg/debian.sh
.PHONY: check-deb
