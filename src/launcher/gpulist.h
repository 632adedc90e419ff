/*
 * gpulist.h — the GPU index lists a launcher compares: CUDA_VISIBLE_DEVICES
 * of a claim, the GPUs a keeper says its part holds, `mixdnn.node_parts`'
 * `gpus`. Two parts must never run on one GPU, so a list the launcher
 * cannot read exactly is not taken as "no GPUs": callers keep such a part
 * as holding every GPU.
 */
#ifndef LX_GPULIST_H
#define LX_GPULIST_H

#include <stdbool.h>

/* Longest index accepted: more digits than any node's GPU count needs. */
#define LX_GPU_INDEX_DIGITS 5

/* Whether s is "" or decimal indices joined by single commas ("0", "0,3"). */
bool		lx_gpu_list_valid(const char *s);

/* Whether two valid lists share an index (as numbers: "01" is "1"). */
bool		lx_gpus_overlap(const char *a, const char *b);

#endif
