package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitSerializer;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Persists the {@link EnumeratorState} in checkpoints and savepoints.
 *
 * <p>Version 1: tunnel-id flag and UTF, split count (int), then per split its status code (UTF) and
 * the split in {@link ChannelSplitSerializer} version 1. Version 2: as version 1 with the
 * consumer-id flag and UTF right after the tunnel id. Version 3: as version 2 with the
 * checkpoint-id flag and long after the consumer id. Version 4: as version 3 with the lease-holder
 * flag and UTF after the checkpoint id. Version 5: as version 4 with the splits in {@link
 * ChannelSplitSerializer} version 2, then the count of tables (int) and per table its name (UTF)
 * and its state in version 5 (a source of several tables). Old versions stay readable; trailing
 * bytes and unknown versions are rejected with a message.
 */
@Internal
public final class EnumeratorStateSerializer implements SimpleVersionedSerializer<EnumeratorState> {

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;
    public static final int VERSION_3 = 3;
    public static final int VERSION_4 = 4;
    public static final int VERSION_5 = 5;
    public static final int CURRENT_VERSION = VERSION_5;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(EnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        write(state, out);
        return out.getCopyOfBuffer();
    }

    private static void write(EnumeratorState state, DataOutputSerializer out) throws IOException {
        writeOptional(state.tunnelId(), out);
        writeOptional(state.consumerId(), out);
        out.writeBoolean(state.checkpointId().isPresent());
        if (state.checkpointId().isPresent()) {
            out.writeLong(state.checkpointId().get());
        }
        writeOptional(state.leaseHolder(), out);
        out.writeInt(state.splits().size());
        for (EnumeratorState.Entry entry : state.splits().values()) {
            out.writeUTF(entry.status().code());
            ChannelSplitSerializer.write(entry.split(), out);
        }
        out.writeInt(state.tables().size());
        for (Map.Entry<String, EnumeratorState> table : state.tables().entrySet()) {
            out.writeUTF(table.getKey());
            write(table.getValue(), out);
        }
    }

    private static void writeOptional(Optional<String> value, DataOutputSerializer out)
            throws IOException {
        out.writeBoolean(value.isPresent());
        if (value.isPresent()) {
            out.writeUTF(value.get());
        }
    }

    private static Optional<String> readOptional(DataInputDeserializer in) throws IOException {
        return in.readBoolean() ? Optional.of(in.readUTF()) : Optional.empty();
    }

    @Override
    public EnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version < VERSION_1 || version > VERSION_5) {
            throw new IOException(
                    "Unknown enumerator state version "
                            + version
                            + "; this build reads version "
                            + CURRENT_VERSION
                            + " and older. The state was written by a newer connector: upgrade"
                            + " the connector to restore it.");
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        EnumeratorState state = read(version, in);
        ChannelSplitSerializer.requireFullyRead(in, "enumerator state");
        return state;
    }

    private static EnumeratorState read(int version, DataInputDeserializer in) throws IOException {
        Optional<String> tunnelId = readOptional(in);
        Optional<String> consumerId = version >= VERSION_2 ? readOptional(in) : Optional.empty();
        Optional<Long> checkpointId =
                version >= VERSION_3 && in.readBoolean()
                        ? Optional.of(in.readLong())
                        : Optional.empty();
        Optional<String> leaseHolder = version >= VERSION_4 ? readOptional(in) : Optional.empty();
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("Corrupt enumerator state: negative split count " + count);
        }
        Map<String, EnumeratorState.Entry> splits = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            SplitStatus status = readStatus(in.readUTF());
            ChannelSplit split =
                    ChannelSplitSerializer.read(
                            version >= VERSION_5
                                    ? ChannelSplitSerializer.VERSION_2
                                    : ChannelSplitSerializer.VERSION_1,
                            in);
            splits.put(split.splitId(), new EnumeratorState.Entry(split, status));
        }
        Map<String, EnumeratorState> tables = new LinkedHashMap<>();
        int tableCount = version >= VERSION_5 ? in.readInt() : 0;
        if (tableCount < 0) {
            throw new IOException("Corrupt enumerator state: negative table count " + tableCount);
        }
        for (int i = 0; i < tableCount; i++) {
            String table = in.readUTF();
            tables.put(table, read(version, in));
        }
        return new EnumeratorState(tunnelId, consumerId, splits, checkpointId, leaseHolder, tables);
    }

    private static SplitStatus readStatus(String code) throws IOException {
        try {
            return SplitStatus.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt enumerator state: " + e.getMessage(), e);
        }
    }
}
