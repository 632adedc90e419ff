/*
 * test_gpulist.c — the launcher's GPU index lists (src/launcher/gpulist.c):
 * which lists it reads, and which two lists share a GPU.
 */
#include "gpulist.h"
#include "unit.h"

static void
test_valid(void)
{
	static const char *good[] = {"", "0", "7", "0,1", "0,3,12", "00", "12345"};
	static const char *bad[] = {",", ",,", "0,", ",0", "0,,1", "0-3", "-", "-1", "+1", " 0", "0 ",
	"0;1", "1a", "123456", "0,123456", "0x1"};
	unsigned	i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++)
		CHECK(lx_gpu_list_valid(good[i]), "\"%s\" is a GPU list", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(!lx_gpu_list_valid(bad[i]), "\"%s\" is not a GPU list", bad[i]);
}

static void
test_overlap(void)
{
	CHECK(!lx_gpus_overlap("", ""), "no GPUs share none");
	CHECK(!lx_gpus_overlap("0", ""), "GPUs and none share none");
	CHECK(!lx_gpus_overlap("", "0"), "none and GPUs share none");
	CHECK(lx_gpus_overlap("0", "0"), "the same GPU");
	CHECK(!lx_gpus_overlap("0,1", "2,3"), "disjoint lists");
	CHECK(lx_gpus_overlap("0,1,2", "5,2"), "one shared index, anywhere in either list");
	CHECK(!lx_gpus_overlap("1", "10"), "1 is not 10 (numbers, not prefixes)");
	CHECK(!lx_gpus_overlap("10,11", "1"), "10 and 11 are not 1");
	CHECK(lx_gpus_overlap("01", "1"), "01 is GPU 1");
	/* not lists: whatever they say, the scan ends (a caller checks validity first) */
	CHECK(!lx_gpus_overlap(",,", "0") && !lx_gpus_overlap("0", "x"), "a malformed list ends the scan");
}

int
main(void)
{
	test_valid();
	test_overlap();
	return unit_done("test_gpulist");
}
