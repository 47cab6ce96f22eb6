package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

/** The metadata columns the SQL source offers ({@code METADATA FROM 'op'} and so on). */
@Internal
public enum ReadableMetadata {
    /** PUT, UPDATE or DELETE. */
    OP("op", DataTypes.STRING().notNull()),
    /** The change's commit time; NULL when the server sends none (base data). */
    COMMIT_TS("commit_ts", DataTypes.TIMESTAMP_LTZ(3).nullable()),
    /** The tunnel channel the change was read from. */
    CHANNEL("channel", DataTypes.STRING().notNull()),
    /** The server's ordering of the change, {@code epoch:timestampMicros:rowIndex}. */
    SEQ("seq", DataTypes.STRING().notNull()),
    /** The Tablestore table the change was read from ({@code table.name}). */
    TABLE_NAME("table_name", DataTypes.STRING().notNull());

    private final String key;
    private final DataType type;

    ReadableMetadata(String key, DataType type) {
        this.key = key;
        this.type = type;
    }

    public String key() {
        return key;
    }

    public DataType type() {
        return type;
    }

    /**
     * The internal (RowData) value of this column for a change of table {@code table}, from the
     * change's parts (a change is written with or without a {@link ChangeRecord}).
     */
    Object read(
            ChangeRecord.Action action, SequenceInfo sequence, String channelId, StringData table) {
        switch (this) {
            case OP:
                return StringData.fromString(action.name());
            case COMMIT_TS:
                long micros = sequence.timestampMicros();
                return micros == 0 ? null : TimestampData.fromEpochMillis(micros / 1000);
            case CHANNEL:
                return StringData.fromString(channelId);
            case TABLE_NAME:
                return table;
            default:
                return StringData.fromString(
                        sequence.epoch()
                                + ":"
                                + sequence.timestampMicros()
                                + ":"
                                + sequence.rowIndex());
        }
    }

    /** The column for {@code key}, or an error naming the keys there are. */
    public static ReadableMetadata of(String key) {
        for (ReadableMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException(
                "Unknown metadata key '"
                        + key
                        + "': use one of "
                        + Arrays.stream(values())
                                .map(ReadableMetadata::key)
                                .collect(Collectors.joining(", ")));
    }
}
