package io.tablestorecdc.checkpoint.model;

/**
 * A read-only view of one typed cell, for converters that write values straight into an engine's
 * row without building a {@link CellValue}. A view handed to a {@link ChangeVisitor} is valid only
 * during that call.
 */
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

    /** An immutable copy of this value. */
    CellValue toCellValue();
}
