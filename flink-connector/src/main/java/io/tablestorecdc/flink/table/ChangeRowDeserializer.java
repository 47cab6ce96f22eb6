package io.tablestorecdc.flink.table;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.deserializer.ChangeWriter;
import io.tablestorecdc.flink.source.deserializer.InvalidChangeRecordException;
import io.tablestorecdc.flink.source.deserializer.RowDataChangeRecordDeserializer;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The SQL source's row for one change: the physical columns (by name), then the requested metadata
 * columns, then, in upsert mode, a bit set of the physical columns the change touched, which {@link
 * PartialUpdateMerger} needs to merge a partial UPDATE into the row it changes.
 */
@Internal
final class ChangeRowDeserializer implements ChangeRecordDeserializer<RowData> {

    private static final long serialVersionUID = 1L;

    private final String tableName;
    private final RowType physicalType;
    private final RowDataChangeRecordDeserializer physical;
    private final List<ReadableMetadata> metadata;
    private final ChangelogModeOption mode;
    private final TypeInformation<RowData> producedType;
    private transient StringData tableData;

    ChangeRowDeserializer(
            String tableName,
            RowType physicalType,
            List<ReadableMetadata> metadata,
            ChangelogModeOption mode,
            TypeInformation<RowData> producedType) {
        this.tableName = tableName;
        this.physicalType = physicalType;
        this.physical = new RowDataChangeRecordDeserializer(physicalType, producedType);
        this.metadata = List.copyOf(metadata);
        this.mode = mode;
        this.producedType = producedType;
    }

    @Override
    public void deserialize(ChangeRecord record, Collector<RowData> out)
            throws InvalidChangeRecordException {
        if (mode == ChangelogModeOption.ALL) {
            fullChangelog(record, out);
            return;
        }
        RowData fields = physical.toRowData(record);
        boolean upsert = mode == ChangelogModeOption.UPSERT;
        out.collect(
                sourceRow(
                        fields,
                        upsert ? fields.getRowKind() : RowKind.INSERT,
                        metadata,
                        record.action(),
                        record.sequence(),
                        record.channelId(),
                        table(record),
                        upsert ? touched(record) : null));
    }

    /**
     * The source's row: the physical {@code fields} as row kind {@code kind}, then the metadata
     * columns of the change, then, when not null, the bits of the physical columns it touched.
     */
    static GenericRowData sourceRow(
            RowData fields,
            RowKind kind,
            List<ReadableMetadata> metadata,
            ChangeRecord.Action action,
            SequenceInfo sequence,
            String channelId,
            StringData table,
            byte[] touched) {
        GenericRowData source = (GenericRowData) fields;
        int arity = source.getArity();
        GenericRowData row =
                new GenericRowData(kind, arity + metadata.size() + (touched == null ? 0 : 1));
        for (int i = 0; i < arity; i++) {
            row.setField(i, source.getField(i));
        }
        for (int i = 0; i < metadata.size(); i++) {
            row.setField(arity + i, metadata.get(i).read(action, sequence, channelId, table));
        }
        if (touched != null) {
            row.setField(arity + metadata.size(), touched);
        }
        return row;
    }

    /**
     * Mode {@code all}: the rows a change means to a retracting consumer, from the before-image the
     * record carries (docs/flink.md, "Changelog mapping"). No before-image means the row did not
     * exist (or held none of the origin columns): a PUT or UPDATE is an INSERT. An UPDATE that
     * leaves no attribute column deletes the row, as in the table.
     */
    private void fullChangelog(ChangeRecord record, Collector<RowData> out)
            throws InvalidChangeRecordException {
        boolean existed = !record.before().isEmpty();
        switch (record.action()) {
            case DELETE:
                out.collect(
                        withMetadata(
                                existed
                                        ? physical.beforeImage(record, RowKind.DELETE)
                                        : physical.afterImage(record, RowKind.DELETE),
                                record));
                return;
            case UPDATE:
                if (!RowDataChangeRecordDeserializer.holdsAttributesAfter(record)) {
                    if (existed) {
                        out.collect(
                                withMetadata(physical.beforeImage(record, RowKind.DELETE), record));
                    }
                    return;
                }
                break;
            default:
                break;
        }
        if (existed) {
            out.collect(withMetadata(physical.beforeImage(record, RowKind.UPDATE_BEFORE), record));
            out.collect(withMetadata(physical.afterImage(record, RowKind.UPDATE_AFTER), record));
        } else {
            out.collect(withMetadata(physical.afterImage(record, RowKind.INSERT), record));
        }
    }

    private RowData withMetadata(RowData fields, ChangeRecord record) {
        return sourceRow(
                fields,
                fields.getRowKind(),
                metadata,
                record.action(),
                record.sequence(),
                record.channelId(),
                table(record),
                null);
    }

    /** Bit i set when physical column i is carried (PUT, key) or cleared by the change. */
    private byte[] touched(ChangeRecord record) {
        Set<String> names = new HashSet<>();
        record.primaryKey().forEach(pk -> names.add(pk.name()));
        record.columns().forEach(c -> names.add(c.name()));
        List<String> fields = physicalType.getFieldNames();
        byte[] bits = new byte[(fields.size() + 7) / 8];
        for (int i = 0; i < fields.size(); i++) {
            if (names.contains(fields.get(i))) {
                bits[i / 8] |= (byte) (1 << (i % 8));
            }
        }
        return bits;
    }

    /** The {@code table_name} value: one immutable string shared by the rows. */
    /** The record's table, or the source's one table when the record does not name it. */
    private StringData table(ChangeRecord record) {
        return record.table().isEmpty() || record.table().equals(tableName)
                ? table()
                : StringData.fromString(record.table());
    }

    private StringData table() {
        if (tableData == null) {
            tableData = StringData.fromString(tableName);
        }
        return tableData;
    }

    static boolean isTouched(byte[] bits, int field) {
        return (bits[field / 8] & (1 << (field % 8))) != 0;
    }

    /**
     * Modes {@code upsert} and {@code insert-only} write their rows straight from the response;
     * mode {@code all} reads the before-image of a materialised change.
     */
    @Override
    public Optional<ChangeWriter<RowData>> changeWriter() {
        if (mode == ChangelogModeOption.ALL) {
            return Optional.empty();
        }
        return physical.changeWriter()
                .map(
                        fields ->
                                new ChangeRowWriter(
                                        fields,
                                        table(),
                                        physicalType.getFieldNames(),
                                        metadata,
                                        mode == ChangelogModeOption.UPSERT));
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
