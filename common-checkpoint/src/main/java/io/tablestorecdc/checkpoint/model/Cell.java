package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;

/**
 * A read-only view of one typed cell, for converters that write values straight into an engine's
 * row without building a {@link CellValue}. A view handed to a {@link ChangeVisitor} is valid only
 * during that call.
 */
@PublicEvolving
public interface Cell {

    CellValue.Type type();

    long asInteger();

    double asDouble();

    boolean asBoolean();

    String asString();

    /**
     * A string value's UTF-8 bytes, as the server sent them. The array may be shared with the
     * record it came from: read it, never modify it. Unlike the view, it stays valid after the
     * call.
     */
    byte[] utf8();

    /** A binary value's bytes; shared like {@link #utf8()}: read it, never modify it. */
    byte[] binaryView();

    /**
     * The array that holds a string's UTF-8 bytes or a binary value's bytes, from {@link
     * #bytesOffset()} for {@link #bytesLength()} bytes: a converter copies them from there without
     * an array of their own. Unlike {@link #utf8()}, valid only during the call; read it, never
     * modify it.
     */
    default byte[] bytesArray() {
        return type() == CellValue.Type.STRING ? utf8() : binaryView();
    }

    /** Where the value's bytes start in {@link #bytesArray()}. */
    default int bytesOffset() {
        return 0;
    }

    /** How many bytes of {@link #bytesArray()} the value holds. */
    default int bytesLength() {
        return bytesArray().length;
    }

    /** An immutable copy of this value. */
    CellValue toCellValue();
}
