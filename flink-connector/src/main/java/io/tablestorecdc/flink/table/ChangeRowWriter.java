package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.ChangeRecord.Action;
import io.tablestorecdc.checkpoint.model.ChangeRecord.ColumnOperation;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.flink.source.deserializer.ChangeWriter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * {@link ChangeRowDeserializer}'s row for modes {@code upsert} and {@code insert-only}, written
 * straight from the response: the physical columns through the RowData writer, then the metadata
 * columns, then, in upsert mode, the bit set of the physical columns the change touched. What the
 * physical writer leaves to its deserializer (a value that does not fit) this writer leaves to
 * {@link ChangeRowDeserializer} too, which gives the same row or names the problem.
 */
final class ChangeRowWriter implements ChangeWriter<RowData> {

    private static final int NO_FIELD = -1;

    private final ChangeWriter<RowData> physical;
    private StringData table;
    private final List<ReadableMetadata> metadata;
    private final boolean upsert;
    private final Map<String, Integer> fieldsByName = new HashMap<>();
    private final byte[] touched;
    private Action action = Action.PUT;
    private SequenceInfo sequence = SequenceInfo.NONE;
    private String channelId = "";

    ChangeRowWriter(
            ChangeWriter<RowData> physical,
            StringData table,
            List<String> physicalNames,
            List<ReadableMetadata> metadata,
            boolean upsert) {
        this.physical = physical;
        this.table = table;
        this.metadata = List.copyOf(metadata);
        this.upsert = upsert;
        for (int i = 0; i < physicalNames.size(); i++) {
            fieldsByName.putIfAbsent(physicalNames.get(i), i);
        }
        this.touched = new byte[(physicalNames.size() + 7) / 8];
    }

    @Override
    public void table(String name) {
        table = StringData.fromString(name);
    }

    @Override
    public void begin(Action action, int columnCount, SequenceInfo sequence, String channelId) {
        this.action = action;
        this.sequence = sequence;
        this.channelId = channelId;
        Arrays.fill(touched, (byte) 0);
        physical.begin(action, columnCount, sequence, channelId);
    }

    @Override
    public void primaryKey(int position, String name, Cell value) {
        touch(name);
        physical.primaryKey(position, name, value);
    }

    @Override
    public void column(
            int index, String name, ColumnOperation operation, Cell value, long timestampMillis) {
        touch(name); // a column a change deletes is touched too: the merge clears it
        physical.column(index, name, operation, value, timestampMillis);
    }

    @Override
    public Action action() {
        return action;
    }

    @Override
    public RowData finish() {
        RowData fields = physical.finish();
        if (fields == null) {
            return null;
        }
        return ChangeRowDeserializer.sourceRow(
                fields,
                upsert ? fields.getRowKind() : RowKind.INSERT,
                metadata,
                action,
                sequence,
                channelId,
                table,
                upsert ? touched.clone() : null);
    }

    private void touch(String name) {
        if (upsert) {
            int field = fieldsByName.getOrDefault(name, NO_FIELD);
            if (field != NO_FIELD) {
                touched[field / 8] |= (byte) (1 << (field % 8));
            }
        }
    }
}
