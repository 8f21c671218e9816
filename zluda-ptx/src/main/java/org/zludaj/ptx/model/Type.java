package org.zludaj.ptx.model;

/** PTX fundamental types. */
public enum Type {
    PRED(0, Kind.PRED), B8(1, Kind.BITS), B16(2, Kind.BITS), B32(4, Kind.BITS), B64(8, Kind.BITS), B128(16, Kind.BITS),
    U8(1, Kind.UNSIGNED), U16(2, Kind.UNSIGNED), U32(4, Kind.UNSIGNED), U64(8, Kind.UNSIGNED),
    S8(1, Kind.SIGNED), S16(2, Kind.SIGNED), S32(4, Kind.SIGNED), S64(8, Kind.SIGNED),
    F16(2, Kind.FLOAT), F16X2(4, Kind.FLOAT), BF16(2, Kind.FLOAT), BF16X2(4, Kind.FLOAT), F32(4, Kind.FLOAT),
    F64(8, Kind.FLOAT), F8X2(2, Kind.FLOAT), E4M3X2(2, Kind.FLOAT), E5M2X2(2, Kind.FLOAT), TF32(4, Kind.FLOAT),
    TEXREF(8, Kind.OPAQUE), SAMPLERREF(8, Kind.OPAQUE), SURFREF(8, Kind.OPAQUE);

    public enum Kind { PRED, BITS, UNSIGNED, SIGNED, FLOAT, OPAQUE }

    private final int bytes;
    private final Kind kind;

    Type(int bytes, Kind kind) {
        this.bytes = bytes;
        this.kind = kind;
    }

    public int bytes() {
        return bytes;
    }

    public int bits() {
        return bytes * 8;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isFloat() {
        return kind == Kind.FLOAT;
    }

    public boolean isSigned() {
        return kind == Kind.SIGNED;
    }

    private static final java.util.Map<String, Type> BY_MODIFIER = new java.util.HashMap<>();

    static {
        for (Type t : values()) BY_MODIFIER.put("." + t.name().toLowerCase(java.util.Locale.ROOT), t);
    }

    /** The type named by a modifier such as {@code .u32}, or null. */
    public static Type of(String modifier) {
        return BY_MODIFIER.get(modifier);
    }

    /** The modifier naming this type, e.g. {@code .u32}. */
    public String modifier() {
        return "." + name().toLowerCase(java.util.Locale.ROOT);
    }
}
