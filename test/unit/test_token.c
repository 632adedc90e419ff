/*
 * test_token.c — the launcher's launch tokens (src/launcher/job.c): which
 * texts it reads as a part's launch_token, and how it writes them.
 */
#include <string.h>

#include "job.h"
#include "unit.h"

static void
test_parse(void)
{
	char		out[LX_TOKEN_LEN + 1];
	static const char *bad[] = {"", "0", "3f2a9c1e-0b7d-4c55-9a3e-5f1d2b8c7a6", "3f2a9c1e-0b7d-4c55-9a3e-5f1d2b8c7a6e0",
		"3f2a9c1e-0b7d-4c55-9a3e-5f1d2b8c7a6g", "3f2a9c1e 0b7d 4c55 9a3e 5f1d2b8c7a6e", "../../etc/passwd",
	"3f2a9c1e0b7d4c559a3e5f1d2b8c7a6e.sock"};
	unsigned	i;

	CHECK(lx_token_parse("3f2a9c1e-0b7d-4c55-9a3e-5f1d2b8c7a6e", out)
		  && strcmp(out, "3f2a9c1e0b7d4c559a3e5f1d2b8c7a6e") == 0, "a uuid as PostgreSQL writes it: its 32 digits");
	CHECK(lx_token_parse("3F2A9C1E0B7D4C559A3E5F1D2B8C7A6E", out)
		  && strcmp(out, "3f2a9c1e0b7d4c559a3e5f1d2b8c7a6e") == 0, "32 digits alone, in lower case");
	CHECK(!lx_token_parse(NULL, out) && out[0] == '\0', "no text: no token");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(!lx_token_parse(bad[i], out) && out[0] == '\0', "\"%s\" is no token", bad[i]);
}

int
main(void)
{
	test_parse();
	return unit_done("test_token");
}
