package io.tablestorecdc.flink.scan.enumerator;

import io.tablestorecdc.flink.scan.split.TableScanSplit;
import io.tablestorecdc.flink.scan.split.TableScanSplitSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Persists {@link TableScanEnumeratorState}.
 *
 * <p>Version 1: planned flag, split count (int), then each split as {@link
 * TableScanSplitSerializer} version 1 writes it. Trailing bytes are rejected.
 */
@Internal
public final class TableScanEnumeratorStateSerializer
        implements SimpleVersionedSerializer<TableScanEnumeratorState> {

    public static final int VERSION_1 = 1;
    public static final int CURRENT_VERSION = VERSION_1;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(TableScanEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeBoolean(state.planned());
        out.writeInt(state.unassigned().size());
        for (TableScanSplit split : state.unassigned()) {
            TableScanSplitSerializer.write(split, out);
        }
        return out.getCopyOfBuffer();
    }

    @Override
    public TableScanEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw new IOException(
                    "Unknown table scan enumerator state version "
                            + version
                            + "; this build reads version "
                            + CURRENT_VERSION
                            + " and older. The state was written by a newer connector: upgrade"
                            + " the connector to restore it, or start the scan without the state.");
        }
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        boolean planned = in.readBoolean();
        int count = in.readInt();
        if (count < 0 || count > in.available()) {
            throw new IOException("Corrupt table scan enumerator state: " + count + " splits");
        }
        List<TableScanSplit> splits = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            splits.add(TableScanSplitSerializer.read(TableScanSplitSerializer.VERSION_1, in));
        }
        TableScanSplitSerializer.requireFullyRead(in, "table scan enumerator state");
        try {
            return new TableScanEnumeratorState(planned, splits);
        } catch (IllegalArgumentException e) {
            throw new IOException("Corrupt table scan enumerator state: " + e.getMessage(), e);
        }
    }
}
