/*
 * test_adopt.c — which keepers the launcher adopts from the sockets in its
 * state directory (src/launcher/proc.c), and which adopted keeper it takes
 * for a launch (lx_find()): one that knows the launch's token before a
 * keeper of an earlier launcher version, which knows none (socket
 * jJOB-aATTEMPT.sock); such a keeper only while no other part knows the
 * token, and never once disowned (docs/launcher.md, "Launch tokens").
 * The keepers are listening sockets of this process. Also which names
 * are no keeper's socket, and the names of the parts' cgroups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proc.h"
#include "unit.h"

#define TA "3f2a9c1e0b7d4c559a3e5f1d2b8c7a6e"
#define TB "0123456789abcdef0123456789abcdef"
#define TC "fedcba9876543210fedcba9876543210"

/* A keeper's socket: a listening one, which lx_adopt() can connect to. */
static void
listen_at(const char *name)
{
	struct sockaddr_un addr;
	int			fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", name);
	if (fd < 0 || bind(fd, (struct sockaddr *) &addr, sizeof(addr)) != 0 || listen(fd, 8) != 0)
	{
		perror(name);
		exit(2);
	}
}

/* The adopted part of this job and attempt with this token ("" for none). */
static lx_child *
adopted(long long job_id, int attempt, const char *token)
{
	for (int i = 0; i < lx_nchildren(); i++)
	{
		lx_child   *c = lx_child_at(i);

		if (c->job_id == job_id && c->attempt == attempt && strcmp(c->token, token) == 0)
			return c;
	}
	return NULL;
}

static void
test_find(void)
{
	lx_child   *one = adopted(1, 1, ""),
			   *two = adopted(2, 1, TA),
			   *three = adopted(3, 1, ""),
			   *three_b = adopted(3, 1, TB);

	CHECK(one && two && three && three_b, "each keeper's socket is adopted, with the token its name gives");
	if (!(one && two && three && three_b))
		return;
	CHECK(lx_find(2, 1, TA) == two && lx_find(2, 1, TB) == NULL, "a keeper that knows its token is that launch only");
	CHECK(lx_find(1, 1, TA) == one && lx_launch_token(one) == NULL,
		  "a keeper of an earlier version is taken for the launch the database lists");
	CHECK(lx_find(3, 1, TB) == three_b && !lx_is_launch(three, TB) && lx_is_launch(three_b, TB),
		  "not if another keeper of its job and attempt knows that launch's token as its own");
	CHECK(lx_find(3, 1, TC) == three, "... and taken for a launch no keeper knows");
	lx_learn_token(one, TA);
	CHECK(lx_find(1, 1, TA) == one && lx_find(1, 1, TB) == NULL && strcmp(lx_launch_token(one), TA) == 0,
		  "bound to a launch, it is that launch only");
	lx_disown(three, "a test");
	CHECK(three->disowned && lx_find(3, 1, TC) == NULL && lx_find(3, 1, TB) == three_b,
		  "disowned, it is taken for no launch");
	lx_learn_token(three, TC);
	CHECK(lx_launch_token(three) == NULL, "... nor bound to one");
	CHECK(lx_find(3, 1, "") != NULL && lx_find(4, 1, "") == NULL,
		  "a launch without a token: any keeper of its job and attempt");
}

/*
 * Names that are no keeper's socket: each a listening socket all the same,
 * which lx_adopt() must leave alone (not adopted, not removed). A name is
 * a keeper's only as socket_name() writes it: sscanf() alone also took a
 * sign, a space, leading zeros and an overflowing number.
 */
static void
test_names(const lx_spawn_ctx *ctx)
{
	static const char *bad[] = {
		"j-5-a1.sock", "j+5-a1.sock", "j 5-a1.sock", "j05-a1.sock", "j5-a01.sock", "j5-a-1.sock",
		"j99999999999999999999-a1.sock", "j5-a99999999999.sock",
		"j5-a1-t3F2A9C1E0B7D4C559A3E5F1D2B8C7A6E.sock", "j5-a1-t3f2a9c1e0b7d4c559a3e5f1d2b8c7a6.sock",
		"j5-a1-t3f2a9c1e0b7d4c559a3e5f1d2b8c7a6e0.sock", "j5-a1-t3f2a9c1e-0b7d-4c55-9a3e-5f1d2b8c7a6e.sock",
		"j5-a1-t.sock", "j5-a1-t" TA "-x.sock", "j5-a1-t" TA ".sockx", "j5-a1.sock.old", "j5-a1.soc",
		"j5.sock", "x5-a1.sock", "j5-a1", ".sock",
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++)
	{
		int			n;

		listen_at(bad[i]);
		n = lx_adopt(ctx);
		CHECK(n == 0 && access(bad[i], F_OK) == 0, "\"%s\" is no keeper's socket: left alone (%d adopted)", bad[i], n);
		unlink(bad[i]);
	}
}

/*
 * The longest database name (63 bytes), each byte percent-encoded, with the
 * installation id, into db (256 bytes, empty); the longest node name into
 * node (64 bytes).
 */
static void
longest_names(char *db, char *node)
{
	for (int i = 0; i < 63; i++)
		strcat(db, "%E2");
	strcat(db, "-6b15d6d6cd2c7f07-4294967295");
	memset(node, 'n', 63);
	node[63] = '\0';
}

/* The name of a part's cgroup, which must be a directory's (NAME_MAX). */
static void
test_part_name(void)
{
	char		name[512],
				other[512],
				db[256] = "",
				node[64];
	const char *ids = "-j9223372036854775807-a2147483647-t" TA;
	lx_spawn_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cgroup_base = "";
	ctx.output_prefix = "test";
	ctx.node = "n1";
	(void) lx_adopt(&ctx);		/* the context that names parts; its keepers are known */
	lx_part_name(name, sizeof(name), 12, 3, TA);
	CHECK(strcmp(name, "mixdnn-test-n1-j12-a3-t" TA) == 0, "database and installation, node, job, attempt, token: %s",
		  name);
	lx_part_name(name, sizeof(name), 12, 3, "");
	CHECK(strcmp(name, "mixdnn-test-n1-j12-a3") == 0, "without the token for a keeper of an earlier version: %s",
		  name);

	longest_names(db, node);
	ctx.output_prefix = db;
	ctx.node = node;
	(void) lx_adopt(&ctx);
	lx_part_name(name, sizeof(name), 9223372036854775807LL, 2147483647, TA);
	CHECK(strlen(name) <= 255 && strncmp(name, "mixdnn-h", 8) == 0 &&
		  strcmp(name + strlen(name) - strlen(ids), ids) == 0,
		  "too long for a directory's name: the prefix is a hash, the ids stay (%zu bytes: %s)", strlen(name), name);
	lx_part_name(other, sizeof(other), 9223372036854775807LL, 2147483647, TB);
	CHECK(strcmp(name, other) != 0 && strncmp(name, other, strlen(name) - 32) == 0, "the same prefix for another launch");
	node[62] = 'm';
	(void) lx_adopt(&ctx);
	lx_part_name(other, sizeof(other), 9223372036854775807LL, 2147483647, TA);
	CHECK(strcmp(name, other) != 0, "another prefix for another node: %s", other);
	ctx.node = "n1";
	(void) lx_adopt(&ctx);
	lx_part_name(name, sizeof(name), 1, 1, "");
	snprintf(other, sizeof(other), "mixdnn-%s-n1-j1-a1", db);
	CHECK(strcmp(name, other) == 0, "a name that fits is as it was (%zu bytes)", strlen(name));
	lx_part_name(name, sizeof(name), 1, 1, TA);
	CHECK(strlen(name) <= 255 && strncmp(name, "mixdnn-h", 8) == 0, "... and with the token it no longer fits: %s", name);
}

/* The name of a part's output file in --output-dir: one per launch, a directory entry's. */
static void
test_output_name(void)
{
	char		name[512],
				other[512],
				db[256] = "",
				node[64];
	lx_spawn_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.output_prefix = "mixdnn-6b15d6d6cd2c7f07-16384";
	ctx.node = "n1";
	lx_output_name(name, sizeof(name), &ctx, 12, 3, 1, TA);
	CHECK(strcmp(name, "mixdnn-6b15d6d6cd2c7f07-16384-j12-a3-n1-r1-t" TA ".log") == 0,
		  "database and installation, job, attempt, node, rank, token: %s", name);
	lx_output_name(other, sizeof(other), &ctx, 12, 3, 1, TB);
	CHECK(strcmp(name, other) != 0, "another launch of the same ids (a restored copy's) writes another file: %s", other);

	longest_names(db, node);
	ctx.output_prefix = db;
	ctx.node = node;
	lx_output_name(name, sizeof(name), &ctx, 9223372036854775807LL, 2147483647, 2147483647, TA);
	snprintf(other, sizeof(other), "-j9223372036854775807-a2147483647-%s-r2147483647-t" TA ".log", node);
	CHECK(strlen(name) <= 255 && name[0] == 'h' && strcmp(name + strlen(name) - strlen(other), other) == 0,
		  "too long for a file name: database and installation are a hash, the rest stays (%zu bytes: %s)",
		  strlen(name), name);
	db[1] = 'F';
	lx_output_name(other, sizeof(other), &ctx, 9223372036854775807LL, 2147483647, 2147483647, TA);
	CHECK(strcmp(name, other) != 0, "another database, another hash: %s", other);
	/* 205 bytes of prefix and 50 of the rest: 255 */
	ctx.node = "n1";
	memset(db, 'd', 205);
	db[205] = '\0';
	lx_output_name(name, sizeof(name), &ctx, 1, 1, 0, TA);
	CHECK(strlen(name) == 255 && strncmp(name, db, 205) == 0, "a name that fits keeps the database (%zu bytes)",
		  strlen(name));
	strcat(db, "d");
	lx_output_name(name, sizeof(name), &ctx, 1, 1, 0, TA);
	CHECK(name[0] == 'h' && strlen(name) < 255, "one byte more, and it is hashed (%zu bytes)", strlen(name));
}

int
main(void)
{
	static const char *names[] = {"j1-a1.sock", "j2-a1-t" TA ".sock", "j3-a1.sock", "j3-a1-t" TB ".sock"};
	char		dir[] = "/tmp/mixdnn-test-adopt.XXXXXX";
	lx_spawn_ctx ctx;
	int			n;

	if (mkdtemp(dir) == NULL || chdir(dir) != 0)
	{
		perror(dir);
		return 2;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cgroup_base = "";
	ctx.output_prefix = "test";
	ctx.node = "n1";
	test_names(&ctx);
	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		listen_at(names[i]);
	n = lx_adopt(&ctx);
	CHECK(n == 4, "4 keepers adopted (%d)", n);
	test_find();
	test_part_name();
	test_output_name();
	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		unlink(names[i]);
	if (chdir("/") != 0 || rmdir(dir) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return unit_done("test_adopt");
}
