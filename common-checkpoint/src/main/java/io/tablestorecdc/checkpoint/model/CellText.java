package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A cell's value as text, the one rule of every schema-free output (the {@code _values} map of both
 * engines): a string as it is, an integer in decimal, a double as Java prints it, a boolean as
 * {@code true} / {@code false}, binary bytes in Base64.
 */
@PublicEvolving
public final class CellText {

    private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

    private CellText() {}

    /**
     * The text's UTF-8 bytes. A string's are the server's own bytes, shared with the cell (see
     * {@link Cell#utf8()}): read them, never modify them.
     */
    public static byte[] utf8(Cell value) {
        return switch (value.type()) {
            case STRING -> value.utf8();
            case INTEGER -> ascii(Long.toString(value.asInteger()));
            case DOUBLE -> ascii(Double.toString(value.asDouble()));
            case BOOLEAN -> value.asBoolean() ? TRUE : FALSE;
            case BINARY -> Base64.getEncoder().encode(value.binaryView());
        };
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
