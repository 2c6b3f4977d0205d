# man/: the manual pages, installed and distributed as they are
# (tests/man_pages.sh checks that they render cleanly).
dist_man_MANS = man/ibsmd.8 man/ibsmctl.8 man/ibsmd.conf.5 man/partitions.conf.5
# issue 27 point 2
dist_man_MANS += man/qos-policy.conf.5
