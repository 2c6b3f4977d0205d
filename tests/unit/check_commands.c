/*
 * The control protocol's command table (ctl/commands.h), which ibsmctl
 * and the daemon share: every command has its row, names are unique,
 * argument counts are sane, look-up is exact, and the list of names the
 * daemon answers an unknown command with.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/commands.h"

START_TEST(test_rows)
{
	for (size_t i = 0; i < CTL_NCMDS; i++) {
		const struct ctl_command *c = &ctl_commands[i];

		ck_assert_msg(c->name != NULL && c->args != NULL &&
		    c->request_args != NULL && c->doc != NULL,
		    "command %zu has no row", i);
		ck_assert_msg(c->min >= 0 && c->min <= c->max,
		    "%s: %d to %d arguments", c->name, c->min, c->max);
		/* ibsmctl takes 6 words, the command and 5 arguments */
		ck_assert_int_le(c->max, 5);
		ck_assert_msg((c->args[0] == '\0') == (c->max == 0) &&
		    (c->request_args[0] == '\0') == (c->max == 0),
		    "%s: arguments shown but none taken, or the reverse",
		    c->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(c->name, ctl_commands[j].name);
		ck_assert_ptr_eq(ctl_command_find(c->name), c);
	}
}
END_TEST

START_TEST(test_find)
{
	ck_assert_ptr_eq(ctl_command_find("log-level"),
	    &ctl_commands[CTL_CMD_LOG_LEVEL]);
	ck_assert_ptr_eq(ctl_command_find("sweep"),
	    &ctl_commands[CTL_CMD_SWEEP]);
	ck_assert_int_eq(ctl_commands[CTL_CMD_SWEEP].max, 1);
	ck_assert_ptr_null(ctl_command_find("stat"));
	ck_assert_ptr_null(ctl_command_find("Status"));
	ck_assert_ptr_null(ctl_command_find("status "));
	ck_assert_ptr_null(ctl_command_find(""));
	ck_assert_ptr_null(ctl_command_find("json"));
}
END_TEST

START_TEST(test_names)
{
	static const char want[] = "status, nodes, ports, route, partitions, "
	    "sweep, reload, log-level, reroute, mcast, services, subscriptions, guids, vports, errors";
	char buf[160], small[10];

	ck_assert_int_eq(ctl_command_names(buf, sizeof(buf)),
	    (int)strlen(want));
	ck_assert_str_eq(buf, want);
	/* cut, NUL-terminated, the full length still returned */
	ck_assert_int_eq(ctl_command_names(small, sizeof(small)),
	    (int)strlen(want));
	ck_assert_str_eq(small, "status, n");
	ck_assert_int_eq(ctl_command_names(NULL, 0), (int)strlen(want));
}
END_TEST

static Suite *
commands_suite(void)
{
	Suite *s = suite_create("commands");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(commands_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
