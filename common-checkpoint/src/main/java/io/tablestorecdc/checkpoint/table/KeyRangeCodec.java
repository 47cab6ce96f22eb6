package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyColumn;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of a {@link KeyRange}, for engines that ship a range to their readers (Flink's split
 * serializer, Spark's input partitions): the SDK's key classes are not serializable. The format
 * starts with a version byte, so a reader refuses bytes of a format it does not know instead of
 * reading the wrong rows.
 *
 * <p>Layout (version 1): version, column count, then per column of the start key and then of the
 * end key: name (modified UTF-8), a type tag and the value (string as UTF-8 bytes, integer as 8
 * bytes, binary as its bytes; INF_MIN / INF_MAX carry none).
 */
@Internal
public final class KeyRangeCodec {

    /** The format written. */
    public static final int VERSION = 1;

    private static final byte INF_MIN = 0;
    private static final byte INF_MAX = 1;
    private static final byte STRING = 2;
    private static final byte INTEGER = 3;
    private static final byte BINARY = 4;

    private KeyRangeCodec() {}

    public static byte[] encode(KeyRange range) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writeKey(out, range.inclusiveStart());
            writeKey(out, range.exclusiveEnd());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @throws IllegalArgumentException for bytes of another format version, or not a key range
     */
    public static KeyRange decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            checkVersion(in.readUnsignedByte(), "A key range");
            KeyRange range = new KeyRange(readKey(in), readKey(in));
            if (in.available() > 0) {
                throw new IllegalArgumentException(
                        "A key range has " + in.available() + " bytes after its end.");
            }
            return range;
        } catch (IOException e) {
            throw new IllegalArgumentException("Bytes that are not a key range: " + e, e);
        }
    }

    /** The bytes of one primary key (a split's last key read), in the same versioned format. */
    public static byte[] encodeKey(PrimaryKey key) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            writeKey(out, key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @throws IllegalArgumentException for bytes of another format version, or not a key
     */
    public static PrimaryKey decodeKey(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            checkVersion(in.readUnsignedByte(), "A primary key");
            PrimaryKey key = readKey(in);
            if (in.available() > 0) {
                throw new IllegalArgumentException(
                        "A primary key has " + in.available() + " bytes after its end.");
            }
            return key;
        } catch (IOException e) {
            throw new IllegalArgumentException("Bytes that are not a primary key: " + e, e);
        }
    }

    static void checkVersion(int version, String what) {
        if (version != VERSION) {
            throw new IllegalArgumentException(
                    what
                            + " of format version "
                            + version
                            + " cannot be read by this connector, which reads version "
                            + VERSION
                            + ": restore with the connector version that wrote it, or start"
                            + " the read again.");
        }
    }

    private static void writeKey(DataOutputStream out, PrimaryKey key) throws IOException {
        PrimaryKeyColumn[] columns = key.getPrimaryKeyColumns();
        out.writeShort(columns.length);
        for (PrimaryKeyColumn column : columns) {
            out.writeUTF(column.getName());
            writeValue(out, column.getName(), column.getValue());
        }
    }

    /** A type tag and the value; {@code column} names the value in an error. */
    static void writeValue(DataOutputStream out, String column, PrimaryKeyValue value)
            throws IOException {
        if (value.isInfMin()) {
            out.writeByte(INF_MIN);
        } else if (value.isInfMax()) {
            out.writeByte(INF_MAX);
        } else {
            switch (value.getType()) {
                case STRING -> {
                    out.writeByte(STRING);
                    writeBytes(out, value.asStringInBytes());
                }
                case INTEGER -> {
                    out.writeByte(INTEGER);
                    out.writeLong(value.asLong());
                }
                case BINARY -> {
                    out.writeByte(BINARY);
                    writeBytes(out, value.asBinary());
                }
                default ->
                        throw new IllegalArgumentException(
                                "A key column "
                                        + column
                                        + " of type "
                                        + value.getType()
                                        + " cannot bound a range.");
            }
        }
    }

    private static PrimaryKey readKey(DataInputStream in) throws IOException {
        int count = in.readUnsignedShort();
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (int i = 0; i < count; i++) {
            String name = in.readUTF();
            key.addPrimaryKeyColumn(new PrimaryKeyColumn(name, readValue(in)));
        }
        return key.build();
    }

    /** A value {@link #writeValue} wrote. */
    static PrimaryKeyValue readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case INF_MIN -> PrimaryKeyValue.INF_MIN;
            case INF_MAX -> PrimaryKeyValue.INF_MAX;
            case STRING ->
                    PrimaryKeyValue.fromString(new String(readBytes(in), StandardCharsets.UTF_8));
            case INTEGER -> PrimaryKeyValue.fromLong(in.readLong());
            case BINARY -> PrimaryKeyValue.fromBinary(readBytes(in));
            default -> throw new IOException("unknown key value tag " + tag);
        };
    }

    private static void writeBytes(DataOutputStream out, byte[] value) throws IOException {
        out.writeInt(value.length);
        out.write(value);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > in.available()) {
            throw new IOException("a value of " + length + " bytes");
        }
        byte[] value = new byte[length];
        in.readFully(value);
        return value;
    }
}
