// Clears one configuration's macros before skinny_kernel_emulation_test.cc includes
// gemm_skinny.cuh again with the next.
#undef GT_IN
#undef GT_OUT
#undef GT_A_KCONTIG
#undef GT_B_KCONTIG
#undef GT_MT
#undef GT_WARPS
#undef GT_KWARPS
#undef GT_NWARPS
#undef GT_TILES
#undef GT_BK
#undef GT_STAGES
#undef GT_PASS
#undef GT_SPLIT_K
#undef GT_VEC
#undef GT_EPW
#undef GT_ESIZE
#undef GT_THREADS
#undef GT_BN
#undef GT_BKW
#undef GT_CHUNKS
#undef GT_PASSW
#undef GT_LDS
#undef GT_MPAD
#undef GT_NNV
#undef GT_NNW
#undef GT_KERNEL_LINKAGE
