package org.zludaj.ptx.model;

/** PTX state spaces. */
public enum StateSpace {
    REG, SREG, CONST, GLOBAL, LOCAL, PARAM, SHARED, TEX, GENERIC;

    public static StateSpace of(String directive) {
        return switch (directive) {
            case ".reg" -> REG;
            case ".sreg" -> SREG;
            case ".const" -> CONST;
            case ".global" -> GLOBAL;
            case ".local" -> LOCAL;
            case ".param" -> PARAM;
            case ".shared", ".shared::cta" -> SHARED;
            case ".tex" -> TEX;
            default -> null;
        };
    }
}
