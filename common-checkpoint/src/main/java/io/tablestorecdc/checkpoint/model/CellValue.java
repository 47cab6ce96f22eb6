package io.tablestorecdc.checkpoint.model;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

/** A typed Tablestore cell value: string, integer, double, boolean or binary. */
public final class CellValue {

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

    private CellValue(Type type, Object value) {
        this.type = type;
        this.value = Objects.requireNonNull(value, "value");
    }

    public static CellValue ofString(String value) {
        return new CellValue(Type.STRING, value);
    }

    public static CellValue ofInteger(long value) {
        return new CellValue(Type.INTEGER, value);
    }

    public static CellValue ofDouble(double value) {
        return new CellValue(Type.DOUBLE, value);
    }

    public static CellValue ofBoolean(boolean value) {
        return new CellValue(Type.BOOLEAN, value);
    }

    public static CellValue ofBinary(byte[] value) {
        return new CellValue(Type.BINARY, value.clone());
    }

    public Type type() {
        return type;
    }

    public String asString() {
        return (String) expect(Type.STRING);
    }

    public long asInteger() {
        return (Long) expect(Type.INTEGER);
    }

    public double asDouble() {
        return (Double) expect(Type.DOUBLE);
    }

    public boolean asBoolean() {
        return (Boolean) expect(Type.BOOLEAN);
    }

    public byte[] asBinary() {
        return ((byte[]) expect(Type.BINARY)).clone();
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
