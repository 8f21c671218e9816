package org.zludaj.ptx.llvm;

import static org.bytedeco.llvm.global.LLVM.*;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.bytedeco.llvm.LLVM.LLVMBuilderRef;
import org.bytedeco.llvm.LLVM.LLVMValueRef;
import org.zludaj.ptx.target.Target;

/**
 * NVIDIA's mma fragments into the AMD WMMA operand layouts and the WMMA's D back, with as few lane permutes as the
 * layouts allow ({@link #exchange}). In every one of these re-layouts a lane that is read holds several registers
 * that different reading lanes want (A's rows g and g+8 sit in one NVIDIA lane; four WMMA rows share a lane of D),
 * so one permute per wanted register would move most values several times. Instead each permute moves each value
 * once: in round r every lane offers the candidate (srcKey ^ r) and reads its output (dstKey ^ r), a latin square
 * over the 2^k candidates, then each output is picked from the rounds. k = 1 or 2 on RDNA3, up to 3 on RDNA4:
 * paired m16n8k16 f16 on RDNA3 takes 32 permutes (8 A, 8 B, 8 C, 8 D) where one per register took 96; on RDNA4 24
 * (4, 4, 8, 8) where 160 were made.
 * Layouts: see {@link MatrixOps} (mmaWmma). Lanes: L = lane id, g = L/4 and t = L%4 in NVIDIA's fragments.
 */
final class FragmentExchange {
    private final MatrixOps m;
    private final Lowering l;

    FragmentExchange(MatrixOps m, Lowering l) {
        this.m = m;
        this.l = l;
    }

    private LLVMBuilderRef b() {
        return l.b;
    }

    /**
     * The 2^k outputs of every lane: output o is the candidate {@code dstKey} of the lane at {@code base} + Σ_b
     * bit_b(o)·strides[b]. The layouts guarantee (and the matrix tests check): each lane read for output o has
     * srcKey o, the strides are distinct powers of two, and {@code base} has none of their bits. Then the lanes
     * reading one lane in one round all want the same candidate, and round r's address is round 0's XOR a constant.
     */
    List<LLVMValueRef> exchange(List<LLVMValueRef> candidates, LLVMValueRef srcKey, LLVMValueRef dstKey, LLVMValueRef base,
                                int... strides) {
        return resolve(List.of(plan(candidates, srcKey, dstKey, base, strides))).get(0);
    }

    /** An exchange up to its permutes: the rounds' offers and addresses, the outputs' keys. */
    private record Planned(List<LLVMValueRef> rounds, List<Integer> moved, List<LLVMValueRef> offers,
                           List<LLVMValueRef> addresses, List<LLVMValueRef> dstBits, int n) {}

    /**
     * {@link #exchange} up to its output picks; where the target batches permutes (the host's emulation) without its
     * permutes, which {@link #resolve} makes together with other exchanges', else with them, in the order of {@link
     * #exchange} alone (so a GPU's code does not depend on the batching).
     */
    private Planned plan(List<LLVMValueRef> candidates, LLVMValueRef srcKey, LLVMValueRef dstKey, LLVMValueRef base,
                         int... strides) {
        int n = 1 << strides.length;
        if (candidates.size() != n) throw new IllegalArgumentException(candidates.size() + " candidates for " + n + " outputs");
        List<LLVMValueRef> srcBits = bits(srcKey, strides.length), dstBits = bits(dstKey, strides.length);
        LLVMValueRef address0 = base;  // round 0: this lane reads its output dstKey
        for (int q = 0; q < strides.length; q++)
            address0 = LLVMBuildOr(b(), address0, LLVMBuildShl(b(), LLVMBuildAnd(b(), LLVMBuildLShr(b(), dstKey, m.c32(q), ""),
                    m.c32(1), ""), m.c32(Integer.numberOfTrailingZeros(strides[q])), ""), "");
        List<LLVMValueRef> rounds = new ArrayList<>(), offers = new ArrayList<>(), addresses = new ArrayList<>();
        List<Integer> moved = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            int flip = 0;
            for (int q = 0; q < strides.length; q++) if ((r >> q & 1) != 0) flip |= strides[q];
            LLVMValueRef offered = pick(candidates, srcBits, r);
            if (offered.equals(m.c32(0))) {  // nothing to move
                rounds.add(offered);
                continue;
            }
            LLVMValueRef address = flip == 0 ? address0 : LLVMBuildXor(b(), address0, m.c32(flip), "");
            if (!l.target.batchesLanePermutes()) {
                rounds.add(m.permute(offered, address));
                continue;
            }
            rounds.add(offered);
            moved.add(r);
            offers.add(offered);
            addresses.add(address);
        }
        return new Planned(rounds, moved, offers, addresses, dstBits, n);
    }

    /**
     * The outputs of independent exchanges: their permutes in one {@link MatrixOps#permutes} (one step of the host's
     * emulation; on a GPU the same permutes, each a ds_bpermute), then each exchange's picks.
     */
    private List<List<LLVMValueRef>> resolve(List<Planned> plans) {
        List<LLVMValueRef> offers = new ArrayList<>(), addresses = new ArrayList<>();
        for (Planned p : plans) {
            offers.addAll(p.offers());
            addresses.addAll(p.addresses());
        }
        List<LLVMValueRef> got = m.permutes(offers, addresses);
        List<List<LLVMValueRef>> outs = new ArrayList<>();
        int next = 0;
        for (Planned p : plans) {
            List<LLVMValueRef> rounds = new ArrayList<>(p.rounds());
            for (int r : p.moved()) rounds.set(r, got.get(next++));
            List<LLVMValueRef> out = new ArrayList<>();
            for (int o = 0; o < p.n(); o++) out.add(pick(rounds, p.dstBits(), o));
            outs.add(out);
        }
        return outs;
    }

    /** Independent exchanges, their outputs in order: batched where the target batches permutes, else one by one. */
    private List<List<LLVMValueRef>> exchanges(List<Supplier<Planned>> specs) {
        if (l.target.batchesLanePermutes()) return resolve(specs.stream().map(Supplier::get).toList());
        List<List<LLVMValueRef>> outs = new ArrayList<>();
        for (Supplier<Planned> spec : specs) outs.add(resolve(List.of(spec.get())).get(0));
        return outs;
    }

    /** The low {@code k} bits of a key as i1 conditions. */
    private List<LLVMValueRef> bits(LLVMValueRef key, int k) {
        List<LLVMValueRef> out = new ArrayList<>();
        for (int q = 0; q < k; q++) out.add(LLVMBuildICmp(b(), LLVMIntNE, LLVMBuildAnd(b(), key, m.c32(1L << q), ""), m.c32(0), ""));
        return out;
    }

    /** values[key ^ x], by a tree of selects on the key's bits (x flips a level's operands). */
    private LLVMValueRef pick(List<LLVMValueRef> values, List<LLVMValueRef> keyBits, int x) {
        List<LLVMValueRef> level = values;
        for (int q = 0; level.size() > 1; q++) {
            List<LLVMValueRef> next = new ArrayList<>();
            for (int i = 0; i < level.size(); i += 2) {
                LLVMValueRef zero = level.get(i), one = level.get(i + 1);
                if ((x >> q & 1) != 0) {
                    LLVMValueRef s = zero;
                    zero = one;
                    one = s;
                }
                next.add(zero.equals(one) ? zero : LLVMBuildSelect(b(), keyBits.get(q), one, zero, ""));
            }
            level = next;
        }
        return level.get(0);
    }

    private LLVMValueRef lane(LLVMValueRef lane, int shift, int mask) {
        return LLVMBuildAnd(b(), shift == 0 ? lane : LLVMBuildLShr(b(), lane, m.c32(shift), ""), m.c32(mask), "");
    }

    private LLVMValueRef or(LLVMValueRef a, LLVMValueRef c) {
        return LLVMBuildOr(b(), a, c, "");
    }

    /**
     * A or B of a 16-bit mma (m16n8k16/k8) in the WMMA operand layout: the words of row/column L%16 (A: registers
     * {@code x[0..3]}; B: {@code x} is the first operation's registers, {@code second} the paired one's or null).
     * NVIDIA's (i, k) is at lane (i%8)*4 + (k%8)/2, register i/8 + 2(k/8) for A; B's (k, j) at lane (j%8)*4 + (k%8)/2,
     * register k/8, and B's columns 8-15 are the second operation's.
     */
    List<LLVMValueRef> operand16(LLVMValueRef lane, List<LLVMValueRef> x, List<LLVMValueRef> second, boolean isA, int k) {
        boolean rdna3 = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3;
        LLVMValueRef zero = m.c32(0), quad = LLVMBuildShl(b(), lane(lane, 0, 7), m.c32(2), "");
        // candidate c: bit 0 row/column L%16 >= 8 (A: register +1; B: the second operation), bit 1 (RDNA4) k 8-15
        List<LLVMValueRef> lo = isA ? List.of(x.get(0), x.get(1)) : List.of(x.get(0), second != null ? second.get(0) : zero);
        List<LLVMValueRef> up = k < 16 ? List.of(zero, zero)
                : isA ? List.of(x.get(2), x.get(3)) : List.of(x.get(1), second != null ? second.get(1) : zero);
        List<LLVMValueRef> out = new ArrayList<>();
        if (rdna3) {  // word w: k 2w, 2w+1 of all 16 (lanes 16-31 repeat); pairs of words share the rounds
            List<Supplier<Planned>> specs = new ArrayList<>();
            for (int w = 0; w < 8 && 2 * w < k; w += 2) {  // words of k beyond the operation's: zero
                int word = w;
                specs.add(() -> plan(word < 4 ? lo : up, lane(lane, 0, 1), lane(lane, 3, 1), or(quad, m.c32(word & 3)), 1));
            }
            for (List<LLVMValueRef> o : exchanges(specs)) out.addAll(o);
            while (out.size() < 8) out.add(zero);
        } else {      // word w of lane L: k 8(L/16) + 2w, +1
            List<LLVMValueRef> c = List.of(lo.get(0), lo.get(1), up.get(0), up.get(1));
            out.addAll(exchange(c, lane(lane, 0, 3), lane(lane, 3, 3), quad, 1, 2));
        }
        return out;
    }

    /**
     * A or B of an 8-bit mma (m16n8k32/k16, m8n8k16), step h of k (k32: two WMMAs): {@code lo} is the register of
     * rows/columns 0-7 (A: row i/8 = 0; B: the first operation), {@code hi} of 8-15 (or zero).
     */
    List<LLVMValueRef> operand8(LLVMValueRef lane, LLVMValueRef lo, LLVMValueRef hi) {
        boolean rdna3 = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3;
        LLVMValueRef quad = LLVMBuildShl(b(), lane(lane, 0, 7), m.c32(2), "");
        List<LLVMValueRef> c = List.of(lo, hi), out = new ArrayList<>();
        if (rdna3) {  // 4 words: k 4w..4w+3, at lane quad + w
            List<Supplier<Planned>> specs = new ArrayList<>();
            for (int w = 0; w < 4; w += 2) {
                int word = w;
                specs.add(() -> plan(c, lane(lane, 0, 1), lane(lane, 3, 1), or(quad, m.c32(word)), 1));
            }
            for (List<LLVMValueRef> o : exchanges(specs)) out.addAll(o);
        } else {      // 2 words: k 8(L/16) + 4w.., at lane quad + 2(L/16) + w
            out.addAll(exchange(c, lane(lane, 0, 1), lane(lane, 3, 1), or(quad, LLVMBuildShl(b(), lane(lane, 4, 1), m.c32(1), "")), 1));
        }
        return out;
    }

    /**
     * C in the WMMA accumulator layout from NVIDIA's (i32 words, 4 per m16n8 operation, 2 for m8n8: element e of
     * lane (g, t) is (g + 8(e/2), 2t + e%2)); {@code second}: the paired operation's, columns 8-15 (or null: zero).
     * RDNA3: element v of lane L is (2v + L/16, L%16); RDNA4: (8(L/16) + v, L%16).
     */
    List<LLVMValueRef> accumulator(LLVMValueRef lane, List<LLVMValueRef> first, List<LLVMValueRef> second, boolean m8) {
        boolean rdna3 = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3;
        LLVMValueRef zero = m.c32(0), col = lane(lane, 1, 3);  // (j%8)/2: t of column L%16
        List<LLVMValueRef> a = padded(first, m8), s = second == null ? List.of(zero, zero, zero, zero) : padded(second, m8);
        List<LLVMValueRef> out = new ArrayList<>();
        if (rdna3) {  // row 2v + L/16 is at lane 4(row%8) + col, element 2(v/4) + L%2; outputs v%4 at stride 8
            LLVMValueRef dst = or(lane(lane, 0, 1), LLVMBuildAnd(b(), LLVMBuildLShr(b(), lane, m.c32(2), ""), m.c32(2), ""));
            LLVMValueRef base = or(LLVMBuildShl(b(), lane(lane, 4, 1), m.c32(2), ""), col);
            List<Supplier<Planned>> specs = new ArrayList<>();
            for (int q = 0; q < (m8 ? 1 : 2); q++) {  // m8: rows 8-15 do not exist
                int h = q;
                specs.add(() -> plan(List.of(a.get(2 * h), a.get(2 * h + 1), s.get(2 * h), s.get(2 * h + 1)), lane(lane, 3, 3), dst, base, 8, 16));
            }
            for (List<LLVMValueRef> o : exchanges(specs)) out.addAll(o);
            if (m8) for (int v = 0; v < 4; v++) out.add(zero);
        } else {      // row 8(L/16) + v is at lane 4v + col, element 2(L/16) + L%2
            LLVMValueRef dst = or(or(lane(lane, 0, 1), LLVMBuildAnd(b(), LLVMBuildLShr(b(), lane, m.c32(3), ""), m.c32(2), "")),
                    LLVMBuildAnd(b(), LLVMBuildLShr(b(), lane, m.c32(1), ""), m.c32(4), ""));
            out.addAll(exchange(List.of(a.get(0), a.get(1), a.get(2), a.get(3), s.get(0), s.get(1), s.get(2), s.get(3)),
                    lane(lane, 2, 7), dst, col, 4, 8, 16));
        }
        return out;
    }

    private List<LLVMValueRef> padded(List<LLVMValueRef> c, boolean m8) {
        return m8 ? List.of(c.get(0), c.get(1), m.c32(0), m.c32(0)) : c;
    }

    /**
     * D (8 i32 words in the WMMA accumulator layout) in NVIDIA's C layout: {@code halves} lists of 4 words (2 for
     * m8n8), the second the paired operation's (columns 8-15).
     */
    List<List<LLVMValueRef>> toNvidia(LLVMValueRef lane, List<LLVMValueRef> d, int halves, boolean m8) {
        boolean rdna3 = l.target.wmmaLayout() == Target.WmmaLayout.RDNA3;
        LLVMValueRef base2t = LLVMBuildShl(b(), lane(lane, 0, 3), m.c32(1), "");
        List<List<LLVMValueRef>> out = new ArrayList<>();
        for (int h = 0; h < halves; h++) out.add(new ArrayList<>());
        int elements = m8 ? 2 : 4;
        if (rdna3) {  // (i, j) at lane j + 16(i%2), element i/2; outputs p + 2h of j = 2t + p + 8h, element g/2 + 4E
            LLVMValueRef src = or(lane(lane, 0, 1), LLVMBuildAnd(b(), LLVMBuildLShr(b(), lane, m.c32(2), ""), m.c32(2), ""));
            LLVMValueRef base = or(base2t, LLVMBuildShl(b(), lane(lane, 2, 1), m.c32(4), ""));
            List<Supplier<Planned>> specs = new ArrayList<>();
            for (int e2 = 0; e2 < elements / 2; e2++) {
                int e = e2;
                specs.add(() -> plan(d.subList(4 * e, 4 * e + 4), src, lane(lane, 3, 3), base, 1, 8));
            }
            for (List<LLVMValueRef> o : exchanges(specs))
                for (int h = 0; h < halves; h++) for (int p = 0; p < 2; p++) out.get(h).add(o.get(p + 2 * h));
        } else {      // (i, j) at lane j + 16(i/8), element i%8 = g; outputs p + 2h + 4E
            LLVMValueRef src = or(lane(lane, 0, 1), LLVMBuildAnd(b(), LLVMBuildLShr(b(), lane, m.c32(2), ""), m.c32(6), ""));
            List<LLVMValueRef> o = exchange(d, src, lane(lane, 2, 7), base2t, 1, 8, 16);
            for (int h = 0; h < halves; h++) for (int e = 0; e < elements; e++) out.get(h).add(o.get((e & 1) + 2 * h + 4 * (e >> 1)));
        }
        return out;
    }
}
