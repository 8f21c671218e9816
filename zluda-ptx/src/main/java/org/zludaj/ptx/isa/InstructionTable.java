package org.zludaj.ptx.isa;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.zludaj.ptx.model.Statement.Instruction;

/**
 * The PTX instruction table (instructions.txt beside this class): per opcode, the modifiers it takes, how many
 * operands, and the PTX ISA version and SM it needs. {@link #validate} turns an instruction of the generic shape
 * into its {@link Spec} or a message. Adding an opcode is adding a line.
 */
public final class InstructionTable {
    /** One opcode's entry. Versions are encoded major*10+minor (PTX 7.8 = 78); SM as its number (sm_80 = 80). */
    public record Spec(String opcode, int minPtx, int minSm, int minOperands, int maxOperands, Set<String> modifiers,
                       List<String> prefixes, Map<String, int[]> requires) {
        boolean allows(String modifier) {
            if (modifiers.contains(modifier)) return true;
            for (String p : prefixes) if (modifier.startsWith(p)) return true;
            return false;
        }
    }

    private static final InstructionTable INSTANCE = load();
    private final Map<String, Spec> specs;

    private InstructionTable(Map<String, Spec> specs) {
        this.specs = specs;
    }

    public static InstructionTable get() {
        return INSTANCE;
    }

    public Set<String> opcodes() {
        return specs.keySet();
    }

    /** The entry for an instruction: {@code opcode.firstModifier} (cvt.pack, st.async) when listed, else {@code opcode}. */
    public Spec spec(Instruction i) {
        if (!i.modifiers().isEmpty()) {
            Spec s = specs.get(i.opcode() + i.modifiers().get(0));
            if (s != null) return s;
        }
        return specs.get(i.opcode());
    }

    /**
     * Checks an instruction against the table for a module of PTX version {@code ptx} (e.g. 90) and target
     * {@code sm} (0 = unknown). Returns null when valid, else the message.
     */
    public String validate(Instruction i, int ptx, int sm) {
        Spec s = spec(i);
        if (s == null) return "unknown instruction " + i.opcode();
        int n = i.operands().size();
        if (n < s.minOperands || n > s.maxOperands) {
            return i.text() + " takes " + (s.minOperands == s.maxOperands ? Integer.toString(s.minOperands)
                    : s.minOperands + " to " + s.maxOperands) + " operands, not " + n;
        }
        boolean skipFirst = !s.opcode.equals(i.opcode());
        for (int k = skipFirst ? 1 : 0; k < i.modifiers().size(); k++) {
            String m = i.modifiers().get(k);
            if (!s.allows(m)) return "modifier " + m + " is not valid for " + i.opcode();
        }
        int[] need = {s.minPtx, s.minSm};
        String why = i.opcode();
        for (String m : i.modifiers()) {
            int[] r = s.requires.get(m);
            if (r != null && (r[0] > need[0] || r[1] > need[1])) {
                need = new int[] {Math.max(r[0], need[0]), Math.max(r[1], need[1])};
                why = i.opcode() + m;
            }
        }
        if (ptx > 0 && ptx < need[0]) return why + " requires PTX ISA " + need[0] / 10 + "." + need[0] % 10 + " or newer";
        if (sm > 0 && sm < need[1]) return why + " requires sm_" + need[1] + " or newer (module targets sm_" + sm + ")";
        return null;
    }

    static int version(String v) {
        String[] p = v.split("\\.");
        return Integer.parseInt(p[0]) * 10 + Integer.parseInt(p[1]);
    }

    private static InstructionTable load() {
        Map<String, List<String>> sets = new HashMap<>();
        Map<String, Spec> specs = new HashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                InstructionTable.class.getResourceAsStream("instructions.txt"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) continue;
                String[] f = line.split("\\s+");
                if (f[0].equals("@SET")) {
                    sets.put(f[1], List.of(f).subList(2, f.length));
                } else if (f[0].equals("requires")) {
                    specs.get(f[1]).requires.put(f[2], new int[] {version(f[3]), Integer.parseInt(f[4])});
                } else {
                    String[] ops = f[3].split("-");
                    Set<String> mods = new HashSet<>();
                    List<String> prefixes = new ArrayList<>();
                    for (int k = 4; k < f.length; k++) {
                        List<String> words = sets.containsKey(f[k]) ? sets.get(f[k]) : List.of(f[k]);
                        for (String w : words) {
                            if (w.endsWith("*")) prefixes.add(w.substring(0, w.length() - 1));
                            else mods.add(w);
                        }
                    }
                    specs.put(f[0], new Spec(f[0], version(f[1]), Integer.parseInt(f[2]), Integer.parseInt(ops[0]),
                            Integer.parseInt(ops[ops.length - 1]), Set.copyOf(mods), List.copyOf(prefixes), new HashMap<>()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new InstructionTable(Map.copyOf(specs));
    }
}
