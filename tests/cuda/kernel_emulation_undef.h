// Clears one configuration's macros before mma_kernel_emulation_test.cc includes
// gemm_mma.cuh again with the next.
#undef GT_IN
#undef GT_OUT
#undef GT_A_KCONTIG
#undef GT_B_KCONTIG
#undef GT_BM
#undef GT_BN
#undef GT_BK
#undef GT_WM
#undef GT_WN
#undef GT_STAGES
#undef GT_GROUP_M
#undef GT_SPLIT_K
