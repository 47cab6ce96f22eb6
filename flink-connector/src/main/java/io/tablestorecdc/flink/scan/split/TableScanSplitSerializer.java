package io.tablestorecdc.flink.scan.split;

import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.KeyRangeCodec;
import java.io.IOException;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Persists {@link TableScanSplit}s in checkpoints and savepoints.
 *
 * <p>Version 1: split id (UTF), the range as {@link KeyRangeCodec} bytes (int length + bytes), a
 * flag for the last key read and, when set, that key as {@link KeyRangeCodec#encodeKey} bytes (int
 * length + bytes). Old versions stay readable; trailing bytes are rejected.
 */
@Internal
public final class TableScanSplitSerializer implements SimpleVersionedSerializer<TableScanSplit> {

    public static final int VERSION_1 = 1;
    public static final int CURRENT_VERSION = VERSION_1;

    /** Far above any real key (the service allows 4 primary-key columns of at most 1 KB each). */
    private static final int MAX_BYTES = 1024 * 1024;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(TableScanSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public TableScanSplit deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        TableScanSplit split = read(version, in);
        requireFullyRead(in, "table scan split");
        return split;
    }

    /** Writes a split in the current version (also used inside the enumerator state). */
    public static void write(TableScanSplit split, DataOutputView out) throws IOException {
        out.writeUTF(split.splitId());
        writeBytes(out, KeyRangeCodec.encode(split.range()));
        out.writeBoolean(split.lastRead().isPresent());
        if (split.lastRead().isPresent()) {
            writeBytes(out, KeyRangeCodec.encodeKey(split.lastRead().get()));
        }
    }

    /** Reads a split written by {@code version}. */
    public static TableScanSplit read(int version, DataInputView in) throws IOException {
        if (version != VERSION_1) {
            throw new IOException(
                    "Unknown table scan split version "
                            + version
                            + "; this build reads version "
                            + CURRENT_VERSION
                            + " and older. The state was written by a newer connector: upgrade"
                            + " the connector to restore it, or start the scan without the state.");
        }
        String splitId = in.readUTF();
        try {
            KeyRange range = KeyRangeCodec.decode(readBytes(in, splitId));
            return new TableScanSplit(
                    splitId,
                    range,
                    in.readBoolean()
                            ? Optional.of(KeyRangeCodec.decodeKey(readBytes(in, splitId)))
                            : Optional.empty());
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt table scan split " + splitId + ": " + e.getMessage(), e);
        }
    }

    private static void writeBytes(DataOutputView out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputView in, String splitId) throws IOException {
        int length = in.readInt();
        if (length <= 0 || length > MAX_BYTES) {
            throw new IOException(
                    "Corrupt table scan split " + splitId + ": a key of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    /** Refuses bytes after the end of what was read. */
    public static void requireFullyRead(DataInputDeserializer in, String what) throws IOException {
        if (in.available() > 0) {
            throw new IOException(
                    "Corrupt "
                            + what
                            + ": "
                            + in.available()
                            + " unexpected trailing bytes. The state is damaged or was written by"
                            + " an incompatible connector version.");
        }
    }
}
