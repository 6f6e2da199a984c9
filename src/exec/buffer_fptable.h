/*
 * buffer_fptable.h
 *	  Instruction footprints measured by calibrate/footprints.py
 *	  (callgrind, 20000 rows, a line counts if run once per 20 tuples).
 *	  Generated: do not edit.  Per module, bytes of executed code:
 *	    F:date_le                      64
 *	    F:hashint4                    192
 *	    F:int4eq                       64
 *	    F:int4ge                       64
 *	    F:int4gt                       64
 *	    F:int8inc                      64
 *	    F:numeric_add                3712
 *	    F:numeric_avg                3648
 *	    F:numeric_avg_accum          2496
 *	    F:numeric_gt                 1536
 *	    F:numeric_mul                3904
 *	    F:numeric_sub                3456
 *	    F:numeric_sum                2752
 *	    FPB_MOD_AGG                  1280
 *	    FPB_MOD_APPEND                512
 *	    FPB_MOD_BITMAPHEAPSCAN      15296
 *	    FPB_MOD_BUFFER               1152
 *	    FPB_MOD_HASH                13248
 *	    FPB_MOD_HASHAGG              8576
 *	    FPB_MOD_HASHJOIN            11968
 *	    FPB_MOD_INDEXONLYSCAN        5504
 *	    FPB_MOD_INDEXSCAN           12032
 *	    FPB_MOD_LIMIT                 512
 *	    FPB_MOD_MATERIAL             3008
 *	    FPB_MOD_MERGEJOIN            4160
 *	    FPB_MOD_NESTLOOP             5632
 *	    FPB_MOD_OTHERSCAN            5248
 *	    FPB_MOD_PROJECT               832
 *	    FPB_MOD_QUAL                 2176
 *	    FPB_MOD_RESULT               5376
 *	    FPB_MOD_SEQSCAN              9216
 *	    FPB_MOD_SORT                10688
 *	    FPB_MOD_SUBQUERYSCAN         4352
 *	    FPB_MOD_UNIQUE               9536
 *	    FPB_MOD_WINDOWAGG            9984
 *	    measured AGG_Q1              9152
 *	    measured SCAN_Q1            11328
 */
#define FPB_NATOMS 108
#define FPB_UNKNOWN_FUNCTION_BYTES 1536
#define FPB_UNKNOWN_MODULE_BYTES 15296

static const FpbAtomDef fpb_atoms[FPB_NATOMS] = {
	{"qsort_tuple", 6976},
	{"BitmapHeapNext", 4800},
	{"LookupTupleHashEntry", 4032},
	{"ExecNestLoop", 3392},
	{"ExecMakeFunctionResultSet", 3328},
	{"ExecMergeJoin", 3264},
	{"ReadBuffer_common", 2688},
	{"ReadBuffer_common", 2560},
	{"ExecHashJoin", 1920},
	{"IndexOnlyNext", 1728},
	{"heap_hot_search_buffer", 1472},
	{"ExecMakeTableFunctionResult", 1344},
	{"LockBufHdr", 1280},
	{"heapam_index_fetch_tuple", 1088},
	{"mul_var", 1024},
	{"heapgettup_pagemode", 1024},
	{"ExecHashTableInsert", 960},
	{"make_result_opt_error", 832},
	{"_bt_readpage", 832},
	{"accum_sum_add", 768},
	{"buffer_exec", 704},
	{"pgstat_end_function_usage", 704},
	{"sub_var", 640},
	{"heap_fill_tuple", 640},
	{"tts_minimal_getsomeattrs", 640},
	{"tts_buffer_heap_getsomeattrs", 640},
	{"ExecUnique", 576},
	{"btgettuple", 512},
	{"numeric_add_opt_error", 448},
	{"sub_abs", 448},
	{"add_abs", 448},
	{"ExecInterpExpr", 448},
	{"ExecAppend", 448},
	{"ExecLimit", 448},
	{"ExecMaterial", 448},
	{"cmp_numerics", 384},
	{"ExecScan", 384},
	{"_bt_checkkeys", 384},
	{"ExecHashGetHashValue", 384},
	{"heapgetpage", 384},
	{"fill_val", 384},
	{"tuplestore_gettuple", 384},
	{"detoast_attr", 320},
	{"ExecInterpExpr", 320},
	{"ExecStoreBufferHeapTuple", 320},
	{"ExecInterpExpr", 320},
	{"tts_minimal_getsomeattrs", 320},
	{"cmp_abs_common", 256},
	{"round_var", 256},
	{"heapgetpage", 256},
	{"tts_buffer_heap_getsomeattrs", 256},
	{"init_var_from_num", 192},
	{"numeric_gt", 192},
	{"ExecAgg", 192},
	{"ExecStoreMinimalTuple", 192},
	{"ExecInterpExpr", 192},
	{"AllocSetReset", 192},
	{"hash_bytes_uint32", 128},
	{"AllocSetAlloc", 128},
	{"AllocSetAlloc", 128},
	{"palloc0", 128},
	{"__memset_avx2_unaligned_erms", 128},
	{"MemoryContextReset", 128},
	{"ResourceArrayRemove", 128},
	{"__memcpy_avx_unaligned_erms", 128},
	{"FunctionCall1Coll", 128},
	{"heap_form_minimal_tuple", 128},
	{"fill_val", 128},
	{"slot_getsomeattrs_int", 128},
	{"tts_minimal_clear", 128},
	{"ExecScan", 128},
	{"__memcpy_avx_unaligned_erms", 128},
	{"date_le", 64},
	{"hashint4", 64},
	{"int4eq", 64},
	{"int4gt", 64},
	{"int8inc", 64},
	{"AllocSetFree", 64},
	{"pfree", 64},
	{"palloc", 64},
	{"AllocSetAlloc", 64},
	{"palloc", 64},
	{"__memcpy_avx_unaligned_erms", 64},
	{"__memcpy_avx_unaligned_erms", 64},
	{"0x00000000001d0fa8", 64},
	{"cmp_abs_common", 64},
	{"init_var_from_num", 64},
	{"__memset_avx2_unaligned_erms", 64},
	{"palloc0", 64},
	{"palloc0", 64},
	{"AllocSetFree", 64},
	{"ExecSeqScan", 64},
	{"ExecInterpExpr", 64},
	{"ConditionVariableBroadcast", 64},
	{"ExecJustOuterVarVirt", 64},
	{"tts_virtual_copy_minimal_tuple", 64},
	{"tts_virtual_clear", 64},
	{"ExecStoreVirtualTuple", 64},
	{"MemoryContextAlloc", 64},
	{"tts_virtual_clear", 64},
	{"ExecScan", 64},
	{"ExecInterpExpr", 64},
	{"ExecIndexOnlyScan", 64},
	{"ExecJustConst", 64},
	{"ExecInterpExpr", 64},
	{"ExecInterpExpr", 64},
	{"ExecInterpExpr", 64},
	{"ExecScan", 64},
};

static const FpbModuleDef fpb_module_defs[] = {
	{FPB_MOD_AGG, (const int16[]) {31, 43, 53, 62, 76, 91, 92, -1}},
	{FPB_MOD_APPEND, (const int16[]) {32, 91, -1}},
	{FPB_MOD_BITMAPHEAPSCAN, (const int16[]) {1, 6, 7, 10, 12, 18, 36, 37, 44, 62, 63, 75, 82, 83, 87, 93, -1}},
	{FPB_MOD_BUFFER, (const int16[]) {20, 54, 64, 82, 91, -1}},
	{FPB_MOD_HASH, (const int16[]) {6, 7, 12, 15, 16, 23, 36, 38, 39, 40, 44, 49, 57, 58, 60, 61, 62, 63, 65, 66, 67, 73, 77, 78, 82, 83, 84, 87, 88, 90, 91, 93, 94, 95, -1}},
	{FPB_MOD_HASHAGG, (const int16[]) {2, 23, 24, 31, 43, 45, 54, 55, 57, 58, 59, 62, 65, 66, 68, 69, 73, 74, 76, 77, 79, 87, 88, 91, 92, 96, 97, 98, -1}},
	{FPB_MOD_HASHJOIN, (const int16[]) {7, 8, 12, 15, 24, 25, 36, 38, 39, 43, 44, 45, 54, 55, 57, 62, 63, 65, 68, 70, 73, 74, 87, 91, 92, 93, 96, 99, 100, 101, -1}},
	{FPB_MOD_INDEXONLYSCAN, (const int16[]) {9, 12, 18, 27, 36, 37, 62, 75, 96, 97, 99, -1}},
	{FPB_MOD_INDEXSCAN, (const int16[]) {6, 7, 10, 12, 13, 18, 27, 36, 37, 44, 62, 63, 75, 82, 83, 93, -1}},
	{FPB_MOD_LIMIT, (const int16[]) {33, 91, -1}},
	{FPB_MOD_MATERIAL, (const int16[]) {15, 34, 36, 41, 44, 54, 62, 69, -1}},
	{FPB_MOD_MERGEJOIN, (const int16[]) {5, 43, 62, 63, 94, 96, 99, 102, 103, -1}},
	{FPB_MOD_NESTLOOP, (const int16[]) {3, 25, 43, 58, 60, 62, 64, 68, 77, 78, 82, 88, 89, 90, 91, 96, 99, 102, -1}},
	{FPB_MOD_OTHERSCAN, (const int16[]) {11, 21, 23, 36, 40, 41, 54, 58, 59, 60, 61, 62, 66, 67, 71, 80, 87, 88, -1}},
	{FPB_MOD_PROJECT, (const int16[]) {43, 70, 96, 99, 100, 104, 105, 106, -1}},
	{FPB_MOD_QUAL, (const int16[]) {25, 43, 45, 50, 68, 70, 72, 75, 92, 101, 105, 107, -1}},
	{FPB_MOD_RESULT, (const int16[]) {4, 21, 56, 58, 59, 62, 77, 78, 79, 80, 81, 90, 91, 96, 97, 98, 99, 103, -1}},
	{FPB_MOD_SEQSCAN, (const int16[]) {6, 7, 12, 15, 36, 39, 44, 49, 62, 63, 93, -1}},
	{FPB_MOD_SORT, (const int16[]) {0, 23, 35, 40, 42, 47, 51, 54, 57, 58, 60, 61, 71, 77, 78, 79, 81, 85, 86, 87, 88, 90, 91, 95, -1}},
	{FPB_MOD_SUBQUERYSCAN, (const int16[]) {24, 35, 36, 42, 43, 45, 46, 52, 56, 58, 59, 62, 68, 70, 77, 78, 79, 80, 81, 90, 92, 101, 105, 107, -1}},
	{FPB_MOD_UNIQUE, (const int16[]) {9, 12, 18, 23, 24, 26, 27, 36, 40, 43, 45, 55, 58, 60, 61, 62, 66, 67, 68, 74, 77, 78, 87, 88, 90, 92, 93, 95, 96, 97, 99, 102, -1}},
	{FPB_MOD_WINDOWAGG, (const int16[]) {6, 7, 12, 15, 36, 39, 43, 44, 49, 62, 63, 70, 93, 96, 99, 100, 105, 106, -1}},
};

static const FpbFunctionDef fpb_function_defs[] = {
	{"numeric_mul", (const int16[]) {14, 17, 42, 48, 51, 58, 59, 60, 61, 77, 78, 79, 80, 81, 82, 83, 84, 85, 87, 88, 89, -1}},
	{"numeric_sub", (const int16[]) {17, 22, 29, 42, 47, 51, 58, 59, 77, 78, 79, 80, 81, 82, 83, 84, -1}},
	{"numeric_add", (const int16[]) {17, 28, 29, 30, 42, 47, 51, 58, 59, 77, 78, 79, 80, 81, 82, 83, 84, -1}},
	{"numeric_avg_accum", (const int16[]) {19, 42, 51, 58, 59, 60, 61, 77, 78, 79, 80, 81, 82, 83, 84, 87, 88, 89, -1}},
	{"numeric_avg", (const int16[]) {17, 29, 30, 42, 47, 48, 51, 58, 59, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, -1}},
	{"numeric_sum", (const int16[]) {17, 29, 30, 47, 58, 59, 77, 78, 79, 80, 81, 82, 83, 84, -1}},
	{"int8inc", (const int16[]) {76, -1}},
	{"date_le", (const int16[]) {72, -1}},
	{"int4gt", (const int16[]) {75, -1}},
	{"int4ge", (const int16[]) {75, -1}},
	{"int4eq", (const int16[]) {74, -1}},
	{"numeric_gt", (const int16[]) {35, 42, 52, 58, 59, 77, 78, 79, 80, 81, 90, -1}},
	{"hashint4", (const int16[]) {57, 73, -1}},
};
