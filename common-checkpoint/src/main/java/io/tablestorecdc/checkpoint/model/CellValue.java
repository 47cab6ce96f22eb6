package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/** A typed Tablestore cell value: string, integer, double, boolean or binary. */
@PublicEvolving
public final class CellValue implements Cell {

    /** The Tablestore value types. */
    public enum Type {
        STRING,
        INTEGER,
        DOUBLE,
        BOOLEAN,
        BINARY
    }

    private final Type type;
    private final Object value;
    // A string's UTF-8 form as the server sent it; null when the value was made from a String.
    private final byte[] utf8;

    private CellValue(Type type, Object value) {
        this(type, value, null);
    }

    private CellValue(Type type, Object value, byte[] utf8) {
        this.type = type;
        this.value = Objects.requireNonNull(value, "value");
        this.utf8 = utf8;
    }

    /** A STRING cell. */
    public static CellValue ofString(String value) {
        return new CellValue(Type.STRING, value);
    }

    /**
     * A string with its UTF-8 bytes as the server sent them; the array is kept, not copied, so the
     * caller must not modify it afterwards.
     */
    public static CellValue ofString(String value, byte[] utf8) {
        return new CellValue(Type.STRING, value, Objects.requireNonNull(utf8, "utf8"));
    }

    /** An INTEGER cell (Tablestore integers are 64-bit). */
    public static CellValue ofInteger(long value) {
        return new CellValue(Type.INTEGER, value);
    }

    /** A DOUBLE cell. */
    public static CellValue ofDouble(double value) {
        return new CellValue(Type.DOUBLE, value);
    }

    /** A BOOLEAN cell. */
    public static CellValue ofBoolean(boolean value) {
        return new CellValue(Type.BOOLEAN, value);
    }

    /** A BINARY cell holding a copy of {@code value}. */
    public static CellValue ofBinary(byte[] value) {
        return new CellValue(Type.BINARY, value.clone());
    }

    /** An immutable copy of a cell view (a string keeps the view's UTF-8 bytes). */
    public static CellValue copyOf(Cell cell) {
        return switch (cell.type()) {
            case STRING -> ofString(cell.asString(), cell.utf8());
            case INTEGER -> ofInteger(cell.asInteger());
            case DOUBLE -> ofDouble(cell.asDouble());
            case BOOLEAN -> ofBoolean(cell.asBoolean());
            case BINARY -> ofBinary(cell.binaryView());
        };
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public String asString() {
        return (String) expect(Type.STRING);
    }

    @Override
    public byte[] utf8() {
        String text = asString();
        return utf8 != null ? utf8 : text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public long asInteger() {
        return (Long) expect(Type.INTEGER);
    }

    @Override
    public double asDouble() {
        return (Double) expect(Type.DOUBLE);
    }

    @Override
    public boolean asBoolean() {
        return (Boolean) expect(Type.BOOLEAN);
    }

    /** A copy of a BINARY cell's bytes; any other type throws {@link IllegalStateException}. */
    public byte[] asBinary() {
        return binaryView().clone();
    }

    @Override
    public byte[] binaryView() {
        return (byte[]) expect(Type.BINARY);
    }

    @Override
    public CellValue toCellValue() {
        return this;
    }

    /** The value as a plain Java object (String, Long, Double, Boolean or a copy of byte[]). */
    public Object toJava() {
        return type == Type.BINARY ? asBinary() : value;
    }

    private Object expect(Type wanted) {
        if (type != wanted) {
            throw new IllegalStateException("Cell value is " + type + ", not " + wanted);
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CellValue)) {
            return false;
        }
        CellValue other = (CellValue) o;
        if (type != other.type) {
            return false;
        }
        return type == Type.BINARY
                ? Arrays.equals((byte[]) value, (byte[]) other.value)
                : value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return 31 * type.hashCode()
                + (type == Type.BINARY ? Arrays.hashCode((byte[]) value) : value.hashCode());
    }

    @Override
    public String toString() {
        switch (type) {
            case STRING:
                return "'" + value + "'";
            case BINARY:
                return "b64:" + Base64.getEncoder().encodeToString((byte[]) value);
            default:
                return String.valueOf(value);
        }
    }
}
