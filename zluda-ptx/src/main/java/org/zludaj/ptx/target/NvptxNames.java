package org.zludaj.ptx.target;

/**
 * PTX names in our NVPTX ({@link NvptxTarget#symbol}). A class of its own, without LLVM: the cuda backend looks names up
 * with it in processes that never compile (every kernel from the compile cache, LLVM's jar not even present), where
 * loading {@link NvptxTarget} would need LLVM's classes.
 */
public final class NvptxNames {
    private NvptxNames() {}

    /** What a PTX name that begins with {@code %} begins with in our NVPTX. */
    public static final String PERCENT = "__zluda_pct$";

    /**
     * PTX names may begin with {@code %} ({@code .entry %k}, {@code .global .u32 %v}: ptxas takes them), LLVM's NVPTX
     * assembler does not: it ended the process ("LLVM ERROR: Symbol name with unsupported characters", found by
     * tools/ptxas_accept_diff.py). Such a name becomes {@link #PERCENT} + the rest.
     */
    public static String of(String ptxName) {
        int i = ptxName.indexOf('%');
        return i < 0 ? ptxName : ptxName.substring(0, i) + PERCENT + ptxName.substring(i + 1);
    }
}
